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
 * session file) is left out whole and reported to `onSkip`, and the rest still shows. `entryIdOf` names a
 * message's session entry, which its user row carries (restores and tree moves name the message by it).
 * `onKept` sees each message shown, with the state right after it.
 */
export function replayOnto(
  state: TranscriptState,
  messages: readonly unknown[],
  now: number,
  onEvent?: (ev: WireEvent) => void,
  onSkip?: (index: number, err: unknown) => void,
  entryIdOf?: (message: unknown) => string | undefined,
  onKept?: (message: unknown, state: TranscriptState) => void,
): TranscriptState {
  let s = state;
  const calls = new Map<string, unknown>();
  for (const [index, message] of messages.entries()) {
    // One message at a time, kept only when all of it projects: a bad one leaves no half-open row.
    let next = s;
    const made: WireEvent[] = [];
    const entryId = entryIdOf?.(message);
    const emit = (event: unknown) => {
      for (const projected of project(event as AgentSessionEvent, { state: next, now })) {
        const ev = entryId && projected.type === 'userMessage' ? { ...projected, entryId } : projected;
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
    onKept?.(message, s);
  }
  return s;
}

/**
 * The events a live run would have produced for one stored message. Ids and names are checked to be text:
 * a crafted file can hold an object there, which no later reader expects (a tool card keyed by an object
 * cannot be listed, and `String()` of `{"toString":1}` throws). Such a message throws, so it is skipped whole.
 */
function replayOne(message: unknown, calls: Map<string, unknown>, emit: (event: unknown) => void): void {
  const m = message as { role?: unknown; content?: unknown; toolCallId?: unknown; toolName?: unknown; isError?: unknown; durationMs?: unknown };
  if (m.role === 'assistant' && Array.isArray(m.content)) {
    for (const part of m.content as ({ type?: unknown; id?: unknown; name?: unknown; arguments?: unknown } | null)[]) {
      if (part?.type !== 'toolCall') continue;
      if (!isText(part.id) || !isText(part.name)) throw new Error('a tool call whose id or name is not text');
      calls.set(part.id, part.arguments);
    }
  }
  if (m.role === 'toolResult') {
    if (!isText(m.toolCallId) || !(m.toolName === undefined || typeof m.toolName === 'string'))
      throw new Error('a tool result whose call id or tool name is not text');
    const toolName = m.toolName ?? '';
    emit({ type: 'tool_execution_start', toolCallId: m.toolCallId, toolName, args: calls.get(m.toolCallId) ?? {} });
    emit({
      type: 'tool_execution_end',
      toolCallId: m.toolCallId,
      toolName,
      result: { content: m.content },
      isError: m.isError === true,
      durationMs: typeof m.durationMs === 'number' ? m.durationMs : undefined,
    });
  }
  emit({ type: 'message_start', message });
  emit({ type: 'message_end', message });
}

/** Whether `v` is non-empty text (an id or a name as Pi writes it). */
function isText(v: unknown): v is string {
  return typeof v === 'string' && v !== '';
}

/** The events `replayOnto` reduces for `messages` on an empty transcript. */
export function replayMessages(messages: readonly unknown[], now: number): WireEvent[] {
  const out: WireEvent[] = [];
  replayOnto(initialTranscript, messages, now, (ev) => out.push(ev));
  return out;
}
