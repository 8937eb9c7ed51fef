/** Pi's real edit and write tools: the content before the run is read when the tool starts, before it runs; the Changes row and Undo follow. */

import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PiModule } from '../../src/pi/piEntry.ts';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { loadBundledPi, startHarness, type Harness } from './harness.ts';
import { anyRow } from '../support/anyRow.ts';

const call = (id: string, name: string, args: Record<string, unknown>) => ({ chunks: [{ toolCall: { id, name, arguments: args } }], finish: 'tool_calls' });

describe('file changes on the real Pi SDK', function () {
  this.timeout(60_000);
  let pi: PiModule;
  let h: Harness | undefined;
  let storage: string;

  before(() => {
    pi = loadBundledPi();
  });
  beforeEach(() => {
    storage = mkdtempSync(join(tmpdir(), 'pi-storage-'));
  });
  afterEach(async () => {
    await h?.dispose();
    h = undefined;
    rmSync(storage, { recursive: true, force: true });
  });

  it('captures a file edited twice and a file created in one run; Undo all restores the workspace', async () => {
    const scenario = {
      name: 'edit-twice-and-create',
      steps: [
        call('c1', 'edit', { path: 'a.txt', edits: [{ oldText: 'two', newText: 'TWO' }] }),
        call('c2', 'edit', { path: 'a.txt', edits: [{ oldText: 'three', newText: 'THREE' }] }),
        call('c3', 'write', { path: 'made/b.txt', content: 'new file\n' }),
        { chunks: [{ text: 'Done.' }], finish: 'stop' },
      ],
    } as unknown as Scenario;
    h = await startHarness(pi, scenario, undefined, { storageDir: storage });
    writeFileSync(join(h.cwd, 'a.txt'), 'one\ntwo\nthree\n');
    await h.controller.send('Edit a.txt twice and create made/b.txt.', 'prompt');
    await h.settled();
    assert.equal(readFileSync(join(h.cwd, 'a.txt'), 'utf8'), 'one\nTWO\nTHREE\n', 'the edits ran');
    assert.deepEqual(await h.controller.fileBefore('a.txt'), { kind: 'text', text: 'one\ntwo\nthree\n' });
    assert.deepEqual(await h.controller.fileBefore('made/b.txt'), { kind: 'absent' });
    const row = h.controller.state.messages.at(-1);
    assert.equal(row?.role, 'changes');
    assert.deepEqual(row?.files, [
      { path: 'a.txt', added: 2, removed: 2, created: false },
      { path: 'made/b.txt', added: 1, removed: 0, created: true },
    ]);
    const older = await h.controller.undo(undefined, 'an-older-run');
    assert.deepEqual(older, { ok: false, message: "Only the last run's changes can be undone." });
    assert.equal(readFileSync(join(h.cwd, 'a.txt'), 'utf8'), 'one\nTWO\nTHREE\n', "an older row's Undo changes nothing");
    assert.equal((await h.controller.undo(undefined, row?.runId)).ok, true);
    assert.equal(readFileSync(join(h.cwd, 'a.txt'), 'utf8'), 'one\ntwo\nthree\n');
    assert.throws(() => readFileSync(join(h!.cwd, 'made/b.txt')));
    assert.ok(anyRow(h.controller.state.messages.at(-1))?.files?.every((f) => f.undone));
  });
});
