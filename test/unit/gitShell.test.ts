/** The checkpoints' long-lived shell: scripts run in order with any bytes in and out, a stuck one is ended, git missing is said. */

import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { canRunScripts, GitError, runGitScript, type GitTarget } from '../../src/worker/checkpoints/git.ts';
import { runScriptOffThread } from '../../src/worker/checkpoints/gitThread.ts';

describe('checkpoints: the long-lived git shell', function () {
  before(function () {
    if (!canRunScripts) this.skip();
  });
  let dir: string;
  let target: GitTarget;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pi-git-shell-'));
    target = { gitDir: join(dir, 'repo.git'), workTree: dir, indexFile: join(dir, 'repo.git', 'index') };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** The pid of the shell that runs scripts for `dir` (its `$PPID` as a script sees it is the shell's own pid). */
  const shellPid = async (env: NodeJS.ProcessEnv = { PATH: process.env.PATH }) =>
    (await runScriptOffThread({ script: 'echo $$', args: [], cwd: dir, env, timeoutMs: 10_000, input: '' })).stdout.toString().trim();

  it('passes arguments and standard input through byte for byte and gives back the output, the errors and the status', async () => {
    const input = Buffer.from([0, 1, 2, 0xff, 0x0a, 0x27]);
    const r = await runScriptOffThread({
      script: `printf '%s|' "$@"; cat; echo oops >&2; exit 3`,
      args: ['a b', "it's", '', '$HOME `x`'],
      cwd: dir,
      env: { PATH: process.env.PATH },
      timeoutMs: 10_000,
      input,
    });
    assert.equal(r.code, 3);
    assert.deepEqual(r.stdout, Buffer.concat([Buffer.from("a b|it's||$HOME `x`|"), input]));
    assert.equal(r.stderr, 'oops\n');
  });

  it('runs every script in the same shell, one after another', async () => {
    const first = await shellPid();
    const results = await Promise.all(
      [1, 2, 3].map((n) => runScriptOffThread({ script: `echo ${n} $$`, args: [], cwd: dir, env: { PATH: process.env.PATH }, timeoutMs: 10_000, input: '' })),
    );
    assert.deepEqual(
      results.map((r) => r.stdout.toString()),
      [1, 2, 3].map((n) => `${n} ${first}\n`),
    );
  });

  it('ends a script that overruns its time limit, with what it started, and the next script gets a new shell', async () => {
    const before = await shellPid();
    const marker = join(dir, 'survived');
    const r = await runScriptOffThread({
      script: `sleep 30; touch ${JSON.stringify(marker)}`,
      args: [],
      cwd: dir,
      env: { PATH: process.env.PATH },
      timeoutMs: 300,
      input: '',
    });
    assert.equal(r.code, null);
    assert.equal(r.signal, 'SIGKILL');
    const after = await shellPid();
    assert.notEqual(after, before);
    assert.throws(() => readFileSync(marker));
  });

  it('starts a new shell when the one it had lost its folder (a temp cleaner), saying why the script did not run', async function () {
    if (!existsSync('/proc/self/fd/0')) this.skip();
    const env = { PATH: process.env.PATH };
    // The script's standard input is a file in the shell's own folder.
    const input = (await runScriptOffThread({ script: 'readlink /proc/self/fd/0', args: [], cwd: dir, env, timeoutMs: 10_000, input: '' })).stdout
      .toString()
      .trim();
    const folder = dirname(input);
    assert.match(basename(folder), /^pi-checkpoint-sh-/);
    const before = await shellPid(env);
    rmSync(folder, { recursive: true, force: true });
    const failed = await runScriptOffThread({ script: 'echo never', args: [], cwd: dir, env, timeoutMs: 10_000, input: 'x' });
    assert.equal(failed.errorCode, 'ENOENT');
    const after = await runScriptOffThread({ script: 'echo $$', args: [], cwd: dir, env, timeoutMs: 10_000, input: '' });
    assert.equal(after.code, 0);
    assert.notEqual(after.stdout.toString().trim(), before);
  });

  it('says git is missing when the shell finds no such program, and what failed otherwise', async () => {
    await assert.rejects(
      runGitScript(target, '"$G" --version', [], { gitPath: join(dir, 'no-such-git') }),
      (err: unknown) => err instanceof GitError && err.missing,
    );
    await assert.rejects(
      runGitScript(target, '"$G" rev-parse --verify "$1"', ['refs/heads/none'], { what: 'the lookup' }),
      (err: unknown) => err instanceof GitError && !err.missing && /^the lookup failed/.test(err.message),
    );
  });
});
