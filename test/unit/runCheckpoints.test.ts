/** The checkpoint glue for prompts: a keyed checkpoint before each prompt, a run's Changes row from it (shell-made files included), no git said once. */

import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointStore } from '../../src/worker/checkpoints/checkpointStore.ts';
import { RunCheckpoints } from '../../src/worker/checkpoints/runCheckpoints.ts';

describe('checkpoints of prompts and runs', function () {
  // Each test runs a few dozen git processes; on a loaded machine that is seconds, not a timing assertion.
  this.timeout(30_000);
  let ws: string;
  let storage: string;
  beforeEach(() => {
    ws = mkdtempSync(join(tmpdir(), 'pi-runcp-ws-'));
    storage = mkdtempSync(join(tmpdir(), 'pi-runcp-storage-'));
  });
  afterEach(() => {
    rmSync(ws, { recursive: true, force: true });
    rmSync(storage, { recursive: true, force: true });
  });
  const file = (rel: string) => join(ws, rel);
  const glue = (messages: string[] = []) => new RunCheckpoints(new CheckpointStore({ workspace: ws, storageDir: storage }), (m) => messages.push(m));

  it("lists every file a run changed, whoever changed it, in the Changes row's shape", async () => {
    writeFileSync(file('edited.ts'), 'a\nb\n');
    writeFileSync(file('img.png'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    const g = glue();
    const cp = await g.checkpointBeforePrompt('s1', 'e1');
    assert.ok(cp);
    writeFileSync(file('edited.ts'), 'a\nB\nc\n');
    writeFileSync(file('img.png'), Buffer.from([0x89, 0x50, 0x00, 0x02]));
    execFileSync('sh', ['-c', 'printf "x\\ny\\n" > generated.txt'], { cwd: ws });
    assert.deepEqual(await g.changesOfRun(cp.id), {
      runId: cp.id,
      files: [
        { path: 'edited.ts', added: 2, removed: 1, created: false },
        { path: 'generated.txt', added: 2, removed: 0, created: true },
        { path: 'img.png', added: 0, removed: 0, created: false, note: 'it is a binary file' },
      ],
    });
  });

  it("keeps an earlier run's row and Undo after a later run, bounded by the next prompt's checkpoint", async () => {
    writeFileSync(file('a.txt'), 'a1\n');
    const g = glue();
    const first = (await g.checkpointBeforePrompt('s1', 'e1'))!;
    writeFileSync(file('a.txt'), 'a2\n');
    const second = (await g.checkpointBeforePrompt('s1', 'e2'))!;
    writeFileSync(file('b.txt'), 'b\n');
    assert.deepEqual(
      (await g.changesOfRun(first.id, second.id)).files.map((f) => f.path),
      ['a.txt'],
    );
    const undo = await g.undoRun(first.id, ['a.txt']);
    assert.deepEqual(undo.restored, ['a.txt']);
    assert.equal(readFileSync(file('a.txt'), 'utf8'), 'a1\n');
    assert.equal(existsSync(file('b.txt')), true);
  });

  it("finds a prompt's checkpoint again by session and entry", async () => {
    writeFileSync(file('a.txt'), 'a\n');
    const cp = (await glue().checkpointBeforePrompt('session-1', 'entry-7'))!;
    const again = new CheckpointStore({ workspace: ws, storageDir: storage });
    assert.equal((await again.find('session-1', 'entry-7'))?.id, cp.id);
  });

  it('says once that git is missing and takes no checkpoints', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'pi-runcp-nogit-'));
    try {
      const messages: string[] = [];
      const g = new RunCheckpoints(new CheckpointStore({ workspace: ws, storageDir: storage, git: { env: { ...process.env, PATH: empty } } }), (m) =>
        messages.push(m),
      );
      assert.equal(await g.checkpointBeforePrompt('s', 'e1'), undefined);
      assert.equal(await g.checkpointBeforePrompt('s', 'e2'), undefined);
      assert.equal(messages.length, 1);
      assert.match(messages[0]!, /git/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
