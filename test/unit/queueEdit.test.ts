/** One queue edit on Pi's two queues: applied only where the strip showed the message, Send now turning a follow-up into a steer. */

import { strict as assert } from 'node:assert';
import { applyQueueEdit, type Queues } from '../../src/shared/queueEdit.ts';

const q: Queues = { steering: ['s0'], followUp: ['a', 'b', 'c'] };

describe('queue edit', () => {
  it('edits, removes and moves a message within its own queue', () => {
    assert.deepEqual(applyQueueEdit(q, { queue: 'followUp', index: 1, text: 'b', op: 'edit', newText: 'B' }), { steering: ['s0'], followUp: ['a', 'B', 'c'] });
    assert.deepEqual(applyQueueEdit(q, { queue: 'followUp', index: 0, text: 'a', op: 'remove' }), { steering: ['s0'], followUp: ['b', 'c'] });
    assert.deepEqual(applyQueueEdit(q, { queue: 'followUp', index: 2, text: 'c', op: 'up' }), { steering: ['s0'], followUp: ['a', 'c', 'b'] });
    assert.deepEqual(applyQueueEdit(q, { queue: 'followUp', index: 0, text: 'a', op: 'down' }), { steering: ['s0'], followUp: ['b', 'a', 'c'] });
  });

  it('leaves the queues as they are for a move past either end or Send now of a steer', () => {
    assert.equal(applyQueueEdit(q, { queue: 'followUp', index: 0, text: 'a', op: 'up' }), q);
    assert.equal(applyQueueEdit(q, { queue: 'steering', index: 0, text: 's0', op: 'sendNow' }), q);
  });

  it('sends a follow-up now by moving it to the end of the steering queue', () => {
    assert.deepEqual(applyQueueEdit(q, { queue: 'followUp', index: 1, text: 'b', op: 'sendNow' }), { steering: ['s0', 'b'], followUp: ['a', 'c'] });
  });

  it('refuses an edit whose message is no longer where the strip showed it (Pi took it)', () => {
    const taken: Queues = { steering: [], followUp: ['b', 'c'] };
    assert.equal(applyQueueEdit(taken, { queue: 'followUp', index: 0, text: 'a', op: 'edit', newText: 'A' }), undefined);
    assert.equal(applyQueueEdit(taken, { queue: 'steering', index: 0, text: 's0', op: 'remove' }), undefined);
  });
});
