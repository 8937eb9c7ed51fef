/**
 * The git plumbing of checkpoints: a shadow repository in the extension's storage whose work tree is the
 * workspace. It stages the workspace into its own index (honouring `.gitignore`, a size cap per file, leaving
 * nested repositories out), writes trees and commits, names them with refs, and diffs trees. It never reads or
 * writes the user's `.git`: every command runs with `GIT_DIR`, `GIT_WORK_TREE` and `GIT_INDEX_FILE` of its own.
 */

import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { BlobReader } from './blobReader.ts';
import { readRegularFile } from './workspaceFiles.ts';
import { canRunScripts, GitError, runGit, runGitScript, type GitOptions, type GitTarget } from './git.ts';

/**
 * A raw path's name as the user reads it. Git's paths are bytes: they are kept as `latin1` strings (one
 * character per byte) from git's output to the filesystem and back, so a name that is not UTF-8 is staged
 * and restored as it is; only what is shown is decoded.
 */
export function displayPath(raw: string): string {
  return Buffer.from(raw, 'latin1').toString('utf8');
}

/** A path as shown (or as Node gives it) in the raw form git's output has. */
function rawPath(display: string): string {
  return Buffer.from(display, 'utf8').toString('latin1');
}

/** The filesystem path of raw path `rel` under `root` (a path as Node gives it): bytes, for any name. */
export function workspacePath(root: string, rel: string): Buffer {
  return Buffer.from(path.join(rawPath(root), rel), 'latin1');
}

/** A workspace file a checkpoint does not hold, and why. */
export interface SkippedFile {
  /** Workspace-relative, '/'-separated. */
  readonly path: string;
  readonly reason: string;
}

/** The workspace staged as a tree, and what was left out of it. */
export interface Snapshot {
  readonly tree: string;
  readonly skipped: readonly SkippedFile[];
}

/** One path that differs between two trees (`diff-tree --raw`, no rename detection). */
export interface TreeChange {
  /** Raw (see `displayPath`). */
  readonly path: string;
  /** A: only in the second tree; D: only in the first; M: content or mode; T: file <-> symlink. */
  readonly status: 'A' | 'D' | 'M' | 'T';
  readonly fromMode: string;
  readonly toMode: string;
  readonly fromSha: string;
  readonly toSha: string;
}

/** Lines added and removed in one path; `binary` has no line counts. */
export interface LineStat {
  readonly added: number;
  readonly removed: number;
  readonly binary: boolean;
}

/** A ref under the checkpoints' namespace: its commit and the commit message's body. */
export interface RefRecord {
  readonly ref: string;
  readonly sha: string;
  readonly body: string;
}

/**
 * What the shadow repository leaves out besides the workspace's `.gitignore` rules: dependency and cache
 * folders a workspace without a `.gitignore` would otherwise copy in full on every first checkpoint.
 */
const DEFAULT_EXCLUDES: readonly string[] = ['.git', 'node_modules/', '.venv/', '__pycache__/', '.DS_Store', 'Thumbs.db'];

/** Files larger than this are not stored in a checkpoint (reported as skipped). */
const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;

/** A user's `.git/info/exclude` larger than this is not read (rules, not data: a few KB at most). */
const MAX_EXCLUDE_BYTES = 1024 * 1024;

const CONFIG_MARK = 'checkpoints@pi-agent-panel.invalid';

/**
 * Appended to the shadow repository's config once (one write instead of a `git config` process per key). An
 * empty core.excludesFile: unset, git would read the user's ~/.config/git/ignore and checkpoints would differ per
 * machine. No reflogs: they would keep a dropped session's files alive. gc.auto 0: pruning is the store's decision (dropping a session), not a side effect of a checkpoint.
 */
const SHADOW_CONFIG = `[user]
\tname = Pi Agent Panel
\temail = ${CONFIG_MARK}
[commit]
\tgpgSign = false
[core]
\tautocrlf = false
\tsafecrlf = false
\tfsmonitor = false
\tlongpaths = true
\tlogAllRefUpdates = false
\texcludesFile =
[gc]
\tauto = 0
`;

/** Above this many paths to stage, `record` runs git directly: the process it saves is nothing next to the staging. */
const SCRIPT_MAX_PATHS = 1000;
/** Paths left out for git's errors before a checkpoint gives up: each costs running the staging again. */
const MAX_UNSTAGEABLE = 20;
const SHA_LINE = /^[0-9a-f]{40,64} [0-9a-f]{40,64}$/;

