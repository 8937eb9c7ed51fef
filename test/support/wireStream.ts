/** Streams a Pi-shaped text reply through the worker's projection, reducer, row changes and batcher, measuring what crosses the wire. */

import type { AgentSessionEvent } from '@earendil-works/pi-coding-agent';
import { Batcher } from '../../src/shared/batcher.ts';
import { project } from '../../src/worker/projection.ts';
import type { HostToWebview } from '../../src/shared/wire/webviewProtocol.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { asSent, initialTranscript, reduce, reduceOne } from '../../src/shared/transcript/reduce.ts';
import { RowChanges } from '../../src/worker/rowChanges.ts';
import type { TranscriptState } from '../../src/shared/transcript/rows.ts';
import { TestClock } from './testClock.ts';

/**
 * Pi-shaped events for one streamed text reply: every update carries the cumulative `partial`, mutated
 * in place as Pi does, so raw forwarding grows with the square of the reply.
 */
export function* piReply(reply: string, deltaChars: number): Generator<AgentSessionEvent> {
  const partial = {
    role: 'assistant',
    content: [{ type: 'text', text: '' }],
    stopReason: 'stop',
    usage: { input: 10, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 30, cost: { total: 0.001 } },
  };
  const ev = (e: unknown) => e as AgentSessionEvent;
  yield ev({ type: 'agent_start' });
  yield ev({ type: 'message_start', message: partial });
  yield ev({ type: 'message_update', message: partial, assistantMessageEvent: { type: 'text_start', contentIndex: 0, partial } });
  for (let i = 0; i < reply.length; i += deltaChars) {
    const delta = reply.slice(i, i + deltaChars);
    partial.content[0]!.text += delta;
    yield ev({ type: 'message_update', message: partial, assistantMessageEvent: { type: 'text_delta', contentIndex: 0, delta, partial } });
  }
  yield ev({ type: 'message_update', message: partial, assistantMessageEvent: { type: 'text_end', contentIndex: 0, content: reply, partial } });
  yield ev({ type: 'message_end', message: partial });
  yield ev({ type: 'agent_end', messages: [], willRetry: false });
  yield ev({ type: 'agent_settled', aborted: false });
}

/** Streams through projection, the worker's changes and the batcher as the product does; returns bytes posted and the webview's final state. */
export function streamThroughWire(reply: string, deltaChars: number, deltasPerSecond: number) {
  const clock = new TestClock();
  let host: TranscriptState = initialTranscript;
  let webview: TranscriptState = initialTranscript;
  let bytes = 0;
  let posts = 0;
  const batcher = new Batcher((events) => {
    const msg: HostToWebview = { type: 'batch', events };
    const json = JSON.stringify(msg);
    bytes += Buffer.byteLength(json);
    posts++;
    webview = reduce(webview, (JSON.parse(json) as { events: WireEvent[] }).events);
  }, clock);
  const changes = new RowChanges();
  for (const ev of piReply(reply, deltaChars)) {
    for (const w of project(ev, { state: host, now: clock.now() })) {
      // What the worker sends: the changes each event made (a streamed delta is a patch of the open row).
      const prev = host;
      host = reduceOne(prev, asSent(prev, w));
      const sent: WireEvent[] = [];
      changes.step(prev, host, w, sent);
      for (const c of sent) batcher.push(c);
    }
    clock.advance(1000 / deltasPerSecond);
  }
  clock.advance(100);
  return { bytes, posts, webview };
}

export function lorem(n: number): string {
  const words = 'the agent streams text into the panel one small delta at a time while the user reads along '.split(' ');
  let s = '';
  for (let i = 0; s.length < n; i++) s += words[i % words.length] + (i % 17 === 16 ? '.\n\n' : ' ');
  return s.slice(0, n);
}
