/**
 * A chat's worker over time: stopped on purpose (Restart, an idle chat, the window closing) or by a fault, its
 * conversation goes on in the next one (the transcript stays, a cut-off reply is shown, waiting prompts go back).
 */

import { Disposable } from '../shared/disposable.ts';
import { t } from '../shared/l10n.ts';
import type { Logger } from '../shared/wire/workerProtocol.ts';
import type { InterruptedReplies } from './interruptedReplies.ts';
import type { SessionContinuity } from './sessionContinuity.ts';
import type { TranscriptMirror } from './transcriptMirror.ts';
import type { WaitingPrompts } from './waitingPrompts.ts';
import { errorText } from './workerRequests.ts';
import type { WorkerRpc } from './workerRpc.ts';
import type { WorkerSupervisor } from './workerSupervisor.ts';

/**
 * How long a stop on purpose waits: for the run to settle, for Pi's extensions' `session_shutdown`, and in all
 * (VS Code gives `deactivate` about 5 s).
 */
const SHUTDOWN = { settleMs: 2000, extensionsMs: 1500, deadlineMs: 4000 } as const;

/** The parts of a chat a stopped worker leaves behind; `PiClient` owns them. */
export interface ChatParts {
  readonly supervisor: WorkerSupervisor;
  readonly rpc: WorkerRpc;
  readonly mirror: TranscriptMirror;
  readonly continuity: SessionContinuity;
  readonly interrupted: InterruptedReplies;
  readonly waiting: WaitingPrompts;
  readonly log: Logger;
  /** The worker is gone: the session is not ready; a fault is told the user with `message`. */
  gone(message: string, fault: boolean): void;
}

/** Stops and restarts one chat's worker; the next one continues the conversation. */
export class ChatWorker extends Disposable {
  private readonly _parts: ChatParts;

  /** `hangMs`: how long the worker may not answer before the transcript says so. */
  constructor(parts: ChatParts, hangMs: number) {
    super();
    this._parts = parts;
    const { supervisor, mirror } = parts;
    this._register(supervisor.onDidFault((f) => this._afterGone(t("Pi's worker stopped ({0}).", f.reason), true, f.sending)));
    this._register(
      supervisor.onDidHang(() => {
        const secs = Math.round(hangMs / 1000);
        mirror.notice(
          'warning',
          t(
            "Pi's worker has not answered for {0} s (a tool or a Pi extension may be busy). The panel keeps working; Restart stops the worker and resumes the conversation.",
            secs,
          ),
        );
      }),
    );
  }

  /** Whether a worker thread is running now (tests and the bench). */
  get started(): boolean {
    return this._parts.supervisor.current !== undefined;
  }

  /**
   * Gives up waiting: a worker that answers re-creates its session from disk; one that does not (or is gone)
   * is replaced by a fresh one that resumes the same session file. The transcript stays.
   */
  async forceIdle(): Promise<void> {
    const current = this._parts.supervisor.current;
    if (current && !current.hangReported) {
      try {
        await this._parts.rpc.call('forceIdle', null);
        return;
      } catch (err) {
        this._parts.log.warn(`Force idle: the worker did not answer (${errorText(err)}); restarting it.`);
      }
    }
    await this._restart(false);
  }

  /** Stops the worker (the run aborted and saved first, within a bound) and starts a fresh one that resumes the session. */
  async restart(): Promise<void> {
    await this._restart(true);
  }

  /**
   * Ends the worker on purpose and keeps the turn (window reload or close): the run is aborted and saved by Pi,
   * its extensions hear `session_shutdown`, then the worker and its processes end. Bounded by `SHUTDOWN`.
   */
  async shutdown(): Promise<void> {
    this._parts.interrupted.stopping();
    await this._parts.supervisor.shutdown(SHUTDOWN.settleMs, SHUTDOWN.extensionsMs, SHUTDOWN.deadlineMs);
  }

  /**
   * Stops the worker of a chat left idle, to free its memory: the next request starts one that reopens the
   * session quietly (the transcript stays on screen). False when there is none or it is busy.
   */
  async stopIdle(): Promise<boolean> {
    const { supervisor, mirror, waiting } = this._parts;
    const run = mirror.state.run;
    if (!supervisor.current || mirror.isActive || waiting.any || run.dialogs || run.shell) return false;
    this._continue();
    await supervisor.shutdown(SHUTDOWN.settleMs, SHUTDOWN.extensionsMs, SHUTDOWN.deadlineMs);
    return true;
  }

  /** `graceful` false: the worker does not answer, so it is ended at once. */
  private async _restart(graceful: boolean): Promise<void> {
    const supervisor = this._parts.supervisor;
    const stopped = graceful ? await supervisor.shutdown(SHUTDOWN.settleMs, SHUTDOWN.extensionsMs, SHUTDOWN.deadlineMs) : supervisor.stop();
    if (stopped) this._afterGone(t('Pi was restarted.'), false, stopped.sending);
    if (!this.isDisposed) await supervisor.start().ready;
  }

  /** The next worker continues the session (with its history when only the old worker held the earliest rows). */
  private _continue(): void {
    const { continuity, mirror, interrupted } = this._parts;
    if (continuity.continueIn(mirror.pendingEarlier)) interrupted.replayNext();
  }

  /** The transcript stays; a run in progress is marked failed; the next worker resumes the same session file. */
  private _afterGone(message: string, fault: boolean, sending: number): void {
    const { mirror, interrupted, waiting } = this._parts;
    this._continue();
    // A crash: the reply streamed so far died with Pi before it saved it.
    const cut = fault ? interrupted.streaming() : undefined;
    mirror.workerGone({ message, fault, sending });
    if (cut) interrupted.cut(cut);
    waiting.giveBackAll();
    this._parts.gone(message, fault);
  }
}