/**
 * `record`'s tail as one script: $1 'update' to stage the paths on standard input, $2 the tree when nothing
 * changed (else it is written), $3 the commit message's file, $4 the ref to name the commit by. Prints the tree
 * and the commit. Arguments reach git as they are: nothing is interpolated into the script. The ref is written
 * as git writes a loose ref (the id and a newline, through a lock file renamed into place), which saves a git
 * process; it takes precedence over a packed copy, and `update-ref --stdin` deletes it as any other.
 */
const RECORD_SCRIPT = `set -e
if [ "$1" = update ]; then "$G" update-index -z --add --remove --replace --stdin; fi
if [ -n "$2" ]; then t=$2; else t=$("$G" write-tree); fi
c=$("$G" commit-tree "$t" -F "$3")
r="$GIT_DIR/$4"
[ -d "\${r%/*}" ] || mkdir -p "\${r%/*}"
printf '%s\\n' "$c" > "$r.lock"
mv -f "$r.lock" "$r"
echo "$t $c"`;

/** The shadow repository of one workspace. Methods are not serialised: the caller runs one at a time. */
export class ShadowRepo {
  readonly target: GitTarget;
  private readonly _git: GitOptions;
  private readonly _maxFileBytes: number;
  /** The tree the index held after the last snapshot, and the index file's stat then: when git lists nothing and the index is as it was, that is still the tree. */
  private _last: { tree: string; index: string } | undefined;

  constructor(gitDir: string, workspace: string, opts: { indexName?: string; maxFileBytes?: number; git?: GitOptions } = {}) {
    this.target = { gitDir, workTree: workspace, indexFile: path.join(gitDir, opts.indexName ?? 'index') };
    this._git = opts.git ?? {};
    this._maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  }

  /** `git --version`'s number; rejects with `GitError.missing` when there is no git. */
  async version(): Promise<string> {
    const out = (await runGit(undefined, ['--version'], this._git)).toString('utf8').trim();
    return /(\d+\.\d+(?:\.\d+)?)/.exec(out)?.[1] ?? out;
  }

  /** Creates the repository on first use; (re)writes its excludes and attributes every time, since the user's may have changed. */
  async init(): Promise<void> {
    const { gitDir, workTree } = this.target;
    if (!(await exists(path.join(gitDir, 'HEAD')))) {
      await fs.mkdir(gitDir, { recursive: true });
      await this._run(['init', '--quiet']);
    }
    // Checked apart from the init: a repository whose creation was cut short still gets its identity and settings.
    const configFile = path.join(gitDir, 'config');
    if (!(await fs.readFile(configFile, 'utf8')).includes(CONFIG_MARK)) await fs.appendFile(configFile, SHADOW_CONFIG);
    await fs.mkdir(path.join(gitDir, 'info'), { recursive: true });
    // The user's own `.git/info/exclude` is read, never written: its rules are the user's too. Only a regular
    // file of sane size: the workspace controls what is at that path (an archive may hold a FIFO there).
    const userExclude = (await readRegularFile(path.join(workTree, '.git', 'info', 'exclude'), MAX_EXCLUDE_BYTES)) ?? Buffer.alloc(0);
    await fs.writeFile(path.join(gitDir, 'info', 'exclude'), Buffer.concat([Buffer.from(`${DEFAULT_EXCLUDES.join('\n')}\n`), userExclude]));
    // Highest precedence: the workspace's .gitattributes may not convert line endings or run filters (LFS), so blobs are the bytes on disk.
    await fs.writeFile(path.join(gitDir, 'info', 'attributes'), '* -text -eol -filter -ident -working-tree-encoding\n');
  }

  /**
   * Stages the workspace into the shadow index and writes it as a tree. Only paths git lists as new, modified
   * or deleted are looked at, so an unchanged workspace costs one directory walk.
   */
  async snapshot(): Promise<Snapshot> {
    return this._stage(await this._scan());
  }

