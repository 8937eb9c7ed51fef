/** Loads the real Pi event streams recorded by scripts/recordEvents.ts and runs them through the projection. */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AgentSessionEvent } from '@earendil-works/pi-coding-agent';
import { project } from '../../src/worker/projection.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { initialTranscript, reduceOne } from '../../src/shared/transcript/reduce.ts';
import type { TranscriptState } from '../../src/shared/transcript/rows.ts';

export function loadRecorded(name: string): AgentSessionEvent[] {
  const file = fileURLToPath(new URL(`../fixtures/events/${name}.json`, import.meta.url));
  const data = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  return (Array.isArray(data) ? data : (data as { events: unknown[] }).events) as AgentSessionEvent[];
}

/** Projects and reduces a recorded stream the way the host does; returns the wire events and the state. */
export function runThrough(
  events: readonly AgentSessionEvent[],
  start: TranscriptState = initialTranscript,
): { wire: WireEvent[]; state: TranscriptState; unknown: string[] } {
  let state = start;
  const wire: WireEvent[] = [];
  const unknown: string[] = [];
  let now = 1_000;
  for (const ev of events) {
    for (const w of project(ev, { state, now: now++, onUnknown: (t) => unknown.push(t) })) {
      state = reduceOne(state, w);
      wire.push(w);
    }
  }
  return { wire, state, unknown };
}

/** Pi's final messages (from each `message_end`), in order, without the system message. */
export function finalMessages(events: readonly AgentSessionEvent[]): Record<string, unknown>[] {
  return events
    .filter((e) => e.type === 'message_end')
    .map((e) => (e as { message: Record<string, unknown> }).message)
    .filter((m) => m.role !== 'system');
}
