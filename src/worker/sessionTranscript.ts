/** The session's reduced transcript in the worker: wire events applied to it (each row given its id), a saved session's history replayed into it. */

import type { Scheduler } from '../shared/batcher.ts';
import { Disposable, Emitter } from '../shared/disposable.ts';
import { asSent, initialTranscript, reduceOne } from '../shared/transcript/reduce.ts';
import type { TranscriptState } from '../shared/transcript/rows.ts';
import type { WireEvent } from '../shared/wire/events.ts';
import type { Logger } from '../shared/wire/workerProtocol.ts';
import { errorText, type AgentSessionLike } from './agentSession.ts';
import { replayOnto } from './replay.ts';

/** The one transcript every part of the session reads and writes. */
export class SessionTranscript extends Disposable {
  private _state: TranscriptState = initialTranscript;
  private readonly _log: Logger;
  private readonly _clock: Scheduler;
  private readonly _onDidEmit = this._register(new Emitter<readonly WireEvent[]>());
  /** Wire events, in order, right after the transcript applied them. */
  readonly onDidEmit = this._onDidEmit.event;
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
    for (let i = 0; i < events.length; i++) {
      let ev = events[i]!;
      // The worker gives each row its id (and says which row an update of Changes replaces): nobody counts.
      const sent = asSent(this._state, ev);
      if (sent !== ev) {
        if (out === events) out = events.slice();
        ev = (out as WireEvent[])[i] = sent;
      }
      this._state = reduceOne(this._state, ev);
    }
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
    let state = replayOnto(this._state, messages, this._clock.now(), undefined, (index, err) => {
      count++;
      this._log.warn(`Message ${index} of the session could not be shown and was skipped: ${errorText(err)}`);
    });
    // A crafted file's name can be anything: only text names the session.
    if (typeof name === 'string' && name) state = reduceOne(state, { type: 'sessionInfo', name });
    this._state = state;
    if (count) skipped(count);
    this._onDidReplay.fire();
    return true;
  }
}