  /**
   * A snapshot recorded as a commit named `ref` (no parent: each checkpoint stands alone); `message` is the
   * commit message, given what the snapshot skipped. Where there is a POSIX shell, the scan and then the rest
   * (stage, write the tree, commit, name it) are two scripts in the repository's long-lived shell: each process
   * Node starts forks the whole calling process, which costs more than the git command it runs. Many changed
   * files (a first checkpoint) are staged by git alone, with its own time limit.
   */
  async record(ref: string, message: (skipped: readonly SkippedFile[]) => string): Promise<{ tree: string; commit: string; skipped: readonly SkippedFile[] }> {
    const scan = await this._scan();
    if (!canRunScripts || scan.update.length > SCRIPT_MAX_PATHS) {
      const snap = await this._stage(scan);
      const commit = await this.commit(snap.tree, message(snap.skipped));
      await this.setRef(ref, commit);
      return { ...snap, commit };
    }
    const msgFile = `${this.target.indexFile}.message`;
    const out = await this._withoutUnreadable(scan, async () => {
      await fs.writeFile(msgFile, message(sortSkipped(scan.skipped)));
      return runGitScript(this.target, RECORD_SCRIPT, [scan.update.length ? 'update' : '', scan.tree ?? '', msgFile, ref], {
        ...this._git,
        // Four git commands, each allowed what one is.
        timeoutMs: 4 * (this._git.timeoutMs ?? 120_000),
        input: Buffer.from(scan.update.join('\0'), 'latin1'),
        what: 'the checkpoint',
      });
    });
    const [tree = '', commit = ''] = out.toString('utf8').trim().split(' ');
    if (!SHA_LINE.test(`${tree} ${commit}`)) throw new GitError(`the checkpoint's git commands gave no tree and commit: ${out.toString('utf8').slice(0, 200)}`);
    if (!scan.tree) this._last = { tree, index: await this._indexStat() };
    return { tree, commit, skipped: sortSkipped(scan.skipped) };
  }

