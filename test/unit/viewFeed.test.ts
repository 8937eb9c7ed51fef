import { strict as assert } from 'node:assert';
import { frameMessage, snapshotMessage } from '../../src/extension/viewFeed.ts';
import type { WireEvent } from '../../src/shared/protocol.ts';
import { reduce, SNAPSHOT_ROWS } from '../../src/shared/transcript.ts';
import { exchange, longTranscript } from '../webview/builders.ts';

describe('what the chat view is sent', () => {
  const session = { ready: true };

  it('snapshots the newest rows and says how many precede them', () => {
    const state = longTranscript(1000);
    const msg = snapshotMessage(state, session);
    assert.ok(msg.type === 'snapshot');
    assert.equal(msg.state.messages.length, SNAPSHOT_ROWS);
    assert.equal(msg.earlier, state.messages.length - SNAPSHOT_ROWS);
  });

  it('sends a replayed history (a reset, or a frame larger than live streaming makes) as a snapshot, live frames as they are', () => {
    const replay: WireEvent[] = [{ type: 'reset' }];
    for (let n = 0; n < 100; n++) replay.push(...exchange(n));
    const resumed = reduce(longTranscript(10), replay);
    assert.equal(frameMessage(resumed, session, replay).type, 'snapshot');
    assert.equal(frameMessage(resumed, session, replay.slice(1)).type, 'snapshot');
    const live: WireEvent[] = [{ type: 'delta', index: 0, text: 'more' }];
    assert.deepEqual(frameMessage(resumed, session, live), { type: 'batch', events: live });
    // A new, short session goes as events: the view reduces them itself.
    const fresh: WireEvent[] = [{ type: 'reset' }, ...exchange(0)];
    assert.equal(frameMessage(reduce(resumed, fresh), session, fresh).type, 'batch');
  });
});
