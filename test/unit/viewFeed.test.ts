import { strict as assert } from 'node:assert';
import { frameMessage, snapshotMessage, ViewFeed, type FeedSource } from '../../src/extension/viewFeed.ts';
import { Emitter } from '../../src/shared/disposable.ts';
import type { HostToWebview, SessionInfoView } from '../../src/shared/wire/webviewProtocol.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { earlierPage, pageBefore, recentPart, SNAPSHOT_ROWS, type EarlierPage } from '../../src/shared/transcript/paging.ts';
import { initialTranscript, reduce } from '../../src/shared/transcript/reduce.ts';
import type { TranscriptState } from '../../src/shared/transcript/rows.ts';
import { TestClock } from '../support/testClock.ts';
import { exchange, longTranscript } from '../webview/builders.ts';

/** The host side as the feed sees it: a transcript that events extend and a snapshot replaces. */
class FakeSource implements FeedSource {
  state: TranscriptState = initialTranscript;
  sessionInfo: SessionInfoView = { ready: true };
  pendingEarlier = 0;
  private readonly _emit = new Emitter<readonly WireEvent[]>();
  private readonly _replace = new Emitter<void>();
  readonly onDidEmit = this._emit.event;
  readonly onDidReplace = this._replace.event;

  emit(events: WireEvent[]): void {
    this.state = reduce(this.state, events);
    this._emit.fire(events);
  }

  replace(state: TranscriptState, pending: number): void {
    this.state = state;
    this.pendingEarlier = pending;
    this._replace.fire();
  }

  async earlierPage(before: number, count: number): Promise<EarlierPage | undefined> {
    return earlierPage(this.state, before, count);
  }
}

describe('what the chat view is sent', () => {
  const session = { ready: true };

  it('snapshots the newest rows and says how many precede them, here and still in the worker', () => {
    const state = longTranscript(1000);
    const msg = snapshotMessage(state, session);
    assert.ok(msg.type === 'snapshot');
    assert.equal(msg.state.messages.length, SNAPSHOT_ROWS);
    assert.equal(msg.earlier, state.messages.length - SNAPSHOT_ROWS);
    const pending = snapshotMessage(state, session, 5000);
    assert.ok(pending.type === 'snapshot' && pending.earlier === state.messages.length - SNAPSHOT_ROWS + 5000);
  });

  it('sends a burst larger than live streaming makes as a snapshot, live frames and resets as they are', () => {
    const burst: WireEvent[] = [];
    for (let n = 0; n < 100; n++) burst.push(...exchange(n));
    const state = reduce(longTranscript(10), burst);
    assert.equal(frameMessage(state, session, burst).type, 'snapshot');
    const live: WireEvent[] = [{ type: 'delta', index: 0, text: 'more' }];
    assert.deepEqual(frameMessage(state, session, live), { type: 'batch', events: live });
    const reset: WireEvent[] = [{ type: 'reset' }];
    assert.deepEqual(frameMessage(state, session, reset), { type: 'batch', events: reset });
  });

  it('feeds a view a snapshot on ready, then frames; a replaced transcript goes after what was queued, as a snapshot', () => {
    const source = new FakeSource();
    const clock = new TestClock();
    const posts: HostToWebview[] = [];
    const feed = new ViewFeed(source, (m) => posts.push(m), clock);
    source.emit([{ type: 'userMessage', text: 'before the view', images: 0 }]);
    assert.equal(posts.length, 0, 'nothing before the view is ready');
    feed.open();
    assert.deepEqual(
      posts.map((m) => m.type),
      ['snapshot'],
    );
    source.emit([{ type: 'reset' }]);
    const resumed = recentPart(longTranscript(2000));
    source.replace(resumed.state, 1800);
    assert.deepEqual(
      posts.map((m) => m.type),
      ['snapshot', 'batch', 'snapshot'],
      'the reset is not swallowed by the snapshot',
    );
    const last = posts.at(-1)!;
    assert.ok(last.type === 'snapshot');
    assert.equal(last.state.messages.length, SNAPSHOT_ROWS);
    assert.equal(last.earlier, 1800);
    source.emit([{ type: 'userMessage', text: 'live', images: 0 }]);
    clock.advance(100);
    assert.deepEqual(posts.at(-1), { type: 'batch', events: [{ type: 'userMessage', text: 'live', images: 0 }] });
    feed.close();
    source.replace(resumed.state, 1800);
    assert.equal(posts.length, 4, 'a closed feed posts nothing');
    feed.dispose();
  });

  it('answers loadAround with the page around the row, what precedes it and what follows it, counting rows still in the worker', async () => {
    const whole = longTranscript(3000);
    const source = new FakeSource();
    const held = recentPart(whole, 500);
    source.state = held.state;
    source.pendingEarlier = held.earlier;
    // The rows before the window come from the worker, as the mirror fetches them.
    source.earlierPage = async (before, count) => pageBefore(whole, before, count);
    const posts: HostToWebview[] = [];
    const feed = new ViewFeed(source, (m) => posts.push(m), new TestClock());
    feed.open();
    const target = whole.messages[100]!;
    await feed.loadAround(target.id, 100);
    const reply = posts.at(-1)!;
    assert.ok(reply.type === 'around');
    assert.equal(reply.id, target.id);
    assert.equal(reply.messages.length, 100);
    const at = reply.messages.findIndex((m) => m.id === target.id);
    assert.ok(at >= 40 && at <= 60, `the row is in the middle of the page (at ${at})`);
    assert.equal(reply.earlier, whole.messages.indexOf(reply.messages[0]!));
    assert.equal(reply.earlier + reply.messages.length + reply.later, whole.messages.length);
    feed.dispose();
  });
});
