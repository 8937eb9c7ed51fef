/** Checkpoints in a shadow git repository: what they hold and leave out, diffs, restores and their undo, the user's own repository left alone, no git. */

import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointStore } from '../../src/worker/checkpoints/checkpointStore.ts';
import { shadowEnv } from '../../src/worker/checkpoints/git.ts';

/** Runs git on the user's own repository in `cwd`, as a user would (identity on the command line: the machine may have none). */
function userGit(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=User', '-c', 'user.email=user@example.invalid', ...args], { cwd, env: shadowEnv(undefined), encoding: 'utf8' });
}

describe('checkpoints', function () {
  // Each test runs a few dozen git processes; on a loaded machine that is seconds, not a timing assertion.
  this.timeout(30_000);
  let ws: string;
  let storage: string;
  beforeEach(() => {
    ws = mkdtempSync(join(tmpdir(), 'pi-cp-ws-'));
    storage = mkdtempSync(join(tmpdir(), 'pi-cp-storage-'));
  });
  afterEach(() => {
    rmSync(ws, { recursive: true, force: true });
    rmSync(storage, { recursive: true, force: true });
  });
  const file = (rel: string) => join(ws, rel);
  const write = (rel: string, content: string | Buffer) => {
    mkdirSync(join(file(rel), '..'), { recursive: true });
    writeFileSync(file(rel), content);
  };
  const read = (rel: string) => readFileSync(file(rel), 'utf8');
  const store = (extra: { maxFileBytes?: number } = {}) => new CheckpointStore({ workspace: ws, storageDir: storage, ...extra });

  it('leaves files matched by the workspace .gitignore files out of diffs and restores', async () => {
    write('.gitignore', 'build/\n*.log\n');
    write('src/.gitignore', 'gen.ts\n');
    write('src/a.ts', 'a\n');
    const s = store();
    const cp = await s.checkpoint('before');
    write('build/out.js', 'x');
    write('debug.log', 'x');
    write('src/gen.ts', 'x');
    write('src/a.ts', 'a2\n');
    assert.deepEqual(
      (await s.diff(cp.id, 'workspace')).map((f) => f.path),
      ['src/a.ts'],
    );
    const r = await s.restore(cp.id);
    assert.deepEqual(r.restored, ['src/a.ts']);
    assert.equal(read('build/out.js'), 'x');
    assert.equal(read('debug.log'), 'x');
    assert.equal(read('src/gen.ts'), 'x');
  });

  it("leaves the user's own repository alone: HEAD, index bytes, stash, config and status unchanged", async () => {
    write('tracked.txt', 'one\n');
    write('staged.txt', 'staged\n');
    userGit(ws, 'init', '-q');
    userGit(ws, 'add', 'tracked.txt');
    userGit(ws, 'commit', '-q', '-m', 'first');
    write('tracked.txt', 'stashed change\n');
    userGit(ws, 'stash', '-q');
    userGit(ws, 'add', 'staged.txt');
    write('tracked.txt', 'work in progress\n');
    const state = () => ({
      head: readFileSync(file('.git/HEAD')),
      index: readFileSync(file('.git/index')),
      config: readFileSync(file('.git/config')),
      stash: userGit(ws, 'stash', 'list'),
      refs: userGit(ws, 'for-each-ref'),
      status: userGit(ws, 'status', '--porcelain'),
    });
    const before = state();
    const s = store();
    const cp = await s.checkpoint('before');
    write('tracked.txt', 'changed by Pi\n');
    write('made-by-pi.txt', 'new\n');
    await s.diff(cp.id, 'workspace');
    const r = await s.restore(cp.id);
    assert.deepEqual(r.restored, ['made-by-pi.txt', 'tracked.txt']);
    assert.deepEqual(state(), before);
    // The shadow repository's objects never land in the user's .git.
    assert.throws(() => userGit(ws, 'cat-file', '-e', cp.id));
  });

  it("reads a file's bytes as a checkpoint holds them, for a diff's left side", async () => {
    const bytes = Buffer.from([0, 1, 2, 0xff, 0x0d, 0x0a]);
    write('dir/a b.bin', bytes);
    const s = store();
    const cp = await s.checkpoint('before');
    write('dir/a b.bin', 'changed');
    assert.ok((await s.fileAt(cp.id, 'dir/a b.bin'))?.equals(bytes));
    assert.equal(await s.fileAt(cp.id, 'dir/missing.txt'), undefined);
    assert.equal(await s.fileAt(cp.id, 'dir'), undefined);
  });

  it('names a file the user edited after the checkpoint', async () => {
    write('a.txt', 'a\n');
    write('b.txt', 'b\n');
    const s = store();
    const cp = await s.checkpoint('before');
    write('b.txt', 'edited by the user\n');
    assert.deepEqual(await s.changedSince(cp.id), ['b.txt']);
  });

  it('restores binary files, line endings and the executable bit byte for byte, whatever the .gitattributes say', async () => {
    const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256));
    write('.gitattributes', '* text=auto eol=crlf\n*.bin filter=lfs\n');
    write('img.bin', bytes);
    write('mixed.txt', 'unix\nwindows\r\nmac\rend');
    write('crlf.txt', 'one\r\ntwo\r\n');
    write('run.sh', '#!/bin/sh\necho hi\n');
    chmodSync(file('run.sh'), 0o755);
    const s = store();
    const cp = await s.checkpoint('before');
    write('img.bin', Buffer.from('overwritten'));
    write('mixed.txt', 'normalised\n');
    write('crlf.txt', 'one\n');
    rmSync(file('run.sh'));
    const r = await s.restore(cp.id);
    assert.deepEqual(r.skipped, []);
    assert.ok(readFileSync(file('img.bin')).equals(bytes));
    assert.ok(readFileSync(file('mixed.txt')).equals(Buffer.from('unix\nwindows\r\nmac\rend')));
    assert.ok(readFileSync(file('crlf.txt')).equals(Buffer.from('one\r\ntwo\r\n')));
    assert.equal(statSync(file('run.sh')).mode & 0o100, 0o100);
  });

  it('skips a file over the size cap, reports it, and neither stores nor deletes it', async () => {
    write('small.txt', 's');
    const s = store({ maxFileBytes: 1000 });
    const cp = await s.checkpoint('before');
    write('big.dat', Buffer.alloc(5000, 1));
    write('small.txt', Buffer.alloc(2000, 2));
    const cp2 = await s.checkpoint('after');
    assert.deepEqual(
      cp2.skipped.map((f) => f.path),
      ['big.dat', 'small.txt'],
    );
    assert.match(cp2.skipped[0]!.reason, /larger than/);
    const diff = await s.diff(cp.id, cp2.id);
    assert.deepEqual(
      diff.map((f) => [f.path, f.status, Boolean(f.note)]),
      [
        ['big.dat', 'added', true],
        ['small.txt', 'modified', true],
      ],
    );
    const r = await s.restore(cp.id);
    assert.deepEqual(r.restored, []);
    assert.deepEqual(
      r.skipped.map((f) => f.path),
      ['big.dat', 'small.txt'],
    );
    assert.equal(readFileSync(file('big.dat')).length, 5000);
    assert.equal(readFileSync(file('small.txt')).length, 2000);
  });

  it('works in a workspace that is not a git repository, and never creates one there', async () => {
    write('notes.md', 'v1\n');
    const s = store();
    assert.equal((await s.available()).available, true);
    const cp = await s.checkpoint('before');
    write('notes.md', 'v2\n');
    assert.deepEqual(await s.diff(cp.id, 'workspace'), [{ path: 'notes.md', status: 'modified', added: 1, removed: 1, binary: false }]);
    await s.restore(cp.id);
    assert.equal(read('notes.md'), 'v1\n');
    assert.equal(existsSync(file('.git')), false);
  });

  it('covers a file a shell command created: it is in the diff and a restore deletes it', async () => {
    write('keep.txt', 'k');
    const s = store();
    const cp = await s.checkpoint('before');
    execFileSync('sh', ['-c', 'mkdir -p gen && printf "generated\\n" > gen/out.txt && sed -i.bak "s/k/K/" keep.txt && rm keep.txt.bak'], { cwd: ws });
    assert.deepEqual(await s.diff(cp.id, 'workspace'), [
      { path: 'gen/out.txt', status: 'added', added: 1, removed: 0, binary: false },
      { path: 'keep.txt', status: 'modified', added: 1, removed: 1, binary: false },
    ]);
    await s.restore(cp.id);
    assert.equal(existsSync(file('gen')), false);
    assert.equal(read('keep.txt'), 'k');
  });

  it('undoes a restore: restoring its undo checkpoint brings the state back', async () => {
    write('a.txt', 'old\n');
    write('gone.txt', 'deleted later\n');
    const s = store();
    const cp = await s.checkpoint('before');
    write('a.txt', 'new\n');
    rmSync(file('gone.txt'));
    write('dir/created.txt', 'created\n');
    const r = await s.restore(cp.id);
    assert.equal(read('a.txt'), 'old\n');
    assert.equal(read('gone.txt'), 'deleted later\n');
    assert.equal(existsSync(file('dir')), false);
    await s.restore(r.undoId);
    assert.equal(read('a.txt'), 'new\n');
    assert.equal(existsSync(file('gone.txt')), false);
    assert.equal(read('dir/created.txt'), 'created\n');
  });

  it('restores only the files asked for', async () => {
    write('a.txt', 'a\n');
    write('b.txt', 'b\n');
    const s = store();
    const cp = await s.checkpoint('before');
    write('a.txt', 'A\n');
    write('b.txt', 'B\n');
    write('c.txt', 'C\n');
    const r = await s.restore(cp.id, { files: ['b.txt', 'c.txt'] });
    assert.deepEqual(r.restored, ['b.txt', 'c.txt']);
    assert.equal(read('a.txt'), 'A\n');
    assert.equal(read('b.txt'), 'b\n');
    assert.equal(existsSync(file('c.txt')), false);
  });

  it('leaves a nested repository out, reports it, and never deletes it', async () => {
    write('top.txt', 't');
    const s = store();
    const cp = await s.checkpoint('before');
    write('vendor/lib/file.c', 'int x;\n');
    userGit(join(ws, 'vendor/lib'), 'init', '-q');
    const cp2 = await s.checkpoint('after');
    assert.deepEqual(cp2.skipped, [{ path: 'vendor/lib', reason: 'it is a nested git repository' }]);
    const r = await s.restore(cp.id);
    assert.deepEqual(r.restored, []);
    assert.equal(read('vendor/lib/file.c'), 'int x;\n');
  });

  it("finds a session's checkpoints again from a new store over the same storage (a restart)", async () => {
    write('a.txt', 'a\n');
    const cp = await store().checkpoint('Fix the bug', { sessionId: 'session/1', entryId: 'e1' });
    await store().checkpoint('elsewhere', { sessionId: 'other', entryId: 'e1' });
    const again = store();
    assert.deepEqual(
      (await again.list('session/1')).map((c) => [c.id, c.label, c.entryId]),
      [[cp.id, 'Fix the bug', 'e1']],
    );
    assert.equal((await again.find('session/1', 'e1'))?.id, cp.id);
    write('a.txt', 'b\n');
    await again.restore(cp.id);
    assert.equal(read('a.txt'), 'a\n');
  });

  it("drops a session's checkpoints and their files, keeping other sessions'", async () => {
    write('secret.txt', 'only in the dropped session\n');
    const s = store();
    const dropped = await s.checkpoint('one', { sessionId: 'gone', entryId: 'e1' });
    rmSync(file('secret.txt'));
    write('other.txt', 'kept\n');
    const kept = await s.checkpoint('two', { sessionId: 'kept', entryId: 'e1' });
    await s.dropSession('gone');
    assert.deepEqual(await s.list('gone'), []);
    assert.deepEqual(
      (await s.list()).map((c) => c.id),
      [kept.id],
    );
    await assert.rejects(s.diff(dropped.id, 'workspace'), /No checkpoint/);
    const blob = execFileSync('git', ['hash-object', '--stdin'], { input: 'only in the dropped session\n', encoding: 'utf8' }).trim();
    assert.throws(() => execFileSync('git', ['cat-file', '-e', blob], { env: { ...shadowEnv(undefined), GIT_DIR: s.gitDir }, stdio: 'ignore' }));
  });

  it('sees a change another store over the same storage already staged', async () => {
    write('f.txt', 'one\n');
    const a = store();
    const b = store();
    const first = await a.checkpoint('a');
    write('f.txt', 'two\n');
    await b.checkpoint('b');
    const third = await a.checkpoint('a again');
    assert.deepEqual(
      (await a.diff(first.id, third.id)).map((f) => f.path),
      ['f.txt'],
    );
  });

  it("honours the user's .git/info/exclude when it is a regular file, and checkpoints without it when it is a FIFO", async function () {
    if (process.platform === 'win32') this.skip();
    write('.git/info/exclude', 'secret.env\n');
    write('secret.env', 'k=v\n');
    const cp = await store().checkpoint('before');
    assert.equal(await store().fileAt(cp.id, 'secret.env'), undefined);
    rmSync(file('.git/info/exclude'));
    execFileSync('mkfifo', [file('.git/info/exclude')]);
    // A new store reads the exclude file again; a FIFO read would wait for a writer forever.
    const fifo = await store().checkpoint('with a FIFO');
    assert.equal((await store().fileAt(fifo.id, 'secret.env'))?.toString(), 'k=v\n');
  });

  it('checkpoints and restores a workspace where a tracked folder became a symlink', async function () {
    if (process.platform === 'win32') this.skip();
    write('src/a.ts', 'a\n');
    write('elsewhere/b.ts', 'b\n');
    const s = store();
    const cp = await s.checkpoint('before');
    rmSync(file('src'), { recursive: true });
    symlinkSync('elsewhere', file('src'));
    const cp2 = await s.checkpoint('after');
    assert.deepEqual(
      (await s.diff(cp.id, cp2.id)).map((f) => [f.path, f.status]),
      [
        ['src', 'added'],
        ['src/a.ts', 'deleted'],
      ],
    );
    const r = await s.restore(cp.id);
    assert.deepEqual(r.skipped, []);
    assert.equal(lstatSync(file('src')).isDirectory(), true);
    assert.equal(read('src/a.ts'), 'a\n');
    assert.equal(read('elsewhere/b.ts'), 'b\n');
    assert.deepEqual((await s.restore(r.undoId)).skipped, []);
    assert.equal(lstatSync(file('src')).isSymbolicLink(), true);
  });

  it('leaves out a file git cannot read, reports it, and still takes the checkpoint', async function () {
    if (process.platform === 'win32') this.skip();
    // Root reads any file: a git that fails on one path as git does on a file it may not read stands in.
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const fakeGit = join(storage, 'git-that-cannot-read');
    writeFileSync(
      fakeGit,
      `#!/bin/sh
in=$(mktemp)
cat > "$in"
if [ "$1" = update-index ] && [ "$3" = --add ] && grep -q locked.txt "$in"; then
  echo 'error: open("locked.txt"): Permission denied' >&2
  echo 'fatal: Unable to process path locked.txt' >&2
  rm -f "$in"
  exit 128
fi
${realGit} "$@" < "$in"
s=$?
rm -f "$in"
exit $s
`,
      { mode: 0o755 },
    );
    write('ok.txt', 'ok\n');
    write('locked.txt', 'secret\n');
    const s = new CheckpointStore({ workspace: ws, storageDir: storage, git: { gitPath: fakeGit } });
    const cp = await s.checkpoint('before');
    assert.deepEqual(cp.skipped, [{ path: 'locked.txt', reason: 'git could not read it (open("locked.txt"): Permission denied)' }]);
    assert.equal((await s.fileAt(cp.id, 'ok.txt'))?.toString(), 'ok\n');
  });

  it('keeps a file that was ignored at the checkpoint when the run removed its .gitignore rule', async () => {
    write('.gitignore', 'secret.env\nbuild/\n');
    write('secret.env', 'TOKEN=1\n');
    write('build/cache.bin', 'c');
    write('a.txt', 'a\n');
    const s = store();
    const cp = await s.checkpoint('before');
    write('.gitignore', '');
    write('a.txt', 'A\n');
    write('made-by-the-run.txt', 'new\n');
    const r = await s.restore(cp.id);
    assert.deepEqual(r.restored, ['.gitignore', 'a.txt', 'made-by-the-run.txt']);
    assert.equal(read('secret.env'), 'TOKEN=1\n');
    assert.equal(read('build/cache.bin'), 'c');
    assert.equal(read('.gitignore'), 'secret.env\nbuild/\n');
    assert.equal(existsSync(file('made-by-the-run.txt')), false);
    assert.deepEqual(
      r.skipped.map((f) => f.path),
      ['build/cache.bin', 'secret.env'],
    );
  });

  it('deletes no file the checkpoint lacks when the ignore rules it had cannot be read, and says so', async function () {
    if (process.platform === 'win32') this.skip();
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const fakeGit = join(storage, 'git-without-check-ignore');
    writeFileSync(fakeGit, `#!/bin/sh\nif [ "$1" = check-ignore ]; then echo 'fatal: no rules' >&2; exit 128; fi\nexec ${realGit} "$@"\n`, { mode: 0o755 });
    write('a.txt', 'a\n');
    const s = new CheckpointStore({ workspace: ws, storageDir: storage, git: { gitPath: fakeGit } });
    const cp = await s.checkpoint('before');
    write('new.txt', 'new\n');
    const r = await s.restore(cp.id);
    assert.deepEqual(r.restored, []);
    assert.equal(read('new.txt'), 'new\n');
    assert.deepEqual(
      r.skipped.map((f) => f.path),
      ['new.txt'],
    );
    assert.match(r.skipped[0]!.reason, /not known/);
  });

  it('keeps the files of a nested repository the run made part of the workspace', async () => {
    write('top.txt', 't');
    write('vendor/lib/file.c', 'int x;\n');
    userGit(join(ws, 'vendor/lib'), 'init', '-q');
    const s = store();
    const cp = await s.checkpoint('before');
    rmSync(file('vendor/lib/.git'), { recursive: true });
    const r = await s.restore(cp.id);
    assert.deepEqual(r.restored, []);
    assert.equal(read('vendor/lib/file.c'), 'int x;\n');
  });

  it('checkpoints and restores files whose names are not UTF-8', async function () {
    if (process.platform !== 'linux') this.skip();
    const raw = (name: number[]) => Buffer.concat([Buffer.from(`${ws}/`), Buffer.from(name)]);
    const latin1Name = raw([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x78, 0x74]); // 'café.txt' in Latin-1
    const createdName = raw([0x6e, 0x65, 0x77, 0xff, 0x2e, 0x74, 0x78, 0x74]);
    writeFileSync(latin1Name, 'before\n');
    write('caf\u00e9-utf8.txt', 'utf8 before\n');
    const s = store();
    const cp = await s.checkpoint('before');
    assert.deepEqual(cp.skipped, []);
    writeFileSync(latin1Name, 'after\n');
    write('caf\u00e9-utf8.txt', 'utf8 after\n');
    writeFileSync(createdName, 'created\n');
    assert.deepEqual(
      (await s.diff(cp.id, 'workspace')).map((f) => [f.path, f.status]),
      [
        ['caf\u00e9-utf8.txt', 'modified'],
        ['caf\ufffd.txt', 'modified'],
        ['new\ufffd.txt', 'added'],
      ],
    );
    const r = await s.restore(cp.id);
    assert.deepEqual(r.skipped, []);
    assert.equal(readFileSync(latin1Name, 'utf8'), 'before\n');
    assert.equal(read('caf\u00e9-utf8.txt'), 'utf8 before\n');
    assert.equal(existsSync(createdName), false);
  });

  it('is off for the home folder, also when it is opened through a symlink', async function () {
    if (process.platform === 'win32') this.skip();
    const home = process.env.HOME;
    const link = join(storage, 'home-link');
    symlinkSync(ws, link);
    process.env.HOME = ws;
    try {
      for (const workspace of [ws, link]) {
        const a = await new CheckpointStore({ workspace, storageDir: storage }).available();
        assert.equal(a.available, false, workspace);
      }
    } finally {
      process.env.HOME = home;
    }
  });

  it('never runs a git found in the workspace, even when PATH has an empty entry', async function () {
    if (process.platform === 'win32') this.skip();
    const marker = join(storage, 'workspace-git-ran');
    write('git', `#!/bin/sh\ntouch ${JSON.stringify(marker)}\nexit 1\n`);
    chmodSync(file('git'), 0o755);
    write('a.txt', 'a\n');
    const realGitDir = join(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim(), '..');
    const s = new CheckpointStore({ workspace: ws, storageDir: storage, git: { env: { ...process.env, PATH: `:${realGitDir}:/bin:/usr/bin` } } });
    assert.equal((await s.available()).available, true);
    const cp = await s.checkpoint('before');
    write('a.txt', 'A\n');
    await s.diff(cp.id, 'workspace');
    await s.restore(cp.id);
    assert.equal(read('a.txt'), 'a\n');
    assert.equal(existsSync(marker), false);
  });

  it('says git is missing when it is not on PATH', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'pi-cp-nogit-'));
    try {
      const s = new CheckpointStore({ workspace: ws, storageDir: storage, git: { env: { ...process.env, PATH: empty } } });
      const a = await s.available();
      assert.equal(a.available, false);
      assert.equal(a.available ? '' : a.message, 'Checkpoints need git, which was not found on PATH.');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('drops GIT_* variables inherited from the environment', () => {
    const env = shadowEnv(
      { gitDir: '/s', workTree: '/w', indexFile: '/s/index' },
      { PATH: '/bin', GIT_DIR: '/user/.git', GIT_INDEX_FILE: '/user/.git/index', GIT_ASKPASS: 'x', git_work_tree: '/u' },
    );
    assert.equal(env.GIT_DIR, '/s');
    assert.equal(env.GIT_INDEX_FILE, '/s/index');
    assert.equal(env.GIT_WORK_TREE, '/w');
    assert.equal(env.GIT_ASKPASS, undefined);
    assert.equal(env.git_work_tree, undefined);
    assert.equal(env.PATH, '/bin');
  });
});
