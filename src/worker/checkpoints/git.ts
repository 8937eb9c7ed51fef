/** Runs `git` as a child process (started off the calling thread) for the shadow repository, with an environment that cannot reach the user's own repository or config. */

import { accessSync, constants, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runScriptOffThread, spawnOffThread, type SpawnResult } from './gitThread.ts';

/** Where the shadow repository's commands point git. */
export interface GitTarget {
  /** The shadow repository (`GIT_DIR`), in the extension's storage. */
  readonly gitDir: string;
  /** The workspace (`GIT_WORK_TREE`). */
  readonly workTree: string;
  /** The shadow repository's own index (`GIT_INDEX_FILE`); never the user's. */
  readonly indexFile: string;
}

/** How to find and start git. */
export interface GitOptions {
  /** The git executable; `git` on PATH by default (looked up in PATH's absolute entries only). */
  readonly gitPath?: string;
  /** The environment to start from (PATH, HOME…); `process.env` by default. Its `GIT_*` variables are dropped. */
  readonly env?: NodeJS.ProcessEnv;
  /** Ends a command that takes longer (a stuck filesystem); 120 s by default. */
  readonly timeoutMs?: number;
}

/** A git command that could not start (`missing`: no git executable) or ended with a non-zero status. */
export class GitError extends Error {
  readonly missing: boolean;
  readonly exitCode: number | undefined;
  readonly stderr: string;

  constructor(message: string, opts: { missing?: boolean; exitCode?: number; stderr?: string } = {}) {
    super(message);
    this.name = 'GitError';
    this.missing = opts.missing ?? false;
    this.exitCode = opts.exitCode;
    this.stderr = opts.stderr ?? '';
  }
}

/**
 * The environment for a shadow-repository command: the caller's minus every `GIT_*` variable (VS Code's
 * askpass and a terminal's `GIT_DIR` would otherwise point git at the user's repository), then the shadow
 * repository's own. Global and system config are not read: a user's filters, hooks path or fsmonitor must not
 * run on the shadow repository; what it needs is in its own config.
 */
export function shadowEnv(target: GitTarget | undefined, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(base)) if (!/^GIT_/i.test(k)) env[k] = v;
  Object.assign(env, {
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: os.devNull,
    GIT_TERMINAL_PROMPT: '0',
    // File names and errors come back unlocalised, as the parsers expect.
    LC_ALL: 'C',
    // Paths given on the command line are file names, never globs or `:(magic)`.
    GIT_LITERAL_PATHSPECS: '1',
  });
  if (target) Object.assign(env, { GIT_DIR: target.gitDir, GIT_WORK_TREE: target.workTree, GIT_INDEX_FILE: target.indexFile });
  return env;
}

/**
 * Runs `git args…` and resolves its standard output (bytes: blobs and `-z` lists are not text); rejects with a
 * `GitError` when git is missing or fails. `input` is written to its standard input; `what` names the command
 * in errors; `envOverrides` replace variables of the shadow environment. The process is started from a helper thread (gitThread.ts), so the calling thread never waits for
 * a fork.
 */
export async function runGit(
  target: GitTarget | undefined,
  args: readonly string[],
  opts: GitOptions & { input?: string | Buffer; cwd?: string; what?: string; envOverrides?: NodeJS.ProcessEnv } = {},
): Promise<Buffer> {
  const file = gitExecutable(opts);
  if (!file) throw new GitError(`git was not found (${opts.gitPath ?? 'git'} on PATH).`, { missing: true });
  let r: SpawnResult;
  try {
    r = await spawnOffThread({
      file,
      args,
      cwd: opts.cwd ?? outsideWorkspace(target),
      env: { ...shadowEnv(target, opts.env), ...opts.envOverrides },
      timeoutMs: opts.timeoutMs ?? 120_000,
      input: opts.input ?? '',
    });
  } catch (err) {
    // The worker refuses new threads while it is stopping.
    throw new GitError(`git could not start: ${(err as Error).message}`);
  }
  if (r.errorCode === 'ENOENT') throw new GitError(`git was not found (${file} on PATH).`, { missing: true });
  if (r.errorCode) throw new GitError(`git could not start: ${r.errorMessage ?? r.errorCode}`);
  if (r.code === 0) return r.stdout;
  const stderr = r.stderr.trim();
  throw new GitError(`${opts.what ?? `git ${args[0] ?? ''}`} failed${r.signal ? ` (${r.signal})` : ''}: ${stderr || `exit ${r.code}`}`, {
    exitCode: r.code ?? undefined,
    stderr,
  });
}

