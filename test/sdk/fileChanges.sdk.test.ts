/** Pi's real edit and write tools: the content before the run is read when the tool starts, before it runs; the Changes row and Undo follow. */

import { strict as assert } from 'node:assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { anyRow } from '../support/anyRow.ts';
import { call, say, useSdkSuite } from './sdkSuite.ts';

describe('file changes on the real Pi SDK', function () {
  this.timeout(60_000);
  const suite = useSdkSuite();

  it('captures a file edited twice and a file created in one run; Undo all restores the workspace', async () => {
    const scenario = {
      name: 'edit-twice-and-create',
      steps: [
        call('c1', 'edit', { path: 'a.txt', edits: [{ oldText: 'two', newText: 'TWO' }] }),
        call('c2', 'edit', { path: 'a.txt', edits: [{ oldText: 'three', newText: 'THREE' }] }),
        call('c3', 'write', { path: 'made/b.txt', content: 'new file\n' }),
        say('Done.'),
      ],
    } as unknown as Scenario;
    const h = await suite.start(scenario);
    writeFileSync(join(h.cwd, 'a.txt'), 'one\ntwo\nthree\n');
    await h.controller.send('Edit a.txt twice and create made/b.txt.', 'prompt');
    await h.settled();
    assert.equal(readFileSync(join(h.cwd, 'a.txt'), 'utf8'), 'one\nTWO\nTHREE\n', 'the edits ran');
    assert.deepEqual(await h.controller.review.fileBefore('a.txt'), { kind: 'text', text: 'one\ntwo\nthree\n' });
    assert.deepEqual(await h.controller.review.fileBefore('made/b.txt'), { kind: 'absent' });
    const row = h.controller.state.messages.at(-1);
    assert.equal(row?.role, 'changes');
    assert.deepEqual(row?.files, [
      { path: 'a.txt', added: 2, removed: 2, created: false },
      { path: 'made/b.txt', added: 1, removed: 0, created: true },
    ]);
    const older = await h.controller.review.undo(undefined, 'an-older-run');
    assert.deepEqual(older, { ok: false, message: "Only the last run's changes can be undone." });
    assert.equal(readFileSync(join(h.cwd, 'a.txt'), 'utf8'), 'one\nTWO\nTHREE\n', "an older row's Undo changes nothing");
    assert.equal((await h.controller.review.undo(undefined, row?.runId)).ok, true);
    assert.equal(readFileSync(join(h.cwd, 'a.txt'), 'utf8'), 'one\ntwo\nthree\n');
    assert.throws(() => readFileSync(join(h.cwd, 'made/b.txt')));
    assert.ok(anyRow(h.controller.state.messages.at(-1))?.files?.every((f) => f.undone));
  });
});
