/** Listens to one Pi session at a time: what a listener of an earlier session still hears is dropped. */

import type { AgentSessionEvent } from '@earendil-works/pi-coding-agent';
import type { AgentSessionLike } from './agentSession.ts';

/** The one subscription to the session the controller shows. */
export class SessionListener {
  /** Bumped whenever the listened-to session changes: a listener of an earlier one drops what it still hears. */
  private _generation = 0;
  private _unsubscribe: (() => void) | undefined;
  private readonly _onEvent: (event: AgentSessionEvent) => void;

  constructor(onEvent: (event: AgentSessionEvent) => void) {
    this._onEvent = onEvent;
  }

  /** Listens to `session` and nothing else. */
  listen(session: AgentSessionLike): void {
    this.stop();
    const generation = this._generation;
    this._unsubscribe = session.subscribe((event) => {
      if (generation === this._generation) this._onEvent(event);
    });
  }

  /** Stops listening; anything the last listener still hears is dropped. */
  stop(): void {
    this._generation++;
    this._unsubscribe?.();
    this._unsubscribe = undefined;
  }
}