  /**
   * Runs `stage` (which stages `scan.update`) again without each path git could not process (a file it may not
   * read, one that changed into something else meanwhile): one bad path leaves that file out of the checkpoint,
   * reported as skipped, instead of failing the whole checkpoint.
   */
  private async _withoutUnreadable<T>(scan: { update: string[]; skipped: SkippedFile[] }, stage: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await stage();
      } catch (err) {
        const bad = err instanceof GitError && attempt < MAX_UNSTAGEABLE ? unprocessablePath(err.stderr) : undefined;
        // git's message is read as UTF-8, so the path is compared as shown.
        const i = bad === undefined ? -1 : scan.update.findIndex((p) => displayPath(p) === bad);
        if (i < 0) throw err;
        const [raw] = scan.update.splice(i, 1);
        const why = /^error: (.*)$/m.exec((err as GitError).stderr)?.[1];
        scan.skipped.push({ path: displayPath(raw!), reason: why ? `git could not read it (${why})` : 'git could not read it' });
        // update-index stops at the bad path: the paths before it are staged already, and staged again harmlessly.
      }
    }
  }

  /** Stages what `scan` found and writes the index as a tree. */
  private async _stage(scan: { tree?: string; update: string[]; skipped: SkippedFile[] }): Promise<Snapshot> {
    if (scan.tree) return { tree: scan.tree, skipped: sortSkipped(scan.skipped) };
    if (scan.update.length)
      await this._withoutUnreadable(scan, () =>
        this._run(['update-index', '-z', '--add', '--remove', '--replace', '--stdin'], Buffer.from(scan.update.join('\0'), 'latin1')),
      );
    const tree = (await this._run(['write-tree'])).toString('utf8').trim();
    this._last = { tree, index: await this._indexStat() };
    return { tree, skipped: sortSkipped(scan.skipped) };
  }

  /**
   * What git lists as new, modified or deleted, sorted into paths to stage and what is left out. `tree` is set
   * when nothing changed since the last snapshot (nothing to stage). Paths to drop from the index are dropped
   * here (rare: a file grew past the cap, a file became a folder).
   */
  private async _scan(): Promise<{ tree?: string; update: string[]; skipped: SkippedFile[] }> {
    const lsFiles = ['ls-files', '-z', '--modified', '--deleted', '--others', '--exclude-standard'];
    const listed = splitZ(
      canRunScripts ? await runGitScript(this.target, '"$G" "$@"', lsFiles, { ...this._git, what: 'git ls-files' }) : await this._run(lsFiles),
    );
    // Nothing listed means no skipped file either: git lists a file too large to store (never added) every time.
    // Another store (a second chat with the same owner) may have written the index meanwhile.
    if (!listed.length && this._last && this._last.index === (await this._indexStat())) return { tree: this._last.tree, update: [], skipped: [] };
    const skipped: SkippedFile[] = [];
    const update: string[] = [];
    const drop: string[] = [];
    const seen = new Set<string>();
    const paths = listed.filter((p) => !seen.has(p) && seen.add(p));
    const realDirs = new Map<string, Promise<boolean>>();
    const isRealDir = (rel: string): Promise<boolean> => {
      let known = realDirs.get(rel);
      if (!known) {
        known = fs.lstat(workspacePath(this.target.workTree, rel)).then(
          (st) => st.isDirectory(),
          () => false,
        );
        realDirs.set(rel, known);
      }
      return known;
    };
    await forEachLimited(paths, 64, async (p) => {
      // git lists a nested repository (a submodule, a cloned dependency) as its folder and does not look inside.
      if (p.endsWith('/')) {
        skipped.push({ path: displayPath(p.slice(0, -1)), reason: 'it is a nested git repository' });
        return;
      }
      // A folder replaced by a symlink (or a file): its old files are gone, and git refuses to stage a path
      // beyond a symlink, which would fail the whole checkpoint. They leave the index; the link is staged as itself.
      for (let slash = p.indexOf('/'); slash > 0; slash = p.indexOf('/', slash + 1)) {
        if (!(await isRealDir(p.slice(0, slash)))) {
          drop.push(p);
          return;
        }
      }
      const st = await fs.lstat(workspacePath(this.target.workTree, p)).catch(() => undefined);
      if (!st) update.push(p);
      else if (st.isDirectory()) drop.push(p);
      else if (!st.isFile() && !st.isSymbolicLink()) {
        drop.push(p);
        skipped.push({ path: displayPath(p), reason: 'it is not a regular file' });
      } else if (st.size > this._maxFileBytes) {
        // A file that grew past the cap leaves the index: a checkpoint never holds an older copy as if it were current.
        drop.push(p);
        skipped.push({ path: displayPath(p), reason: `it is larger than ${formatBytes(this._maxFileBytes)}` });
      } else update.push(p);
    });
    if (drop.length) await this._run(['update-index', '-z', '--force-remove', '--stdin'], Buffer.from(drop.join('\0'), 'latin1'));
    return { update, skipped };
  }

  /** Writes a commit of `tree` with `message` (no parent: each checkpoint stands alone) and returns its id. */
  async commit(tree: string, message: string): Promise<string> {
    return (await this._run(['commit-tree', tree], message)).toString('utf8').trim();
  }

  async setRef(ref: string, sha: string): Promise<void> {
    await this._run(['update-ref', ref, sha]);
  }

  async deleteRefs(refs: readonly string[]): Promise<void> {
    if (refs.length) await this._run(['update-ref', '--stdin'], refs.map((r) => `delete ${r}\n`).join(''));
  }

  /** Every ref under `prefix` with its commit's message body. */
  async refs(prefix: string): Promise<RefRecord[]> {
    const out = (await this._run(['for-each-ref', '--format=%(refname)%00%(objectname)%00%(contents:body)%00', prefix])).toString('utf8');
    return out
      .split('\0\n')
      .filter((r) => r.length)
      .map((r) => {
        const [ref = '', sha = '', body = ''] = r.split('\0');
        return { ref, sha, body };
      });
  }

  /** The tree and message body of commit `sha`; undefined when there is no such commit. */
  async readCommit(sha: string): Promise<{ tree: string; body: string } | undefined> {
    const out = await this._run(['cat-file', 'commit', sha]).catch(() => undefined);
    if (!out) return undefined;
    const text = out.toString('utf8');
    const tree = /^tree ([0-9a-f]+)$/m.exec(text)?.[1];
    const blank = text.indexOf('\n\n');
    if (!tree) return undefined;
    const message = blank < 0 ? '' : text.slice(blank + 2);
    const nl = message.indexOf('\n\n');
    return { tree, body: nl < 0 ? '' : message.slice(nl + 2) };
  }

  /** What differs from tree `from` to tree `to`. */
  async changes(from: string, to: string): Promise<TreeChange[]> {
    const parts = splitZ(await this._run(['diff-tree', '-r', '-z', '--no-renames', '--raw', from, to]));
    const out: TreeChange[] = [];
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const [fromMode = '', toMode = '', fromSha = '', toSha = '', status = 'M'] = parts[i]!.slice(1).split(' ');
      out.push({ path: parts[i + 1]!, status: status as TreeChange['status'], fromMode, toMode, fromSha, toSha });
    }
    return out;
  }

  /** Lines added and removed per raw path from tree `from` to tree `to`. */
  async lineStats(from: string, to: string): Promise<Map<string, LineStat>> {
    const stats = new Map<string, LineStat>();
    for (const rec of splitZ(await this._run(['diff-tree', '-r', '-z', '--no-renames', '--numstat', from, to]))) {
      const [added = '', removed = '', ...rest] = rec.split('\t');
      const binary = added === '-';
      stats.set(rest.join('\t'), { added: binary ? 0 : Number(added), removed: binary ? 0 : Number(removed), binary });
    }
    return stats;
  }

  /** The content of `file` in `tree`, or undefined when the tree has no such file. */
  async blobAt(tree: string, file: string): Promise<Buffer | undefined> {
    const entry = splitZ(await this._run(['ls-tree', '-z', tree, '--', file]))[0];
    const m = entry && /^\d+ blob ([0-9a-f]+)\t/.exec(entry);
    return m ? this._run(['cat-file', 'blob', m[1]!]) : undefined;
  }

  /**
   * Which of raw `paths` the ignore rules of `tree` match: its `.gitignore` files (written out to a folder of
   * their own, since git reads rules only from a work tree) and the repository's excludes. A restore asks it
   * of files the checkpoint does not hold: one it ignored may have been there all along.
   */
  async ignoredIn(tree: string, paths: readonly string[]): Promise<Set<string>> {
    if (!paths.length) return new Set();
    const rules: { sha: string; path: string }[] = [];
    for (const entry of splitZ(await this._run(['ls-tree', '-r', '-z', tree]))) {
      const m = /^100(?:644|755) blob ([0-9a-f]+)\t(.*)$/s.exec(entry);
      if (m && (m[2] === '.gitignore' || m[2]!.endsWith('/.gitignore'))) rules.push({ sha: m[1]!, path: m[2]! });
    }
    const dir = await fs.mkdtemp(path.join(path.dirname(this.target.gitDir), 'rules-'));
    try {
      if (rules.length) {
        const blobs = this.blobs();
        try {
          for (const r of rules) {
            const abs = workspacePath(dir, r.path);
            await fs.mkdir(Buffer.from(path.dirname(abs.toString('latin1')), 'latin1'), { recursive: true });
            await fs.writeFile(abs, await blobs.read(r.sha));
          }
        } finally {
          blobs.close();
        }
      }
      // check-ignore refuses literal pathspecs; a leading './' keeps a name that starts with ':' from being read as magic.
      const asked = paths.map((p) => (p.startsWith(':') ? `./${p}` : p));
      const out = await runGit({ ...this.target, workTree: dir }, ['check-ignore', '-z', '--stdin', '--no-index'], {
        ...this._git,
        input: Buffer.from(asked.join('\0'), 'latin1'),
        envOverrides: { GIT_LITERAL_PATHSPECS: '0' },
      }).catch((err: unknown) => {
        // 1: none of them is ignored.
        if (err instanceof GitError && err.exitCode === 1) return Buffer.alloc(0);
        throw err;
      });
      return new Set(splitZ(out).map((p) => (p.startsWith('./:') ? p.slice(2) : p)));
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }

  /** A reader of this repository's blobs; the caller closes it. */
  blobs(): BlobReader {
    return new BlobReader(this.target, this._git);
  }

  /** Removes objects no ref reaches any more (after refs were deleted). */
  async prune(): Promise<void> {
    await this._run(['gc', '--quiet', '--prune=now']);
  }

  /** The repository was deleted: the next snapshot stages everything again. */
  forget(): void {
    this._last = undefined;
  }

  private async _indexStat(): Promise<string> {
    const st = await fs.stat(this.target.indexFile, { bigint: true }).catch(() => undefined);
    return st ? `${st.ino}:${st.size}:${st.mtimeNs}` : 'none';
  }

  private _run(args: readonly string[], input?: string | Buffer): Promise<Buffer> {
    return runGit(this.target, args, { ...this._git, input });
  }
}

/** The path git named in "Unable to process path X" (or "'X' is beyond a symbolic link"), if any. */
function unprocessablePath(stderr: string): string | undefined {
  return /^fatal: Unable to process path (.*)$/m.exec(stderr)?.[1] ?? /^error: '(.*)' is beyond a symbolic link$/m.exec(stderr)?.[1];
}

function sortSkipped(skipped: SkippedFile[]): SkippedFile[] {
  return skipped.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The records of a `-z` output, as raw paths (`latin1`: one character per byte, whatever the encoding). */
function splitZ(out: Buffer): string[] {
  const text = out.toString('latin1');
  const parts = text.split('\0');
  if (parts.at(-1) === '') parts.pop();
  return parts;
}

async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(
    () => true,
    () => false,
  );
}

/** Runs `fn` over `items` with at most `limit` in flight: thousands of stats at once would exhaust file handles. */
async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;
  if (n >= 1024) return `${Math.round((n / 1024) * 10) / 10} KB`;
  return `${n} bytes`;
}
