/** The git behind worktree chats: a worktree on a new branch outside the workspace, its changes, Apply into the workspace (all or nothing), Discard. */

import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { t } from '../../shared/l10n.ts';
import { spawnOffThread } from './gitThread.ts';

/** A worktree chat's worktree. */
export interface WorktreeInfo {
  /** The worktree's folder (absolute). */
  readonly path: string;
  /** Its branch, `pi/<n>`. */
  readonly branch: string;
  /** The commit it started from: Apply brings what changed since. */
  readonly base: string;
  /** The main working tree's root (absolute). */
  readonly repo: string;
}

/** Why a worktree could not be made or used; `message` says it to the user. */
export type WorktreeErrorCode = 'noGit' | 'notRepo' | 'bare' | 'noCommit' | 'detached' | 'branchTaken' | 'missing' | 'failed' | 'dirty' | 'busy' | 'noIdentity';

export class WorktreeError extends Error {
  readonly code: WorktreeErrorCode;

  constructor(code: WorktreeErrorCode, message: string) {
    super(message);
    this.name = 'WorktreeError';
    this.code = code;
  }
}

/** How to start git (tests point it at a missing executable). */
export interface GitOptions {
  readonly gitPath?: string;
}

interface GitResult {
  readonly code: number;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/**
 * Git in the user's repository, with the user's config (their hooks and filters apply, as on the command line),
 * but without the `GIT_*` variables a terminal or VS Code's askpass may have set, which would point it elsewhere.
 */
function gitEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^GIT_/i.test(k)) env[k] = v;
  // Errors and file lists come back unlocalised, as the parsers here expect; nothing waits for a password.
  return { ...env, LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0', ...extra };
}

