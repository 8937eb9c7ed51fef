/** Rebuilds a session's transcript from its stored messages, so a resumed conversation shows its history. */

import type { AgentSessionEvent } from '@earendil-works/pi-coding-agent';
import { project } from './projection.ts';
import type { WireEvent } from '../shared/wire/events.ts';
import { initialTranscript, reduceOne } from '../shared/transcript/reduce.ts';
import type { TranscriptState } from '../shared/transcript/rows.ts';

/**
 * `state` with `messages` after it, in one pass: the events a live run would have produced (each message
 * starts and ends, every tool result becomes a finished tool card), run through the same projection and
 * reduced as they are made. `onEvent` sees each one. A message that cannot be shown (a crafted or damaged
 * session file) is left out whole and reported to `onSkip`, and the rest still shows.
 */
export function replayOnto(
  state: TranscriptState,
  messages: readonly unknown[],
  now: number,
  onEvent?: (ev: WireEvent) => void,
  onSkip?: (index: number, err: unknown) => void,
): TranscriptState {
  let s = state;
  const calls = new Map<string, unknown>();
  for (const [index, message] of messages.entries()) {
    // One message at a time, kept only when all of it projects: a bad one leaves no half-open row.
    let next = s;
    const made: WireEvent[] = [];
    const emit = (event: unknown) => {
      for (const ev of project(event as AgentSessionEvent, { state: next, now })) {
        next = reduceOne(next, ev);
        made.push(ev);
      }
    };
    try {
      replayOne(message, calls, emit);
    } catch (err) {
      onSkip?.(index, err);
      continue;
    }
    s = next;
    if (onEvent) for (const ev of made) onEvent(ev);
  }
  return s;
}

/** The events a live run would have produced for one stored message. */
function replayOne(message: unknown, calls: Map<string, unknown>, emit: (event: unknown) => void): void {
  const m = message as { role?: string; content?: unknown; toolCallId?: string; toolName?: string; isError?: boolean; durationMs?: number };
  if (m.role === 'assistant' && Array.isArray(m.content)) {
    for (const part of m.content as { type?: string; id?: string; arguments?: unknown }[]) {
      if (part?.type === 'toolCall' && part.id) calls.set(part.id, part.arguments);
    }
  }
  if (m.role === 'toolResult' && m.toolCallId) {
    emit({ type: 'tool_execution_start', toolCallId: m.toolCallId, toolName: m.toolName ?? '', args: calls.get(m.toolCallId) ?? {} });
    emit({
      type: 'tool_execution_end',
      toolCallId: m.toolCallId,
      toolName: m.toolName ?? '',
      result: { content: m.content },
      isError: m.isError === true,
      durationMs: m.durationMs,
    });
  }
  emit({ type: 'message_start', message });
  emit({ type: 'message_end', message });
}

/** The events `replayOnto` reduces for `messages` on an empty transcript. */
export function replayMessages(messages: readonly unknown[], now: number): WireEvent[] {
  const out: WireEvent[] = [];
  replayOnto(initialTranscript, messages, now, (ev) => out.push(ev));
  return out;
}
