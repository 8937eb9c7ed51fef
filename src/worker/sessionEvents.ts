/** Pi's events of the shown session: projected onto the transcript, a settled run's follow-ups, the session's info kept current. */

import type { AgentSessionEvent } from '@earendil-works/pi-coding-agent';
import type { Logger } from '../shared/wire/workerProtocol.ts';
import { errorText } from './agentSession.ts';
import { project } from './projection.ts';
import type { Prompting } from './prompting.ts';
import type { RunReview } from './runReview.ts';
import type { RunWatchdog } from './runWatchdog.ts';
import type { SessionContext } from './sessionContext.ts';
import type { SessionLifecycle } from './sessionLifecycle.ts';
import type { SessionNotices } from './sessionNotices.ts';

/** The session's other parts an event of Pi's concerns. */
export interface EventParts {
  readonly lifecycle: SessionLifecycle;
  readonly notices: SessionNotices;
  readonly watchdog: RunWatchdog;
  readonly review: RunReview;
  readonly prompting: Prompting;
}

/** What `SessionListener` hears goes here; nothing it does throws into Pi. */
export class SessionEvents {
  private readonly _context: SessionContext;
  private readonly _parts: EventParts;
  private readonly _log: Logger;
  private readonly _unknownTypes = new Set<string>();

  constructor(context: SessionContext, parts: EventParts, log: Logger) {
    this._context = context;
    this._parts = parts;
    this._log = log;
  }

  /** One event of Pi's, in the order Pi sent it. */
  readonly heard = (event: AgentSessionEvent): void => {
    const { review, watchdog, prompting, lifecycle } = this._parts;
    try {
      review.heard(event, this._context.session());
      const wire = project(event, {
        state: this._context.state(),
        now: watchdog.heard(),
        onUnknown: (type) => {
          if (this._unknownTypes.has(type)) return;
          this._unknownTypes.add(type);
          this._log.warn(`Ignoring Pi event of unknown type "${type}".`);
        },
      });
      if (wire.length) this._context.apply(wire);
      if (event.type === 'queue_update') prompting.pruneQueuedImages(event);
      if (event.type === 'agent_settled') this._settled(event.aborted);
      // The model, its thinking level or how full its context is may have changed. An extension that
      // switches the model (`pi.setModel`) leaves only a `model_change` entry behind.
      if (
        event.type === 'thinking_level_changed' ||
        event.type === 'agent_settled' ||
        event.type === 'compaction_end' ||
        (event.type === 'entry_appended' && event.entry.type === 'model_change')
      )
        lifecycle.sessionChanged();
      watchdog.armSilence();
    } catch (err) {
      this._log.error(`Pi event "${event.type}" could not be shown: ${errorText(err)}`);
    }
  };

  /** A run settled: its file changes, a reload it held back, a provider error it ended on. */
  private _settled(aborted: boolean): void {
    const { review, watchdog, lifecycle, notices } = this._parts;
    watchdog.clearSettle();
    const session = this._context.session();
    review.settled(session, () => lifecycle.isCurrent(session));
    lifecycle.reloadIfHeld();
    const outcome = this._context.state().run.outcome;
    if (!aborted && outcome?.kind === 'error') notices.providerError(outcome.message);
  }
}
