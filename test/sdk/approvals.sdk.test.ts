/** Approvals (piPanel.approval) through the real worker and Pi: the panel's extension asks in the dialog card; Deny blocks with the reason, Allow for session stops asking, Cancel settles. */

import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DialogView } from '../../src/shared/extensionUi.ts';
import { toolOf } from '../../src/shared/transcript.ts';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { startClientHarness, type ClientHarness } from './workerHarness.ts';

const bash = (id: string, command: string) => ({ chunks: [{ toolCall: { id, name: 'bash', arguments: { command } } }], finish: 'tool_calls' });
const done = { chunks: [{ text: 'Done.' }], finish: 'stop' };

const openDialog = (h: ClientHarness): DialogView | undefined => h.client.state.ui?.dialogs[0];

/** Answers the next dialog that opens (one not answered before) with `choice`. */
async function answerNext(h: ClientHarness, seen: Set<string>, choice: string | undefined): Promise<DialogView> {
  await h.until(() => openDialog(h) !== undefined && !seen.has(openDialog(h)!.id), 'an approval card');
  const d = openDialog(h)!;
  seen.add(d.id);
  assert.equal(await h.client.answerDialog(d.id, choice), true);
  return d;
}

describe('approvals on the real worker', function () {
  this.timeout(90_000);
  let h: ClientHarness | undefined;

  afterEach(async () => {
    await h?.dispose();
    h = undefined;
  });

  it('commands + Deny with a reason: the command does not run and the card errors with the reason', async () => {
    h = await startClientHarness({ name: 'deny', steps: [bash('call_b', 'touch ran.txt'), done] } as Scenario, [], { approval: 'commands' });
    const harness = h;
    const seen = new Set<string>();
    let asked: DialogView | undefined;
    await harness.settledAfter(async () => {
      void harness.client.send('Touch the file.', 'prompt');
      asked = await answerNext(harness, seen, 'Deny');
      const reason = await answerNext(harness, seen, 'not in this folder');
      assert.equal(reason.kind, 'input');
    }, 'the run to settle');
    assert.equal(asked?.kind, 'select');
    assert.deepEqual(asked?.options, ['Allow', 'Allow for session', 'Deny']);
    assert.match(asked?.message ?? '', /^touch ran\.txt\n/);
    const card = toolOf(h.client.state.tools, 'call_b');
    assert.equal(card?.status, 'error');
    assert.match(card?.output ?? '', /The user denied this tool call: not in this folder/);
    assert.equal(existsSync(join(h.cwd, 'ran.txt')), false, 'the denied command did not run');
  });

  it('commands + Allow for session: the same command prefix runs again without asking', async () => {
    h = await startClientHarness({ name: 'session', steps: [bash('c1', 'echo one'), bash('c2', 'echo two'), done] } as Scenario, [], {
      approval: 'commands',
    });
    const harness = h;
    const seen = new Set<string>();
    await harness.settledAfter(async () => {
      void harness.client.send('Echo twice.', 'prompt');
      await answerNext(harness, seen, 'Allow for session');
    }, 'the run to settle');
    assert.equal(h.emitted.filter((e) => e.type === 'dialogOpen').length, 1, 'asked once');
    assert.equal(toolOf(h.client.state.tools, 'c1')?.status, 'done');
    assert.equal(toolOf(h.client.state.tools, 'c2')?.status, 'done');
  });

  it('writes + Cancel while asking: the write is blocked and the run settles', async () => {
    h = await startClientHarness(
      {
        name: 'cancel',
        steps: [{ chunks: [{ toolCall: { id: 'w', name: 'write', arguments: { path: 'out.txt', content: 'x' } } }], finish: 'tool_calls' }, done],
      } as Scenario,
      [],
      { approval: 'writes' },
    );
    const harness = h;
    await harness.settledAfter(async () => {
      void harness.client.send('Write it.', 'prompt');
      await harness.until(() => openDialog(harness) !== undefined, 'the approval card');
      assert.match(openDialog(harness)!.message ?? '', /^\+ x\n/);
      await harness.client.cancel();
    }, 'the cancelled run to settle');
    assert.equal(existsSync(join(h.cwd, 'out.txt')), false);
    assert.equal(h.client.state.ui?.dialogs.length, 0);
  });

  it('off: nothing is asked', async () => {
    h = await startClientHarness({ name: 'off', steps: [bash('c', 'echo hi > f.txt'), done] } as Scenario, [], { approval: 'off' });
    const harness = h;
    await harness.settledAfter(() => harness.client.send('Go.', 'prompt'), 'the run to settle');
    assert.equal(h.emitted.filter((e) => e.type === 'dialogOpen').length, 0);
    assert.equal(readFileSync(join(h.cwd, 'f.txt'), 'utf8'), 'hi\n');
  });
});
