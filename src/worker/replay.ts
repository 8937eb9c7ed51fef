/** Rebuilds a session's transcript from its stored messages, so a resumed conversation shows its history. */

import type { AgentSessionEvent } from '@earendil-works/pi-coding-agent';
import { project } from './projection.ts';
import type { WireEvent } from '../shared/wire/events.ts';
import { initialTranscript, reduceOne } from '../shared/transcript/reduce.ts';
import type { TranscriptState } from '../shared/transcript/rows.ts';

/**
 * `state` with `messages` after it, in one pass: the events a live run would have produced (each message
 * starts and ends, every tool result becomes a finished tool card), run through the same projection and
 * reduced as they are made. `onEvent` sees each one.
 */
export function replayOnto(state: TranscriptState, messages: readonly unknown[], now: number, onEvent?: (ev: WireEvent) => void): TranscriptState {
  let s = state;
  const emit = (event: unknown) => {
    for (const ev of project(event as AgentSessionEvent, { state: s, now })) {
      s = reduceOne(s, ev);
      onEvent?.(ev);
    }
  };
  const calls = new Map<string, unknown>();
  for (const message of messages) {
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
  return s;
}

/** The events `replayOnto` reduces for `messages` on an empty transcript. */
export function replayMessages(messages: readonly unknown[], now: number): WireEvent[] {
  const out: WireEvent[] = [];
  replayOnto(initialTranscript, messages, now, (ev) => out.push(ev));
  return out;
}
