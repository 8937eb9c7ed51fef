/** Approvals (piPanel.approval) through the real worker and Pi: the panel's extension asks in the dialog card; Deny blocks with the reason, Allow for session stops asking, Cancel settles. */

import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DialogView } from '../../src/shared/wire/events.ts';
import { toolOf } from '../../src/shared/transcript/rows.ts';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { useClientHarness, type ClientHarness } from './workerHarness.ts';

const bash = (id: string, command: string) => ({ chunks: [{ toolCall: { id, name: 'bash', arguments: { command } } }], finish: 'tool_calls' });
const done = { chunks: [{ text: 'Done.' }], finish: 'stop' };

const openDialog = (h: ClientHarness): DialogView | undefined => h.client.state.ui?.dialogs[0];

/** Answers the next dialog that opens (one not answered before) with `choice` (and the reason typed into the card). */
async function answerNext(h: ClientHarness, seen: Set<string>, choice: string | undefined, reason?: string): Promise<DialogView> {
  await h.until(() => openDialog(h) !== undefined && !seen.has(openDialog(h)!.id), 'an approval card');
  const d = openDialog(h)!;
  seen.add(d.id);
  assert.equal((await h.client.call('answerDialog', { id: d.id, value: choice, ...(reason ? { reason } : {}) }))?.answered, true);
  return d;
}

describe('approvals on the real worker', function () {
  this.timeout(90_000);
  const harnesses = useClientHarness();

  it('commands + Deny with a reason typed in the card: one answer, the command does not run and the card errors with the reason', async () => {
    const h = await harnesses.start({ name: 'deny', steps: [bash('call_b', 'touch ran.txt'), done] } as Scenario, [], { approval: 'commands' });
    const seen = new Set<string>();
    let asked: DialogView | undefined;
    await h.settledAfter(async () => {
      void h.client.send('Touch the file.', 'prompt');
      asked = await answerNext(h, seen, 'Deny', 'not in this folder');
    }, 'the run to settle');
    assert.equal(h.emitted.filter((e) => e.type === 'dialogOpen').length, 1, 'no second card asks why');
    assert.equal(asked?.kind, 'select');
    assert.deepEqual(asked?.options, ['Allow', 'Allow for session', 'Always allow', 'Deny']);
    assert.match(asked?.message ?? '', /^touch ran\.txt\n/);
    const card = toolOf(h.client.state.tools, 'call_b');
    assert.equal(card?.status, 'error');
    assert.match(card?.output ?? '', /The user denied this tool call: not in this folder/);
    assert.equal(existsSync(join(h.cwd, 'ran.txt')), false, 'the denied command did not run');
  });

  it('commands + Allow for session: the same command prefix runs again without asking', async () => {
    const h = await harnesses.start({ name: 'session', steps: [bash('c1', 'echo one'), bash('c2', 'echo two'), done] } as Scenario, [], {
      approval: 'commands',
    });
    const seen = new Set<string>();
    await h.settledAfter(async () => {
      void h.client.send('Echo twice.', 'prompt');
      await answerNext(h, seen, 'Allow for session');
    }, 'the run to settle');
    assert.equal(h.emitted.filter((e) => e.type === 'dialogOpen').length, 1, 'asked once');
    assert.equal(toolOf(h.client.state.tools, 'c1')?.status, 'done');
    assert.equal(toolOf(h.client.state.tools, 'c2')?.status, 'done');
  });

  it('Allow for session ends with the session: after New session the same command is asked again', async () => {
    const h = await harnesses.start({ name: 'grant-reset', steps: [bash('c1', 'echo one'), done, bash('c2', 'echo one'), done] } as Scenario, [], {
      approval: 'commands',
    });
    const seen = new Set<string>();
    await h.settledAfter(async () => {
      void h.client.send('Echo.', 'prompt');
      await answerNext(h, seen, 'Allow for session');
    }, 'the first run to settle');
    await h.client.request({ name: 'newSession', params: null });
    await h.settledAfter(async () => {
      void h.client.send('Echo again.', 'prompt');
      await answerNext(h, seen, 'Allow');
    }, 'the second run to settle');
    assert.equal(h.emitted.filter((e) => e.type === 'dialogOpen').length, 2, 'asked again in the new session');
    assert.equal(toolOf(h.client.state.tools, 'c2')?.status, 'done');
  });

  it('writes + Cancel while asking: the write is blocked and the run settles', async () => {
    const h = await harnesses.start(
      {
        name: 'cancel',
        steps: [{ chunks: [{ toolCall: { id: 'w', name: 'write', arguments: { path: 'out.txt', content: 'x' } } }], finish: 'tool_calls' }, done],
      } as Scenario,
      [],
      { approval: 'writes' },
    );
    await h.settledAfter(async () => {
      void h.client.send('Write it.', 'prompt');
      await h.until(() => openDialog(h) !== undefined, 'the approval card');
      assert.match(openDialog(h)!.message ?? '', /^\+ x\n/);
      await h.client.cancel();
    }, 'the cancelled run to settle');
    assert.equal(existsSync(join(h.cwd, 'out.txt')), false);
    assert.equal(h.client.state.ui?.dialogs.length, 0);
  });

  it('off: nothing is asked', async () => {
    const h = await harnesses.start({ name: 'off', steps: [bash('c', 'echo hi > f.txt'), done] } as Scenario, [], { approval: 'off' });
    await h.settledAfter(() => h.client.send('Go.', 'prompt'), 'the run to settle');
    assert.equal(h.emitted.filter((e) => e.type === 'dialogOpen').length, 0);
    assert.equal(readFileSync(join(h.cwd, 'f.txt'), 'utf8'), 'hi\n');
  });
});
