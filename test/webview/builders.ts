/** Wire-event builders for webview tests and the bench: realistic states without a Pi session. */

import type { WireEvent } from '../../src/shared/wire/events.ts';
import { initialTranscript, reduce } from '../../src/shared/transcript/reduce.ts';
import type { TranscriptState } from '../../src/shared/transcript/rows.ts';
import { rowCount } from '../../src/shared/transcript/rowStore.ts';

export const T0 = 1_700_000_000_000;

/** A finished exchange: prompt, assistant with thinking, markdown and a tool call, the tool's run, the answer. */
export function exchange(n: number, opts: { outputLines?: number } = {}): WireEvent[] {
  const id = `call_${n}`;
  const at = T0 + n * 1000;
  const output = Array.from({ length: opts.outputLines ?? 40 }, (_, i) => `line ${i} of the output of command ${n}: ${'x'.repeat(40)}`).join('\n');
  const args = JSON.stringify({ command: `ls -la src/${n}` });
  return [
    { type: 'userMessage', text: `Question ${n}: what is in src/${n}?`, images: 0, entryId: `entry${n}` },
    { type: 'runStart' },
    { type: 'assistantStart', at },
    { type: 'blockStart', index: 0, kind: 'thinking', at },
    { type: 'delta', index: 0, text: `I should list src/${n}.` },
    { type: 'blockEnd', index: 0, at: at + 300 },
    { type: 'blockStart', index: 1, kind: 'text', at },
    { type: 'delta', index: 1, text: `Let me **look** at \`src/${n}\`:\n\n- one\n- two\n\n\`\`\`ts\nconst x${n} = ${n};\n\`\`\`\n` },
    { type: 'blockEnd', index: 1, at },
    { type: 'blockStart', index: 2, kind: 'toolCall', at, toolCallId: id, toolName: 'bash' },
    { type: 'delta', index: 2, text: args },
    { type: 'blockEnd', index: 2, at },
    { type: 'assistantEnd', stopReason: 'toolUse', at, usage: { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, cost: 0.0001 } },
    { type: 'toolStart', toolCallId: id, toolName: 'bash', args, at },
    { type: 'toolEnd', toolCallId: id, isError: false, output, durationMs: 42 },
    { type: 'toolResult', toolCallId: id, toolName: 'bash', isError: false },
    { type: 'assistantStart', at },
    { type: 'blockStart', index: 0, kind: 'text', at },
    { type: 'delta', index: 0, text: `Done with ${n}. See [the docs](https://example.com/${n}).` },
    { type: 'blockEnd', index: 0, at },
    { type: 'assistantEnd', stopReason: 'stop', at },
    { type: 'settled', aborted: false, at },
  ];
}

/** A transcript of about `messages` messages (4 per exchange). */
export function longTranscript(messages: number): TranscriptState {
  let s = initialTranscript;
  // rowCount, not `messages.length`: building the row list on every step made this quadratic.
  for (let n = 0; rowCount(s) < messages; n++) s = reduce(s, exchange(n));
  return s;
}

export function build(events: readonly WireEvent[], from: TranscriptState = initialTranscript): TranscriptState {
  return reduce(from, events);
}

/** A text reply to `prompt` streamed one piece per delivery: the events that open it, one delta per piece, and those that close it. */
export function streamedReply(prompt: string, pieces: readonly string[]): { start: WireEvent[]; deltas: WireEvent[][]; end: WireEvent[] } {
  return {
    start: [
      { type: 'userMessage', text: prompt, images: 0 },
      { type: 'runStart' },
      { type: 'assistantStart', at: T0 },
      { type: 'blockStart', index: 0, kind: 'text', at: T0 },
    ],
    deltas: pieces.map((text) => [{ type: 'delta', index: 0, text }]),
    end: [
      { type: 'blockEnd', index: 0, at: T0 },
      { type: 'assistantEnd', stopReason: 'stop', at: T0 },
      { type: 'settled', aborted: false, at: T0 },
    ],
  };
}
