/**
 * Wire bytes per reply character at several stream rates: a 100,000-character reply in 10-character
 * deltas through the host's projection and frame batcher, against forwarding Pi's events raw.
 * A report, not a test: nothing here asserts.
 */
import { lorem, piReply, streamThroughWire } from '../test/support/wireStream.ts';

const reply = lorem(100_000);
console.log('wire bytes per reply character (100,000-character reply, 10-character deltas, one post per 16 ms frame at most)');
console.log('deltas/s  chars/s   posts   bytes/char');
for (const rate of [50, 200, 1000, 2000, 5000, 20000]) {
  const { bytes, posts } = streamThroughWire(reply, 10, rate);
  console.log(`${String(rate).padStart(8)}  ${String(rate * 10).padStart(7)}  ${String(posts).padStart(6)}   ${(bytes / reply.length).toFixed(3)}`);
}
const small = lorem(10_000);
let raw = 0;
for (const ev of piReply(small, 10)) raw += JSON.stringify(ev).length;
const ours = streamThroughWire(small, 10, 2000).bytes;
console.log(`raw event forwarding, 10,000-character reply: ${(raw / small.length).toFixed(0)} bytes/char (${(raw / ours).toFixed(0)}x the wire's)`);