/**
 * Where git runs for `target`: the folder that holds the shadow repository, never the workspace. A process
 * started there could find a program the workspace holds: Windows looks in the current folder first, and
 * an empty PATH entry means the current folder everywhere.
 */
export function outsideWorkspace(target: GitTarget | undefined): string {
  return target ? path.dirname(target.gitDir) : os.tmpdir();
}

const resolved = new Map<string, string | undefined>();

/**
 * The absolute path of the git executable `opts` name, looked up once per PATH: a path is taken as it is; a
 * bare name is searched in PATH's absolute entries only (an empty or relative entry names a folder relative
 * to wherever git is started, which may be the workspace). Undefined when there is none.
 */
export function gitExecutable(opts: GitOptions = {}): string | undefined {
  const name = opts.gitPath ?? 'git';
  if (path.isAbsolute(name)) return name;
  const env = opts.env ?? process.env;
  const pathVar = (process.platform === 'win32' ? Object.entries(env).find(([k]) => k.toUpperCase() === 'PATH')?.[1] : env.PATH) ?? '';
  const key = `${name}\0${pathVar}`;
  if (resolved.has(key)) return resolved.get(key);
  const exts = process.platform === 'win32' ? ['.exe', '.com'] : [''];
  let found: string | undefined;
  search: for (const dir of pathVar.split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, name.toLowerCase().endsWith(ext) ? name : name + ext);
      if (isExecutableFile(candidate)) {
        found = candidate;
        break search;
      }
    }
  }
  resolved.set(key, found);
  return found;
}

function isExecutableFile(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    if (process.platform !== 'win32') accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether `runGitScript` can run here: it needs a POSIX shell. */
export const canRunScripts = process.platform !== 'win32';

/**
 * Runs the shell `script` with positional parameters `args` in the long-lived shell of `target` (gitThread.ts):
 * no process is forked from Node. The script finds git in `$G`. Resolves its standard output; rejects with a
 * `GitError` when it fails (`missing` when the shell could not find git). POSIX only (`canRunScripts`).
 */
export async function runGitScript(
  target: GitTarget,
  script: string,
  args: readonly string[],
  opts: GitOptions & { input?: string | Buffer; what?: string } = {},
): Promise<Buffer> {
  const git = gitExecutable(opts);
  if (!git) throw new GitError(`git was not found (${opts.gitPath ?? 'git'} on PATH).`, { missing: true });
  const r = await runScriptOffThread({
    script,
    args,
    cwd: outsideWorkspace(target),
    env: { ...shadowEnv(target, opts.env), G: git },
    timeoutMs: opts.timeoutMs ?? 120_000,
    input: opts.input ?? '',
  });
  if (r.errorCode) throw new GitError(`git could not start: ${r.errorMessage ?? r.errorCode}`);
  if (r.code === 0) return r.stdout;
  const stderr = r.stderr.trim();
  // 127: the shell found no such command.
  if (r.code === 127) throw new GitError(`git was not found (${opts.gitPath ?? 'git'} on PATH).`, { missing: true, exitCode: 127, stderr });
  throw new GitError(
    `${opts.what ?? 'git'} failed${r.signal ? ` (${r.signal === 'SIGKILL' ? 'ended after its time limit' : r.signal})` : ''}: ${stderr || `exit ${r.code}`}`,
    {
      exitCode: r.code ?? undefined,
      stderr,
    },
  );
}
