/** The session's checkpoints: one before each message and after each run, the run's Changes row from them (shell-made and binary files included), Undo of an earlier run (asking before it overwrites later work, itself undoable), a reload, no git said once. */

import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionCheckpoints } from '../../src/worker/checkpoints/sessionCheckpoints.ts';
import { RunFiles } from '../../src/worker/runFiles.ts';
import { MemoryLog } from '../support/memoryLog.ts';

describe('checkpoints of a session', function () {
  // Each test runs a few dozen git processes; on a loaded machine that is seconds, not a timing assertion.
  this.timeout(30_000);
  let ws: string;
  let storage: string;
  beforeEach(() => {
    ws = mkdtempSync(join(tmpdir(), 'pi-sesscp-ws-'));
    storage = mkdtempSync(join(tmpdir(), 'pi-sesscp-storage-'));
  });
  afterEach(() => {
    rmSync(ws, { recursive: true, force: true });
    rmSync(storage, { recursive: true, force: true });
  });
  const file = (rel: string) => join(ws, rel);
  const open = (told: string[] = []) => {
    const c = new SessionCheckpoints(new MemoryLog(), (m) => told.push(m));
    c.open(ws, storage, true);
    return c;
  };
  /** One run: its prompt's checkpoint, `work` (what its tools do), then the settle naming the message `entryId`. */
  async function run(c: SessionCheckpoints, entryId: string, work: () => void) {
    await c.beforePrompt('s1', undefined);
    c.userMessageStarted('s1');
    work();
    return c.settled('s1', () => [entryId]);
  }

  it("lists every file a run changed, whoever changed it, in the Changes row's shape", async () => {
    writeFileSync(file('edited.ts'), 'a\nb\n');
    writeFileSync(file('img.png'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    const c = open();
    const { taken, row } = await run(c, 'e1', () => {
      writeFileSync(file('edited.ts'), 'a\nB\nc\n');
      writeFileSync(file('img.png'), Buffer.from([0x89, 0x50, 0x00, 0x02]));
      execFileSync('sh', ['-c', 'printf "x\\ny\\n" > generated.txt'], { cwd: ws });
    });
    assert.equal(taken, true);
    assert.deepEqual(row?.files, [
      { path: 'edited.ts', added: 2, removed: 1, created: false },
      { path: 'generated.txt', added: 2, removed: 0, created: true },
      { path: 'img.png', added: 0, removed: 0, created: false },
    ]);
    assert.deepEqual(await c.fileBefore('edited.ts', row?.runId), { kind: 'text', text: 'a\nb\n' });
    assert.deepEqual(await c.fileBefore('img.png', row?.runId), { kind: 'refused', reason: 'it is a binary file' });
    // The message's checkpoint is found by its entry: what Restore uses.
    const plan = await c.plan('s1', 'e1');
    assert.equal(plan?.checkpoint.id, row?.runId);
    assert.deepEqual(plan?.changedSinceRun, [], 'nothing changed after the run');
  });

  it("undoes an earlier run's file after a later run, binary bytes exactly, and marks it undone", async () => {
    const bytes = Buffer.from([0x00, 0xff, 0x10, 0x0d, 0x0a]);
    writeFileSync(file('img.bin'), bytes);
    writeFileSync(file('a.txt'), 'a1\n');
    const c = open();
    const first = (await run(c, 'e1', () => writeFileSync(file('img.bin'), Buffer.from([1, 2, 3])))).row!;
    await run(c, 'e2', () => writeFileSync(file('a.txt'), 'a2\n'));
    const undo = await c.undo('img.bin', first.runId, async () => true);
    assert.equal(undo.ok, true, undo.message);
    assert.ok(readFileSync(file('img.bin')).equals(bytes));
    assert.equal(readFileSync(file('a.txt'), 'utf8'), 'a2\n', "the later run's file is left alone");
    assert.equal(undo.row?.files.find((f) => f.path === 'img.bin')?.undone, true);
  });

  it("asks before an older run's Undo overwrites a file changed after that run, naming only it, and No leaves it", async () => {
    writeFileSync(file('a.txt'), 'a1\n');
    const c = open();
    const first = (await run(c, 'e1', () => (writeFileSync(file('a.txt'), 'a2\n'), writeFileSync(file('b.txt'), 'b\n')))).row!;
    writeFileSync(file('a.txt'), 'mine\n');
    const asked: (readonly string[])[] = [];
    const undo = await c.undo(undefined, first.runId, async (changed) => (asked.push(changed), false));
    assert.deepEqual(asked, [['a.txt']], 'b.txt is as the run left it');
    assert.equal(undo.ok, false);
    assert.equal(readFileSync(file('a.txt'), 'utf8'), 'mine\n');
    assert.equal(existsSync(file('b.txt')), true, 'nothing is undone when the answer is No');
    assert.equal(await c.lastRestore('s1'), undefined);
  });

  it('undoes an Undo that overwrote later work with Undo restore, and the row shows the files as the run left them', async () => {
    writeFileSync(file('a.txt'), 'a1\n');
    const c = open();
    const first = (await run(c, 'e1', () => (writeFileSync(file('a.txt'), 'a2\n'), writeFileSync(file('b.txt'), 'b\n')))).row!;
    writeFileSync(file('a.txt'), 'mine\n');
    writeFileSync(file('other.txt'), 'later\n');
    const undo = await c.undo(undefined, first.runId, async () => true);
    assert.equal(undo.ok, true, undo.message);
    assert.equal(undo.undoable, true);
    assert.equal(readFileSync(file('a.txt'), 'utf8'), 'a1\n');
    assert.equal(existsSync(file('b.txt')), false);
    writeFileSync(file('other.txt'), 'written after the Undo\n');
    const kept = await c.lastRestore('s1');
    assert.ok(kept, 'the Undo is on the Undo restore stack');
    const back = await c.undoRestore(kept);
    assert.equal(readFileSync(file('a.txt'), 'utf8'), 'mine\n', "the user's text is back");
    assert.equal(readFileSync(file('b.txt'), 'utf8'), 'b\n');
    assert.equal(readFileSync(file('other.txt'), 'utf8'), 'written after the Undo\n', 'only the files the Undo replaced');
    assert.deepEqual(
      back.row?.files.map((f) => [f.path, f.undone === true]),
      [
        ['a.txt', false],
        ['b.txt', false],
      ],
    );
    assert.deepEqual(
      (await open().last('s1'))?.files.map((f) => f.undone === true),
      [false, false],
      'and so after a reload',
    );
    assert.equal(await c.lastRestore('s1'), undefined);
  });

  it('does not ask when the files are as the run left them', async () => {
    const c = open();
    const first = (await run(c, 'e1', () => writeFileSync(file('a.txt'), 'a\n'))).row!;
    const undo = await c.undo('a.txt', first.runId, () => assert.fail('asked'));
    assert.equal(undo.ok, true, undo.message);
    assert.equal(existsSync(file('a.txt')), false);
  });

  it("shows the run's write outside the workspace (Pi's tools' record) in its row, after a reload too, and Undo all puts it back", async () => {
    const away = realpathSync(mkdtempSync(join(tmpdir(), 'pi-sesscp-away-')));
    try {
      const dotfile = join(away, '.dotfile');
      writeFileSync(dotfile, 'mine\n');
      const withFiles = () => {
        const files = new RunFiles(() => undefined, new MemoryLog(), { settleTimeoutMs: 0, noResponseMs: 0, storageDir: storage });
        files.open(ws);
        const c = new SessionCheckpoints(new MemoryLog(), () => undefined, files.outside);
        c.open(ws, storage, true);
        return { files, c };
      };
      const { files, c } = withFiles();
      await c.beforePrompt('s1', undefined);
      c.userMessageStarted('s1');
      files.toolStarted('write', { path: dotfile, content: 'pi\n' });
      writeFileSync(dotfile, 'pi\n');
      writeFileSync(file('in.txt'), 'x\n');
      const perTool = files.runSettled(undefined, false);
      const { row } = await c.settled('s1', () => ['e1'], perTool?.runId);
      const expected = [
        ['in.txt', false],
        [dotfile, false],
      ];
      assert.deepEqual(
        row?.files.map((f) => [f.path, f.undone === true]),
        expected,
      );
      assert.deepEqual(
        (await withFiles().c.last('s1'))?.files.map((f) => [f.path, f.undone === true]),
        expected,
        'after a reload',
      );
      const undo = await c.undo(undefined, row!.runId, async () => true);
      assert.equal(undo.ok, true, undo.message);
      assert.equal(readFileSync(dotfile, 'utf8'), 'mine\n');
      assert.equal(existsSync(file('in.txt')), false);
      assert.ok(undo.row?.files.every((f) => f.undone));
    } finally {
      rmSync(away, { recursive: true, force: true });
    }
  });

  it('names the files changed after the last run in a restore plan', async () => {
    writeFileSync(file('a.txt'), 'a1\n');
    const c = open();
    await run(c, 'e1', () => writeFileSync(file('b.txt'), 'b\n'));
    writeFileSync(file('a.txt'), 'mine\n');
    const plan = await c.plan('s1', 'e1');
    assert.deepEqual(
      plan?.files.map((f) => f.path),
      ['a.txt', 'b.txt'],
    );
    assert.deepEqual(plan?.changedSinceRun, ['a.txt']);
  });

  it("shows the last run's row again after a reload (a new worker over the same storage)", async () => {
    const c = open();
    const row = (await run(c, 'e1', () => writeFileSync(file('made.txt'), 'x\n'))).row;
    const again = open();
    assert.deepEqual(await again.last('s1'), row);
    assert.equal(await again.last('another-session'), undefined);
  });

  it('says once that git is missing, takes no checkpoints, and lets the per-tool row show', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'pi-sesscp-nogit-'));
    try {
      const told: string[] = [];
      const c = new SessionCheckpoints(new MemoryLog(), (m) => told.push(m));
      c.open(ws, storage, true, { env: { ...process.env, PATH: empty } });
      assert.deepEqual(await run(c, 'e1', () => undefined), { taken: false });
      assert.deepEqual(await run(c, 'e2', () => undefined), { taken: false });
      assert.equal(told.length, 1);
      assert.match(told[0]!, /git/);
      assert.equal(c.capturing, false);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('starts no run from a prompt dropped while its checkpoint still waited to learn whether git runs', async () => {
    const c = open();
    // The prompt's time limit ran out before git answered: the prompt went ahead, and a checkpoint taken now may hold its edits.
    const before = c.beforePrompt('s1', undefined);
    c.promptDropped();
    assert.equal(await before, undefined);
    assert.equal(c.capturing, false);
    c.userMessageStarted('s1');
    writeFileSync(file('x.txt'), 'x');
    assert.deepEqual(await c.settled('s1', () => ['e1']), { taken: false });
    assert.equal(await c.plan('s1', 'e1'), undefined, 'no checkpoint names the message');
  });

  it('takes none when off (the setting, Restricted Mode)', async () => {
    const c = new SessionCheckpoints(new MemoryLog(), () => undefined);
    c.open(ws, storage, false);
    assert.deepEqual(await run(c, 'e1', () => writeFileSync(file('x.txt'), 'x')), { taken: false });
    assert.equal(existsSync(join(storage, 'checkpoints')), false);
  });

  it('clears every checkpoint and says how much space it freed', async () => {
    const c = open();
    await run(c, 'e1', () => writeFileSync(file('x.txt'), 'x'));
    assert.match(await c.clear(), /Cleared the checkpoints of this workspace \(\d/);
    assert.equal(await c.plan('s1', 'e1'), undefined);
  });
});