/** `git args` in `cwd`, whatever its exit code. */
export async function run(cwd: string, args: readonly string[], o: GitOptions & { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<GitResult> {
  const r = await spawnOffThread(o.gitPath ?? 'git', args, cwd, gitEnv(o.env), o.input ?? '', 512 * 1024 * 1024);
  if (typeof r.code === 'string') throw new WorktreeError('noGit', t('Git was not found. Install git (or put it on PATH) to use worktree chats.'));
  return { code: r.code, stdout: r.stdout, stderr: r.stderr.toString() };
}

/** `git args` that must succeed; its output as text. */
export async function git(cwd: string, args: readonly string[], o: GitOptions & { env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  const r = await run(cwd, args, o);
  if (r.code !== 0) throw new WorktreeError('failed', t('git {0} failed: {1}', args[0] ?? '', r.stderr.trim() || String(r.code)));
  return r.stdout.toString();
}

/** What a worktree chat starts from: the repository's root and HEAD. */
export interface RepoState {
  readonly root: string;
  readonly head: string;
  /** The checked-out branch; undefined on a detached HEAD. */
  readonly branch: string | undefined;
}

/** The repository `dir` is in; refuses no git, no repository, a bare one and one without a commit. */
export async function inspectRepo(dir: string, o: GitOptions = {}): Promise<RepoState> {
  const bare = await run(dir, ['rev-parse', '--is-bare-repository'], o);
  if (bare.code !== 0) throw new WorktreeError('notRepo', t('{0} is not in a git repository. Worktree chats need one (git init, then a first commit).', dir));
  if (bare.stdout.toString().trim() === 'true') throw new WorktreeError('bare', t('{0} is a bare repository: it has no working tree to branch from.', dir));
  const root = (await git(dir, ['rev-parse', '--show-toplevel'], o)).trim();
  const head = await run(root, ['rev-parse', '--verify', '-q', 'HEAD^{commit}'], o);
  if (head.code !== 0) throw new WorktreeError('noCommit', t('The repository has no commit yet. Commit once, then start a worktree chat.'));
  const sym = await run(root, ['symbolic-ref', '-q', '--short', 'HEAD'], o);
  return { root: path.resolve(root), head: head.stdout.toString().trim(), branch: sym.code === 0 ? sym.stdout.toString().trim() : undefined };
}

/** Whether the working tree has uncommitted changes or untracked files (not ignored ones). */
export async function isDirty(root: string, o: GitOptions = {}): Promise<boolean> {
  return (await git(root, ['status', '--porcelain', '-z', '--untracked-files=normal'], o)).length > 0;
}

async function branchExists(root: string, branch: string, o: GitOptions): Promise<boolean> {
  return (await run(root, ['show-ref', '--verify', '-q', `refs/heads/${branch}`], o)).code === 0;
}

export async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(
    () => true,
    () => false,
  );
}

/** Where worktree chats are made by default: `<storage>/worktrees`. */
export function defaultWorktreeFolder(storage: string): string {
  return path.join(storage, 'worktrees');
}

/**
 * A new worktree of the repository `dir` is in, on the first free branch `pi/<n>` from HEAD, in `folder`;
 * `carry` brings the working tree's uncommitted changes and untracked files along (the workspace keeps them).
 */
export async function createWorktree(opts: { readonly dir: string; readonly folder: string; readonly carry: boolean } & GitOptions): Promise<WorktreeInfo> {
  const repo = await inspectRepo(opts.dir, opts);
  if (!repo.branch) throw new WorktreeError('detached', t('HEAD is detached. Check out a branch first, then start a worktree chat.'));
  const folder = path.resolve(opts.folder.startsWith('~/') ? path.join(os.homedir(), opts.folder.slice(2)) : opts.folder);
  const inside = path.relative(repo.root, folder);
  if (inside === '' || (!inside.startsWith('..') && !path.isAbsolute(inside)))
    throw new WorktreeError('failed', t('The worktree folder {0} is inside the workspace; choose one outside it (piPanel.worktreeFolder).', folder));
  await fs.mkdir(folder, { recursive: true });
  const name = path.basename(repo.root) || 'repo';
  for (let n = 1; n < 10_000; n++) {
    const branch = `pi/${n}`;
    const where = path.join(folder, `${name}-pi-${n}`);
    if ((await branchExists(repo.root, branch, opts)) || (await exists(where))) continue;
    const add = await run(repo.root, ['worktree', 'add', '-q', '-b', branch, where, repo.head], opts);
    if (add.code !== 0) {
      if (/already exists/.test(add.stderr)) throw new WorktreeError('branchTaken', t('The branch {0} already exists. Try again, or delete it.', branch));
      throw new WorktreeError('failed', t('git worktree add failed: {0}', add.stderr.trim()));
    }
    const info: WorktreeInfo = { path: where, branch, base: repo.head, repo: repo.root };
    if (opts.carry) await carryChanges(repo.root, where, opts);
    return info;
  }
  throw new WorktreeError('branchTaken', t('No free branch name pi/<n> is left.'));
}

/** Copies the working tree's uncommitted changes (through a stash commit the workspace never sees) and untracked files into the worktree. */
async function carryChanges(root: string, worktree: string, o: GitOptions): Promise<void> {
  const stash = (await git(root, ['stash', 'create'], o)).trim();
  if (stash) await git(worktree, ['stash', 'apply', '-q', stash], o);
  const untracked = (await git(root, ['ls-files', '-z', '--others', '--exclude-standard'], o)).split('\0').filter(Boolean);
  for (const rel of untracked) {
    const to = path.join(worktree, rel);
    await fs.mkdir(path.dirname(to), { recursive: true });
    await fs.cp(path.join(root, rel), to, { force: true, verbatimSymlinks: true });
  }
}

/** A file the worktree changed since its base: `A`dded, `M`odified or `D`eleted. */
export interface WorktreeChange {
  readonly status: 'A' | 'M' | 'D';
  readonly path: string;
}

/** The worktree's whole state (commits and uncommitted and untracked files, not ignored ones) as a tree, through an index of its own. */
async function snapshotTree(info: WorktreeInfo, o: GitOptions): Promise<string> {
  if (!(await exists(info.path)))
    throw new WorktreeError('missing', t('The worktree {0} no longer exists (deleted by hand?). Discard the chat to remove its branch.', info.path));
  const index = path.join(os.tmpdir(), `pi-worktree-index-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const env = { GIT_INDEX_FILE: index };
  try {
    await git(info.path, ['read-tree', 'HEAD'], { ...o, env });
    await git(info.path, ['add', '-A', '--', '.'], { ...o, env });
    return (await git(info.path, ['write-tree'], { ...o, env })).trim();
  } finally {
    await fs.rm(index, { force: true });
  }
}

async function changesBetween(info: WorktreeInfo, tree: string, o: GitOptions): Promise<WorktreeChange[]> {
  const out = (await git(info.path, ['diff-tree', '-r', '-z', '--no-renames', '--name-status', info.base, tree], o)).split('\0');
  const changes: WorktreeChange[] = [];
  for (let i = 0; i + 1 < out.length; i += 2) {
    const status = out[i]!.charAt(0);
    if (status === 'A' || status === 'M' || status === 'D') changes.push({ status, path: out[i + 1]! });
    // A type change (file <-> symlink) is a modification for Apply.
    else if (status === 'T') changes.push({ status: 'M', path: out[i + 1]! });
  }
  return changes;
}

/** What the worktree changed since it started: what Apply brings and Discard loses. */
export async function worktreeChanges(info: WorktreeInfo, o: GitOptions = {}): Promise<WorktreeChange[]> {
  return changesBetween(info, await snapshotTree(info, o), o);
}

/** What Apply did: the files it changed in the workspace, or (then it changed none) the files that conflict. */
export interface ApplyResult {
  readonly applied: readonly string[];
  readonly conflicts: readonly string[];
}

/** The blobs `specs` (`<tree-ish>:<path>`) name, read by one `git cat-file --batch`: one process for any number of files. */
async function blobs(cwd: string, specs: readonly string[], o: GitOptions): Promise<Buffer[]> {
  if (!specs.length) return [];
  const r = await run(cwd, ['cat-file', '--batch'], { ...o, input: specs.join('\n') + '\n' });
  if (r.code !== 0) throw new WorktreeError('failed', t('git cat-file failed: {0}', r.stderr.trim()));
  const out: Buffer[] = [];
  let at = 0;
  for (const spec of specs) {
    const eol = r.stdout.indexOf(0x0a, at);
    const header = r.stdout.subarray(at, eol).toString();
    const size = Number(/^[0-9a-f]+ blob (\d+)$/.exec(header)?.[1]);
    if (!Number.isFinite(size)) throw new WorktreeError('failed', t('git cat-file failed: {0}', `${spec}: ${header}`));
    out.push(r.stdout.subarray(eol + 1, eol + 1 + size));
    at = eol + 1 + size + 1;
  }
  return out;
}

async function readIfAny(file: string): Promise<Buffer | undefined> {
  try {
    return await fs.readFile(file);
  } catch {
    return undefined;
  }
}

const same = (a: Buffer | undefined, b: Buffer | undefined) => (a === undefined ? b === undefined : b !== undefined && a.equals(b));

/** A three-way merge of one file's text by `git merge-file`; undefined when it conflicts (or is binary). */
async function mergeText(ours: Buffer, base: Buffer, theirs: Buffer, o: GitOptions): Promise<Buffer | undefined> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pi-merge-'));
  try {
    const [a, b, c] = ['ours', 'base', 'theirs'].map((n) => path.join(dir, n)) as [string, string, string];
    await Promise.all([fs.writeFile(a, ours), fs.writeFile(b, base), fs.writeFile(c, theirs)]);
    const r = await run(dir, ['merge-file', '-p', '-q', a, b, c], o);
    return r.code === 0 ? r.stdout : undefined;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/**
 * Brings the worktree's changes since its base into the main working tree `root` as uncommitted changes, each file
 * merged three ways with what the workspace holds now. All or nothing: when any file conflicts, none is written and
 * the conflicting files are named; the worktree itself is never changed.
 */
export async function applyWorktree(info: WorktreeInfo, root: string, o: GitOptions = {}): Promise<ApplyResult> {
  const tree = await snapshotTree(info, o);
  const changes = await changesBetween(info, tree, o);
  const writes: { file: string; rel: string; content: Buffer | undefined }[] = [];
  const conflicts: string[] = [];
  const bases = await blobs(
    info.path,
    changes.filter((c) => c.status !== 'A').map((c) => `${info.base}:${c.path}`),
    o,
  );
  const theirsAll = await blobs(
    info.path,
    changes.filter((c) => c.status !== 'D').map((c) => `${tree}:${c.path}`),
    o,
  );
  for (const change of changes) {
    const file = path.join(root, change.path);
    const ours = await readIfAny(file);
    const base = change.status === 'A' ? undefined : bases.shift();
    const theirs = change.status === 'D' ? undefined : theirsAll.shift();
    if (same(ours, theirs)) continue;
    if (same(ours, base)) writes.push({ file, rel: change.path, content: theirs });
    else if (ours && base && theirs) {
      const merged = await mergeText(ours, base, theirs, o);
      if (merged) writes.push({ file, rel: change.path, content: merged });
      else conflicts.push(change.path);
    } else conflicts.push(change.path);
  }
  if (conflicts.length) return { applied: [], conflicts };
  for (const w of writes) {
    if (w.content === undefined) await fs.rm(w.file, { force: true });
    else {
      await fs.mkdir(path.dirname(w.file), { recursive: true });
      await fs.writeFile(w.file, w.content);
    }
  }
  return { applied: writes.map((w) => w.rel), conflicts: [] };
}

/** Removes the worktree (its uncommitted changes too) and deletes its branch; a folder already gone is pruned. */
export async function removeWorktree(info: WorktreeInfo, o: GitOptions = {}): Promise<void> {
  if (await exists(info.path)) {
    const r = await run(info.repo, ['worktree', 'remove', '--force', '--force', info.path], o);
    if (r.code !== 0) throw new WorktreeError('failed', t('git worktree remove failed: {0}', r.stderr.trim()));
  } else await git(info.repo, ['worktree', 'prune'], o);
  if (await branchExists(info.repo, info.branch, o)) await git(info.repo, ['branch', '-D', '-q', info.branch], o);
}

/** A worktree of the repository made by a worktree chat (branch `pi/…`), whether or not a chat still has it. */
export interface ListedWorktree {
  readonly path: string;
  readonly branch: string;
  /** Its folder is gone (deleted by hand): only the branch and git's record remain. */
  readonly missing: boolean;
}

/** The repository's worktrees on `pi/…` branches, as `git worktree list` knows them. */
export async function listWorktrees(dir: string, o: GitOptions = {}): Promise<ListedWorktree[]> {
  const out = await git(dir, ['worktree', 'list', '--porcelain', '-z'], o);
  const found: ListedWorktree[] = [];
  let current: { path?: string; branch?: string; prunable?: boolean } = {};
  const flush = () => {
    if (current.path && current.branch?.startsWith('pi/')) found.push({ path: current.path, branch: current.branch, missing: current.prunable === true });
    current = {};
  };
  for (const field of out.split('\0')) {
    if (field === '') flush();
    else if (field.startsWith('worktree ')) current.path = field.slice('worktree '.length);
    // l10n-ignore: git's porcelain field
    else if (field.startsWith('branch refs/heads/')) current.branch = field.slice('branch refs/heads/'.length);
    else if (field.startsWith('prunable')) current.prunable = true;
  }
  flush();
  return found;
}
