/** Editing Pi's queue through the real worker and Pi: after many edits under a running stream the model gets exactly the final queue, in order; an edit of a message Pi already took is reported and changes nothing. */

import { strict as assert } from 'node:assert';
import type { QueueEdit } from '../../src/shared/queueEdit.ts';
import { runPhase } from '../../src/shared/run/runState.ts';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { noticesSent, useClientHarness, type ClientHarness } from './workerHarness.ts';

const reply = { chunks: [{ text: 'ok' }], finish: 'stop' };

/** The text of the last user message of each request the model received, from the `from`-th request on. */
function lastUserTexts(h: ClientHarness, from: number): string[] {
  return h.model.requests.slice(from).map((body) => {
    const messages = (body as { messages: { role: string; content: unknown }[] }).messages;
    const user = messages.filter((m) => m.role === 'user').at(-1)!;
    const content = user.content;
    return typeof content === 'string' ? content : (content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');
  });
}

/** A seeded generator (mulberry32): the same operations every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('queue edits on the real worker', function () {
  this.timeout(180_000);
  const harnesses = useClientHarness();

  it('after 200 random edits, removals, moves and sends-now under a stream, the model receives exactly the final queue, in order', async () => {
    const steps = [
      // About 1,000 deltas a second while the edits go on; the hold keeps the turn open until they are done.
      { chunks: [{ text: 'x'.repeat(4000), split: 1, delayMs: 1 }, { hold: 'edits-done' }, { text: ' end' }], finish: 'stop' },
      ...Array.from({ length: 40 }, () => reply),
    ];
    const h = await harnesses.start({ name: 'queue-edits', steps } as Scenario, []);
    const model = { steering: [] as string[], followUp: [] as string[] };
    const rnd = random(38);
    let n = 0;
    await h.settledAfter(async () => {
      void h.client.send('Start.', 'prompt');
      await h.until(() => h.model.requests.length === 1 && runPhase(h.client.state.run) !== 'idle', 'the stream');
      for (let i = 0; i < 6; i++) {
        const s = `steer-${n++}`;
        const f = `follow-${n++}`;
        await h.client.send(s, 'steer');
        await h.client.send(f, 'followUp');
        model.steering.push(s);
        model.followUp.push(f);
      }
      for (let op = 0; op < 200; op++) {
        const total = model.steering.length + model.followUp.length;
        const queue = rnd() < model.steering.length / total ? 'steering' : 'followUp';
        const list = model[queue];
        const index = Math.floor(rnd() * list.length);
        const text = list[index]!;
        const roll = rnd();
        const kind: QueueEdit['op'] = roll < 0.3 ? 'edit' : roll < 0.45 && total > 4 ? 'remove' : roll < 0.65 ? 'up' : roll < 0.85 ? 'down' : 'sendNow';
        const edit: QueueEdit = { queue, index, text, op: kind, ...(kind === 'edit' ? { newText: `edited-${n++}` } : {}) };
        await h.client.request({ name: 'editQueue', params: edit });
        // The test's own model of what each edit does.
        if (kind === 'edit') list[index] = edit.newText!;
        else if (kind === 'remove') list.splice(index, 1);
        else if (kind === 'up' || kind === 'down') {
          const to = index + (kind === 'up' ? -1 : 1);
          if (to >= 0 && to < list.length) [list[index], list[to]] = [list[to]!, list[index]!];
        } else if (queue === 'followUp') model.steering.push(...list.splice(index, 1));
      }
      assert.equal(h.model.requests.length, 1, 'Pi took nothing while the stream was held');
      await h.until(() => JSON.stringify(h.client.state.queue) === JSON.stringify(model), 'the strip to show the final queue');
      h.model.release('edits-done');
    }, 'the run and its queue to settle');
    assert.deepEqual(lastUserTexts(h, 1), [...model.steering, ...model.followUp]);
    assert.equal(noticesSent(h.emitted).length, 0, 'no edit raced');
  });

  it('an edit of a follow-up Pi already took is reported as already sent, the model gets the message once and the new text goes back to the composer', async () => {
    const steps = [{ chunks: [{ text: 'Working' }, { hold: 'g' }, { text: '.' }], finish: 'stop' }, reply];
    const h = await harnesses.start({ name: 'queue-race', steps } as Scenario, []);
    await h.settledAfter(async () => {
      void h.client.send('Start.', 'prompt');
      await h.model.held('g');
      await h.client.send('later', 'followUp');
      h.model.release('g');
    }, 'the run to settle');
    const restored: string[] = [];
    h.client.onDidRestoreInput((input) => restored.push(...input.texts));
    await h.client.request({ name: 'editQueue', params: { queue: 'followUp', index: 0, text: 'later', op: 'edit', newText: 'changed' } });
    await h.until(() => noticesSent(h.emitted).length > 0, 'the notice');
    assert.match(noticesSent(h.emitted)[0]!, /already sent/);
    assert.deepEqual(lastUserTexts(h, 1), ['later']);
    await h.until(() => restored.length > 0, 'the edited text back in the composer');
    assert.deepEqual(restored, ['changed'], 'the text written for it is not lost');
  });
});
