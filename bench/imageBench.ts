/**
 * Images benchmark (not a test): what a 1 MB image costs. (1) Characters on the host → webview wire for a user
 * message with the image and a tool result with it, against the image's own base64 size: each image block
 * should cross once live, and again in a snapshot (a re-created view). (2) The time the host's check of a
 * `send` with that image takes (`parseWebviewMessage`: type, base64, signature, size) and the projection's.
 * Prints medians; asserts nothing.
 *
 * Usage: node bench/imageBench.ts [--mb 1 --rounds 20]
 */

import type { AgentSessionEvent } from '@earendil-works/pi-coding-agent';
import { snapshotMessage } from '../src/extension/viewFeed.ts';
import { project } from '../src/worker/projection.ts';
import { parseWebviewMessage } from '../src/shared/wire/parseWebviewMessage.ts';
import type { WireEvent } from '../src/shared/wire/events.ts';
import { initialTranscript, reduce } from '../src/shared/transcript/reduce.ts';
import { median, numberArg } from './stats.ts';

const MB = numberArg('mb', 1);
const ROUNDS = numberArg('rounds', 20);

const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const data = Buffer.concat([pngSignature, Buffer.alloc(Math.round(MB * 1_000_000) - 8, 7)]).toString('base64');
const content = [
  { type: 'text', text: 'Look at this.' },
  { type: 'image', data, mimeType: 'image/png' },
];
const events = [
  { type: 'message_start', message: { role: 'user', content } },
  { type: 'tool_execution_start', toolCallId: 'c1', toolName: 'read', args: { path: 'a.png' } },
  { type: 'tool_execution_end', toolCallId: 'c1', toolName: 'read', result: { content }, isError: false },
  { type: 'message_end', message: { role: 'toolResult', toolCallId: 'c1', toolName: 'read', content, isError: false } },
] as unknown as AgentSessionEvent[];

let wireChars = 0;
const projectMs: number[] = [];
let state = initialTranscript;
for (let r = 0; r < ROUNDS; r++) {
  let s = initialTranscript;
  let chars = 0;
  const t0 = performance.now();
  const out: WireEvent[] = [];
  for (const e of events) {
    const wire = project(e, { state: s, now: 1 });
    s = reduce(s, wire);
    out.push(...wire);
  }
  projectMs.push(performance.now() - t0);
  chars = JSON.stringify({ type: 'batch', events: out }).length;
  wireChars = chars;
  state = s;
}
const snapshotChars = JSON.stringify(snapshotMessage(state, { ready: true })).length;
const parseMs: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const t0 = performance.now();
  const ok = parseWebviewMessage({ type: 'send', text: 'Look at this.', mode: 'prompt', images: [{ mimeType: 'image/png', data }] }).ok;
  parseMs.push(performance.now() - t0);
  if (!ok) throw new Error('the bench image was refused');
}
console.log(`image: ${MB} MB (${data.length.toLocaleString('en-US')} base64 characters), in a user message and a tool result`);
console.log(`live wire (host → view): ${wireChars.toLocaleString('en-US')} characters = ${(wireChars / data.length).toFixed(2)} × the image (2 image blocks)`);
console.log(`snapshot (view re-created): ${snapshotChars.toLocaleString('en-US')} characters = ${(snapshotChars / data.length).toFixed(2)} × the image`);
console.log(`parseWebviewMessage(send with the image): median ${median(parseMs).toFixed(2)} ms`);
console.log(`projection + reducer of the four events: median ${median(projectMs).toFixed(2)} ms`);
