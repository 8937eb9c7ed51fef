/** The session's reduced transcript in the worker: wire events applied to it (each row given its id), a saved session's history replayed into it. */

import type { Scheduler } from '../shared/batcher.ts';
import { Disposable, Emitter } from '../shared/disposable.ts';
import { asSent, initialTranscript, reduceOne } from '../shared/transcript/reduce.ts';
import type { TranscriptState } from '../shared/transcript/rows.ts';
import type { WireEvent } from '../shared/wire/events.ts';
import type { Logger } from '../shared/wire/workerProtocol.ts';
import { errorText, type AgentSessionLike } from './agentSession.ts';
import { replayOnto } from './replay.ts';
import { RowChanges } from './rowChanges.ts';

/** The one transcript every part of the session reads and writes. */
export class SessionTranscript extends Disposable {
  private _state: TranscriptState = initialTranscript;
  private readonly _log: Logger;
  private readonly _clock: Scheduler;
  private readonly _onDidEmit = this._register(new Emitter<readonly WireEvent[]>());
  /** Wire events, in order, right after the transcript applied them. */
  readonly onDidEmit = this._onDidEmit.event;
  private readonly _changes = new RowChanges();
  private readonly _onDidChange = this._register(new Emitter<readonly WireEvent[]>());
  /** What the main thread is sent for the events `onDidEmit` gives: the rows they touched, by id (see rowChanges.ts). */
  readonly onDidChange = this._onDidChange.event;
  private readonly _onDidReplay = this._register(new Emitter<void>());
  /** A saved session's history was replayed in one pass, without events. */
  readonly onDidReplay = this._onDidReplay.event;

  constructor(log: Logger, clock: Scheduler) {
    super();
    this._log = log;
    this._clock = clock;
  }

  get state(): TranscriptState {
    return this._state;
  }

  /** Applies `events` and sends them on. */
  apply(events: readonly WireEvent[]): void {
    let out = events;
    const changes: WireEvent[] = [];
    for (let i = 0; i < events.length; i++) {
      let ev = events[i]!;
      // The worker gives each row its id (and says which row an update of Changes replaces): nobody counts.
      const sent = asSent(this._state, ev);
      if (sent !== ev) {
        if (out === events) out = events.slice();
        ev = (out as WireEvent[])[i] = sent;
      }
      const prev = this._state;
      this._state = reduceOne(prev, ev);
      this._changes.step(prev, this._state, ev, changes);
    }
    // Changes first: a listener of the events may apply more, whose changes must follow these.
    if (changes.length) this._onDidChange.fire(changes);
    this._onDidEmit.fire(out);
  }

  /**
   * Adds `session`'s history (and name); false when it has neither. `skipped` hears how many messages could
   * not be shown, before the replay is announced, so its notice is part of what the main thread gets.
   */
  replay(session: AgentSessionLike, skipped: (count: number) => void): boolean {
    const messages = session.messages;
    const name = session.sessionName;
    if (!messages.length && !name) return false;
    let count = 0;
    let state = replayOnto(
      this._state,
      messages,
      this._clock.now(),
      undefined,
      (index, err) => {
        count++;
        this._log.warn(`Message ${index} of the session could not be shown and was skipped: ${errorText(err)}`);
      },
      messageEntryIds(session),
    );
    // A crafted file's name can be anything: only text names the session.
    if (typeof name === 'string' && name) state = reduceOne(state, { type: 'sessionInfo', name });
    this._state = state;
    if (count) skipped(count);
    this._onDidReplay.fire();
    return true;
  }
}

/**
 * The session entry each of `session`'s messages came from, found as Pi finds it: the entry holding that very
 * message on the branch, else the entry the message's place in Pi's projection of the branch came from.
 */
function messageEntryIds(session: AgentSessionLike): (message: unknown) => string | undefined {
  const manager = session.sessionManager;
  if (!manager) return () => undefined;
  const ids = new Map<unknown, string>();
  for (const e of manager.getBranch()) if (e.type === 'message' && typeof e.id === 'string') ids.set(e.message, e.id);
  let byPlace: Map<unknown, string> | undefined;
  return (message) => {
    const id = ids.get(message);
    if (id !== undefined) return id;
    // A message Pi copied for the model's context (an edit, content it filled in): its place in the projection.
    byPlace ??= projectedIds(manager, session.messages);
    return byPlace.get(message);
  };
}

/** `messages` (as Pi's projection of the branch made them) mapped to the entries they came from; empty when they differ. */
function projectedIds(manager: NonNullable<AgentSessionLike['sessionManager']>, messages: readonly unknown[]): Map<unknown, string> {
  const out = new Map<unknown, string>();
  try {
    const projected = manager.buildSessionProjection().entries.flatMap((e) => e.messages.map(() => e.sourceEntry.id));
    if (projected.length !== messages.length) return out;
    for (const [i, m] of messages.entries()) if (typeof projected[i] === 'string') out.set(m, projected[i]);
  } catch {
    // A session manager without a projection (a test's), or a damaged branch: those rows name no entry.
  }
  return out;
}
