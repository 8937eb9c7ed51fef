/** The session's reduced transcript in the worker: wire events applied to it (each row given its id), a saved session's history replayed into it. */

import type { Scheduler } from '../shared/batcher.ts';
import { Disposable, Emitter } from '../shared/disposable.ts';
import type { FindResult } from '../shared/transcript/find.ts';
import type { EarlierPage } from '../shared/transcript/paging.ts';
import { asSent, initialTranscript, reduceOne } from '../shared/transcript/reduce.ts';
import { rowCount } from '../shared/transcript/rowStore.ts';
import type { TranscriptState } from '../shared/transcript/rows.ts';
import type { WireEvent } from '../shared/wire/events.ts';
import type { Logger } from '../shared/wire/workerProtocol.ts';
import { errorText, type AgentSessionLike } from './agentSession.ts';
import { replayOnto } from './replay.ts';
import { RowChanges } from './rowChanges.ts';
import { RowWindow } from './rowWindow.ts';

/** The one transcript every part of the session reads and writes. */
export class SessionTranscript extends Disposable {
  private _state: TranscriptState = initialTranscript;
  /** The rows dropped from `state` (the oldest of a long session), rebuilt from Pi's messages when asked for. */
  private readonly _window = new RowWindow();
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
      // An update of a run's changes whose row the window dropped updates it there (and names it).
      // The main thread may hold that row still (its window is larger): it hears of the update as a row change.
      if (ev.type === 'changes') ev = this._window.changes(this._state, ev, (row) => this._changes.row(row, changes));
      // The worker gives each row its id (and says which row an update of Changes replaces): nobody counts.
      const sent = asSent(this._state, ev);
      if (sent !== events[i]) {
        if (out === events) out = events.slice();
        ev = (out as WireEvent[])[i] = sent;
      }
      if (ev.type === 'reset') this._window.reset();
      const prev = this._state;
      this._state = reduceOne(prev, ev);
      this._changes.step(prev, this._state, ev, changes);
    }
    this._state = this._window.trim(this._state);
    // Changes first: a listener of the events may apply more, whose changes must follow these.
    if (changes.length) this._onDidChange.fire(changes);
    this._onDidEmit.fire(out);
  }

  /** Pi's `message` ended: the row it made can be rebuilt from it once the window drops that row. */
  sourced(message: unknown): void {
    this._window.sourced(this._state, message);
  }

  /** What a snapshot carries: the newest rows, and how many rows of the whole session come before them. */
  recentPart(): { state: TranscriptState; earlier: number } {
    return this._window.recentPart(this._state);
  }

  /** Up to `count` rows of the whole session with ids below `before`, and how many rows come before them. */
  pageBefore(before: number, count: number): EarlierPage {
    return this._window.pageBefore(this._state, before, count);
  }

  /** The rows of the whole session (those dropped from the window too) that hold `query`. */
  findRows(query: string): FindResult {
    return this._window.findRows(this._state, query);
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
    let rowsBefore = rowCount(this._state);
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
      (message, s) => {
        // A message that made one row is what that row is rebuilt from once the window drops it.
        const n = rowCount(s);
        if (n === rowsBefore + 1) this._window.sourced(s, message);
        rowsBefore = n;
      },
    );
    // A crafted file's name can be anything: only text names the session.
    if (typeof name === 'string' && name) state = reduceOne(state, { type: 'sessionInfo', name });
    this._state = this._window.trim(state);
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
