import { strict as assert } from 'node:assert';
import type { AgentSessionEvent } from '@earendil-works/pi-coding-agent';
import { Batcher } from '../../src/shared/batcher.ts';
import { project } from '../../src/shared/projection.ts';
import type { HostToWebview, WireEvent } from '../../src/shared/protocol.ts';
import { initialTranscript, reduce, reduceOne, type TranscriptState } from '../../src/shared/transcript.ts';
import { TestClock } from '../support/testClock.ts';

/**
 * Pi-shaped events for one streamed text reply: every update carries the cumulative `partial`, mutated
 * in place as Pi does, so raw forwarding grows with the square of the reply.
 */
function* piReply(reply: string, deltaChars: number): Generator<AgentSessionEvent> {
  const partial = { role: 'assistant', content: [{ type: 'text', text: '' }], stopReason: 'stop', usage: { input: 10, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 30, cost: { total: 0.001 } } };
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

/** Streams through projection + batcher like the host; returns bytes posted and the webview's final state. */
function streamThroughWire(reply: string, deltaChars: number, deltasPerSecond: number) {
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
  for (const ev of piReply(reply, deltaChars)) {
    for (const w of project(ev, { state: host, now: clock.now() })) {
      host = reduceOne(host, w);
      batcher.push(w);
    }
    clock.advance(1000 / deltasPerSecond);
  }
  clock.advance(100);
  return { bytes, posts, webview };
}

function lorem(n: number): string {
  const words = 'the agent streams text into the panel one small delta at a time while the user reads along '.split(' ');
  let s = '';
  for (let i = 0; s.length < n; i++) s += words[i % words.length] + (i % 17 === 16 ? '.\n\n' : ' ');
  return s.slice(0, n);
}

describe('wire size', () => {
  it('puts fewer than 1.2 bytes on the wire per reply character for a 100,000-character reply in 10-character deltas', () => {
    const reply = lorem(100_000);
    // 5,000 deltas/s: the scripted model streaming without delay, or a fast local model. Slower streams pay
    // one envelope per frame; `npm run bench` prints the ratio at several rates.
    const { bytes, webview } = streamThroughWire(reply, 10, 5000);
    const ratio = bytes / reply.length;
    assert.ok(ratio < 1.2, `wire bytes per reply character: ${ratio.toFixed(3)}`);
    const last = webview.messages.at(-1)!;
    assert.equal(last.blocks[0]!.text, reply, 'the webview converges to the final text');
    assert.equal(last.stopReason, 'stop');
  });

  it('sends hundreds of times less than forwarding Pi events raw', () => {
    const reply = lorem(10_000);
    let raw = 0;
    for (const ev of piReply(reply, 10)) raw += JSON.stringify(ev).length;
    const { bytes } = streamThroughWire(reply, 10, 2000);
    assert.ok(raw / bytes > 100, `raw ${raw} bytes vs wire ${bytes} bytes`);
  });
});
