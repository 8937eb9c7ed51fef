/** Git repositories for tests and benches: on `main`, with an identity of their own, every file in a first commit. */

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

// The machine's hooks and commit signing never run in a test's repository: its commits depend on nothing outside it.
const OWN = ['-c', 'core.hooksPath=/dev/null', '-c', 'commit.gpgSign=false'];

/** Runs git in `cwd` and gives back its output; throws (with git's message) when git fails. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', [...OWN, ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Who commits in the repository, and the first commit's message. */
export interface RepoOptions {
  readonly name?: string;
  readonly email?: string;
  readonly message?: string;
}

/** Makes `repo` (created if missing) a repository on `main` with `files` written (paths relative to it) and everything in it committed. */
export function initRepo(repo: string, files: Readonly<Record<string, string>> = {}, options: RepoOptions = {}): void {
  mkdirSync(repo, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  git(repo, 'init', '-q', '-b', 'main');
  // An identity of the repository's own, as a user has one set up: what the panel commits there (Merge Branch) needs it.
  git(repo, 'config', 'user.name', options.name ?? 't');
  git(repo, 'config', 'user.email', options.email ?? 't@t');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', options.message ?? 'first');
}

/** A new temp folder `dir` (the caller removes it) holding `repo`, a repository made by `initRepo` with `files`. */
export function tempRepo(prefix: string, files: Readonly<Record<string, string>>): { dir: string; repo: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const repo = join(dir, 'repo');
  initRepo(repo, files);
  return { dir, repo };
}
