/** Pi's events of the shown session: projected onto the transcript, a settled run's follow-ups, the session's info kept current. */

import type { AgentSessionEvent } from '@earendil-works/pi-coding-agent';
import { rowAt, rowCount } from '../shared/transcript/rowStore.ts';
import type { RowId } from '../shared/wire/events.ts';
import type { Logger } from '../shared/wire/workerProtocol.ts';
import { errorText, type AgentSessionLike } from './agentSession.ts';
import { providerErrorText, proxyFromEnv } from './piErrors.ts';
import { project } from './projection.ts';
import type { Prompting } from './prompting.ts';
import type { RunReview } from './runReview.ts';
import type { RunWatchdog } from './runWatchdog.ts';
import type { SessionContext } from './sessionContext.ts';
import type { SessionLifecycle } from './sessionLifecycle.ts';
import type { SessionNotices } from './sessionNotices.ts';
import type { SessionTranscript } from './sessionTranscript.ts';

/** The session's other parts an event of Pi's concerns. */
export interface EventParts {
  readonly lifecycle: SessionLifecycle;
  readonly notices: SessionNotices;
  readonly watchdog: RunWatchdog;
  readonly review: RunReview;
  readonly prompting: Prompting;
  readonly transcript: SessionTranscript;
}

/** What `SessionListener` hears goes here; nothing it does throws into Pi. */
export class SessionEvents {
  private readonly _context: SessionContext;
  private readonly _parts: EventParts;
  private readonly _log: Logger;
  private readonly _unknownTypes = new Set<string>();
  /** A user message Pi announced the end of: it writes it to the file right after, so the next event names its entry. */
  private _unwritten: { readonly message: unknown; readonly rowId: RowId; readonly session: AgentSessionLike | undefined } | undefined;

  constructor(context: SessionContext, parts: EventParts, log: Logger) {
    this._context = context;
    this._parts = parts;
    this._log = log;
  }

  /** One event of Pi's, in the order Pi sent it. */
  readonly heard = (event: AgentSessionEvent): void => {
    const { review, watchdog, prompting, lifecycle } = this._parts;
    try {
      if (this._unwritten) this._nameEntry(this._unwritten);
      review.heard(event, this._context.session());
      const wire = project(event, {
        state: this._context.state(),
        now: watchdog.heard(),
        onUnknown: (type) => {
          if (this._unknownTypes.has(type)) return;
          this._unknownTypes.add(type);
          this._log.warn(`Ignoring Pi event of unknown type "${type}".`);
        },
        wordError: (raw) => providerErrorText(raw, proxyFromEnv(process.env)),
      });
      if (wire.length) this._context.apply(wire);
      if (event.type === 'message_end') this._parts.transcript.sourced(event.message);
      if (event.type === 'message_end' && event.message.role === 'user') this._written(event.message);
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

  /** Pi writes user message `message` (the transcript's last row) to the file once this event has been heard. */
  private _written(message: unknown): void {
    const state = this._context.state();
    const row = rowAt(state, rowCount(state) - 1);
    if (row?.role === 'user' && row.entryId === undefined) this._unwritten = { message, rowId: row.id, session: this._context.session() };
  }

  /** Gives the user row of a message Pi has written its entry's id (Pi's session files name messages by it). */
  private _nameEntry(unwritten: NonNullable<SessionEvents['_unwritten']>): void {
    this._unwritten = undefined;
    const manager: Partial<NonNullable<AgentSessionLike['sessionManager']>> | undefined =
      unwritten.session === this._context.session() ? unwritten.session?.sessionManager : undefined;
    // The entry Pi just wrote is the leaf; the branch is walked only when something was written after it.
    const leaf = manager?.getLeafEntry?.();
    const entry =
      leaf?.type === 'message' && leaf.message === unwritten.message
        ? leaf
        : manager?.getBranch?.().findLast((e) => e.type === 'message' && e.message === unwritten.message);
    if (typeof entry?.id === 'string') this._context.apply([{ type: 'userEntry', rowId: unwritten.rowId, entryId: entry.id }]);
  }

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
