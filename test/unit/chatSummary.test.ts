import { strict as assert } from 'node:assert';
import { chatNews, sumChats } from '../../src/shared/run/chatSummary.ts';

describe('several chats at a glance', () => {
  it('sums running and waiting chats, and a click goes to the one that waits longest', () => {
    const sum = sumChats([
      { label: 'Sidebar chat', phase: 'running', since: 100 },
      { label: 'Chat 1', phase: 'waiting', since: 300 },
      { label: 'Chat 2', phase: 'waiting', since: 200 },
      { label: 'Chat 3', phase: 'idle', since: 50 },
      { label: 'Chat 4', phase: 'compacting', since: 400 },
    ]);
    assert.equal(sum.text, '2 running · 2 waiting');
    assert.equal(sum.longest, 2);
    assert.deepEqual(sum.lines, ['Sidebar chat: running', 'Chat 1: waiting', 'Chat 2: waiting', 'Chat 3: idle', 'Chat 4: compacting']);
  });

  it('goes to the chat that runs longest when none waits, and says nothing when all are idle', () => {
    const busy = sumChats([
      { label: 'a', phase: 'running', since: 300 },
      { label: 'b', phase: 'running', since: 100 },
    ]);
    assert.equal(busy.text, '2 running');
    assert.equal(busy.longest, 1);
    const idle = sumChats([{ label: 'a', phase: 'idle', since: 1 }]);
    assert.equal(idle.text, undefined);
    assert.equal(idle.longest, undefined);
  });

  it('tells finished, failed and waiting apart, and a cancel the user asked for is no news', () => {
    assert.equal(chatNews('running', 'idle', { kind: 'completed', at: 1 }), 'finished');
    assert.equal(chatNews('running', 'idle', { kind: 'error', at: 1, message: 'x' }), 'failed');
    assert.equal(chatNews('cancelling', 'idle', { kind: 'cancelled', at: 1 }), undefined);
    assert.equal(chatNews('running', 'waiting', undefined), 'waiting');
    assert.equal(chatNews('waiting', 'running', undefined), undefined);
    assert.equal(chatNews('starting', 'idle', { kind: 'completed', at: 1 }), undefined);
    assert.equal(chatNews('idle', 'idle', { kind: 'completed', at: 1 }), undefined);
  });
});
