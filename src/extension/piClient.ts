/**
 * The main thread's side of one Pi chat: a supervised worker, typed requests to it and the transcript
 * mirrored from it, put together as the user's intents (send, cancel, switch sessions, …). Prompts sent
 * before the session exists wait here. No `vscode` here, so the SDK tests run it in plain Node with the
 * real worker.
 */

import type { Worker } from 'node:worker_threads';
import type { Scheduler } from '../shared/batcher.ts';
import { Disposable, Emitter } from '../shared/disposable.ts';
import type { ImageAttachment } from '../shared/images.ts';
import type { Command, RequestRule } from '../shared/wire/commands.ts';
import type { SendMode, SessionInfoView } from '../shared/wire/webviewProtocol.ts';
import type { EarlierPage } from '../shared/transcript/paging.ts';
import type { TranscriptState } from '../shared/transcript/rows.ts';
import type {
  ExtensionUiNotice,
  Logger,
  RestoredInput,
  SessionStart,
  UserNotification,
  WorkerConfig,
  WorkerData,
  WorkerRequests,
} from '../shared/wire/workerProtocol.ts';
import type { TurnJournalStore } from '../shared/run/turnJournal.ts';
import { InterruptedReplies } from './interruptedReplies.ts';
import { WaitingPrompts } from './waitingPrompts.ts';
import { TranscriptMirror, type EarlierRows } from './transcriptMirror.ts';
import { errorText, REQUEST_RULES } from './workerRequests.ts';
import { WorkerRpc, type AskMethod, type CallMethod } from './workerRpc.ts';
import { WorkerSupervisor, type RunningWorker, type WorkerSupervisorOptions } from './workerSupervisor.ts';
import { t } from '../shared/l10n.ts';

export type { ExtensionUiNotice, Logger, RestoredInput, UserNotification };
export { errorText };

/**
 * How long a stop on purpose waits: for the run to settle, for Pi's extensions' `session_shutdown`, and in all
 * (VS Code gives `deactivate` about 5 s).
 */
const SHUTDOWN = { settleMs: 2000, extensionsMs: 1500, deadlineMs: 4000 } as const;

/** Timings of the worker's supervision and of requests with a short timeout. */
export type PiClientOptions = WorkerSupervisorOptions;

/** One chat's client of its Pi worker; `activate` makes one, the parallel chats will make one each. */
export class PiClient extends Disposable {
  private _info: SessionInfoView = { ready: false };
  /** The session file to reopen in the next worker after a fault, so the conversation continues. */
  private _resumeFile: string | undefined;
  private _sessionFile: string | undefined;
  /** Prompts sent before the session existed; Cancel drops them and gives the text back. */
  private readonly _waiting: WaitingPrompts;
  private readonly _log: Logger;
  private readonly _clock: Scheduler;
  private readonly _config: () => WorkerConfig;
  private readonly _mirror: TranscriptMirror;
  private readonly _rowSources = new WeakMap<RunningWorker, EarlierRows>();
  private readonly _supervisor: WorkerSupervisor;
  private readonly _rpc: WorkerRpc;
  private readonly _interrupted: InterruptedReplies;

  private readonly _onDidRestoreInput = this._register(new Emitter<RestoredInput>());
  /** Texts and images that did not reach Pi (a cancelled queue, a refused prompt): they go back to the composer. */
  readonly onDidRestoreInput = this._onDidRestoreInput.event;
  private readonly _onDidSetInput = this._register(new Emitter<string>());
  /** Text the composer should hold instead of what it has ("Edit and resend"). */
  readonly onDidSetInput = this._onDidSetInput.event;
  private readonly _onDidNotify = this._register(new Emitter<UserNotification>());
  readonly onDidNotify = this._onDidNotify.event;
  private readonly _onDidChangeSession = this._register(new Emitter<SessionInfoView>());
  readonly onDidChangeSession = this._onDidChangeSession.event;
  private readonly _onDidExtensionUi = this._register(new Emitter<ExtensionUiNotice>());
  /** An extension set a status-bar item, the view's title or the composer's text. */
  readonly onDidExtensionUi = this._onDidExtensionUi.event;

  /** How the first worker opens its session (a chat in a new tab starts empty or on a saved file); later ones resume. */
  private _first: SessionStart;

  /**
   * `journal`: where the streaming turn is kept against a crash (the extension's storage); none keeps nothing.
   * `first`: the session the chat opens with; none continues the most recent one (the sidebar's habit).
   */
  constructor(
    spawn: (data: WorkerData) => Worker,
    config: () => WorkerConfig,
    log: Logger,
    clock: Scheduler,
    options: PiClientOptions,
    journal?: TurnJournalStore,
    first: SessionStart = {},
  ) {
    super();
    this._first = first;
    this._log = log;
    this._clock = clock;
    this._config = config;
    const mirror = this._register(new TranscriptMirror(log, clock));
    this._mirror = mirror;
    this._interrupted = this._register(new InterruptedReplies(mirror, clock, () => this._sessionFile, journal));
    this._waiting = new WaitingPrompts(mirror, (input) => this._onDidRestoreInput.fire(input));
    this._supervisor = new WorkerSupervisor(
      spawn,
      config,
      () => (this._resumeFile ? { resume: this._resumeFile } : this._first),
      {
        events: (p, worker) => mirror.apply(p.events, this._rowsOf(worker)),
        snapshot: (p, worker) => {
          mirror.adopt(p.state, p.earlier, this._waiting.any, this._rowsOf(worker));
          this._interrupted.replayed();
        },
        session: (p) => {
          this._info = p.info;
          this._sessionFile = p.sessionFile;
          // Once a session is open, a later worker continues it (or, without a file, the most recent one).
          if (p.info.ready) this._first = p.sessionFile ? { open: p.sessionFile } : {};
          this._onDidChangeSession.fire(p.info);
          if (p.info.ready) this._interrupted.sessionOpened();
        },
        restoreInput: (p) => this._onDidRestoreInput.fire(p),
        setInput: (p) => this._onDidSetInput.fire(p.text),
        notify: (n) => this._onDidNotify.fire(n),
        log: (l) => this._log[l.level](`[worker] ${l.message}`),
        extensionUi: (n) => this._onDidExtensionUi.fire(n),
      },
      log,
      clock,
      options,
    );
    this._rpc = new WorkerRpc(this._supervisor, log, (text) => mirror.notice('error', text));
    this._register(this._supervisor.onDidFault((f) => this._afterWorkerGone(t("Pi's worker stopped ({0}).", f.reason), true, f.sending)));
    this._register(
      this._supervisor.onDidHang(() => {
        const secs = Math.round(options.hangMs / 1000);
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

  /** The rows `worker` holds, for the mirror to page back from; one object per worker (the mirror tells them apart). */
  private _rowsOf(worker: RunningWorker): EarlierRows {
    let rows = this._rowSources.get(worker);
    if (!rows) {
      rows = {
        live: () => this._supervisor.current === worker,
        fetch: async (before, count) => (await worker.request('earlierRows', { before, count })).page,
      };
      this._rowSources.set(worker, rows);
    }
    return rows;
  }

  /** The host's reduced transcript: what a (re)created view starts from. */
  get state(): TranscriptState {
    return this._mirror.state;
  }

  /** Wire events, in order, right after the host store applied them. */
  get onDidEmit(): TranscriptMirror['onDidEmit'] {
    return this._mirror.onDidEmit;
  }

  /** The transcript was replaced by a snapshot (a replayed history): a view starts again from `state`. */
  get onDidReplace(): TranscriptMirror['onDidReplace'] {
    return this._mirror.onDidReplace;
  }

  get sessionInfo(): SessionInfoView {
    return this._info;
  }

  /** The session file open now, when it has one. */
  get sessionFile(): string | undefined {
    return this._sessionFile;
  }

  /** Rows before the first one `state` holds that the worker holds (paged in when the view asks). */
  get pendingEarlier(): number {
    return this._mirror.pendingEarlier;
  }

  /** See `TranscriptMirror.earlierPage`. */
  earlierPage(before: number, count: number): Promise<EarlierPage | undefined> {
    return this._mirror.earlierPage(before, count);
  }

  get isActive(): boolean {
    return this._mirror.isActive;
  }

  /** Whether a worker thread is running now (tests and the bench). */
  get workerStarted(): boolean {
    return this._supervisor.current !== undefined;
  }

  /** Starts the worker (when the view first opens) and opens the session; true once it is open. */
  ensureSession(): Promise<boolean> {
    return this._supervisor.start().ready;
  }

  /** Sends a prompt (with its images) while idle; while a run is active Pi queues it as steer or follow-up. */
  async send(text: string, mode: SendMode, images?: readonly ImageAttachment[]): Promise<void> {
    if (!text.trim() && !images?.length) return;
    const worker = this._supervisor.start();
    // The session is still opening (Pi loads in the worker): hold the prompt until it exists.
    if (!this._info.ready && !(await this._waiting.hold(text, mode, images, worker.ready, () => worker === this._supervisor.current))) return;
    worker.sending++;
    try {
      await this._rpc.call('send', { text, mode, ...(images?.length ? { images } : {}) });
    } finally {
      worker.sending--;
      // Normally the run's start ended "starting"; a prompt Pi refused ends it here.
      this._waiting.endStarting();
    }
  }

  /** Cancels the run; prompts still waiting for the session are dropped and given back. Works in every phase. */
  async cancel(): Promise<void> {
    const waiting = this._waiting.take();
    if (waiting) {
      this._mirror.starting(false);
      this._onDidRestoreInput.fire(waiting);
    }
    const run = this.state.run;
    // An open extension dialog is answered as dismissed even when no run is active (a command asked). A prompt
    // on its way to the worker has no run yet: the worker stops it before, or as soon as, its run starts.
    const sending = (this._supervisor.current?.sending ?? 0) > 0;
    if ((!this.isActive || run.cancelling) && !run.dialogs && !run.shell && !sending) return;
    await this._rpc.call('cancel', null);
  }

  /**
   * Sends request `method` as its rule in `REQUEST_RULES` says; one that moves the session forgets the file a
   * worker started after a fault would reopen. Undefined when it was not sent or failed and was reported.
   */
  call<M extends CallMethod>(method: M, params: WorkerRequests[M]['params']): Promise<WorkerRequests[M]['result'] | undefined> {
    if ((REQUEST_RULES[method] as RequestRule).movesSession) this._resumeFile = undefined;
    return this._rpc.call(method, params);
  }

  /** Sends `method` at once (starting a worker if none runs): its answer, or a rejection the caller shows. */
  ask<M extends AskMethod>(method: M, params: WorkerRequests[M]['params']): Promise<WorkerRequests[M]['result']> {
    return this._rpc.ask(method, params);
  }

  /** Sends a command of the table (`COMMANDS`), as the view asked for it. */
  async request(command: Command): Promise<void> {
    await this.call(command.name, command.params as never);
  }

  /** Applies changed settings or workspace trust: at once when idle, else when the run settles. */
  async reload(): Promise<boolean> {
    return (await this._rpc.call('reload', this._config()))?.reloaded ?? false;
  }

  /** Sends settings that apply without reopening the session (approvals) to a running worker. */
  configure(): void {
    void this._rpc.call('configure', this._config()).catch(() => undefined);
  }

  /**
   * Gives up waiting: a worker that answers re-creates its session from disk; one that does not (or is gone)
   * is replaced by a fresh one that resumes the same session file. The transcript stays.
   */
  async forceIdle(): Promise<void> {
    if (this._supervisor.current && !this._supervisor.current.hangReported) {
      try {
        await this._rpc.call('forceIdle', null);
        return;
      } catch (err) {
        this._log.warn(`Force idle: the worker did not answer (${errorText(err)}); restarting it.`);
      }
    }
    await this._restart(false);
  }

  /**
   * Stops the worker (the run aborted and saved first, within a bound) and starts a fresh one that resumes the
   * session.
   */
  async restart(): Promise<void> {
    await this._restart(true);
  }

  /** `graceful` false: the worker does not answer, so it is ended at once. */
  private async _restart(graceful: boolean): Promise<void> {
    const stopped = graceful ? await this._supervisor.shutdown(SHUTDOWN.settleMs, SHUTDOWN.extensionsMs, SHUTDOWN.deadlineMs) : this._supervisor.stop();
    if (stopped) this._afterWorkerGone(t('Pi was restarted.'), false, stopped.sending);
    if (!this.isDisposed) await this._supervisor.start().ready;
  }

  /**
   * Ends the worker on purpose and keeps the turn (window reload or close): the run is aborted and saved by Pi,
   * its extensions hear `session_shutdown`, then the worker and its processes end. Bounded by `SHUTDOWN`.
   */
  async shutdown(): Promise<void> {
    this._interrupted.stopping();
    await this._supervisor.shutdown(SHUTDOWN.settleMs, SHUTDOWN.extensionsMs, SHUTDOWN.deadlineMs);
    this.dispose();
  }

  /**
   * Stops the worker of a chat left idle, to free its memory: the next request starts one that reopens the
   * session quietly (the transcript stays on screen). False when there is none or it is busy.
   */
  async stopIdle(): Promise<boolean> {
    const run = this.state.run;
    if (!this._supervisor.current || this.isActive || this._waiting.any || run.dialogs || run.shell) return false;
    this._continueIn();
    await this._supervisor.shutdown(SHUTDOWN.settleMs, SHUTDOWN.extensionsMs, SHUTDOWN.deadlineMs);
    return true;
  }

  override dispose(): void {
    this._supervisor.dispose();
    super.dispose();
  }

  /** Input kept across a reload (a queue the stop took back) goes to the composer, as a cancelled queue does. */
  restoreInput(input: RestoredInput): void {
    if (input.texts.length || input.images?.length) this._onDidRestoreInput.fire(input);
  }

  /** Continue on an interrupted reply: asks Pi to go on from the text it never saved. */
  async continueInterrupted(): Promise<void> {
    const prompt = this._interrupted.takeContinuePrompt();
    if (prompt) await this.send(prompt, this.isActive ? 'followUp' : 'prompt');
  }

  /**
   * Which way the next worker continues this chat's session. Quietly, the transcript on screen staying, while the
   * host holds every row; once rows before the host's window exist, only the old worker could page them back,
   * so the next one opens the session with its history instead (a snapshot, from which the view pages as for
   * any resumed session), and an interrupted reply is shown again after it.
   */
  private _continueIn(): void {
    const file = this._sessionFile ?? this._resumeFile;
    if (file && this._mirror.pendingEarlier > 0) {
      this._resumeFile = undefined;
      this._first = { open: file };
      this._interrupted.replayNext();
    } else this._resumeFile = file;
  }

  /** The transcript stays; a run in progress is marked failed; the next worker resumes the same session file. */
  private _afterWorkerGone(message: string, fault: boolean, sending: number): void {
    this._continueIn();
    // A crash: the reply streamed so far died with Pi before it saved it.
    const cut = fault ? this._interrupted.streaming() : undefined;
    this._mirror.workerGone({ message, fault, sending });
    if (cut) this._interrupted.cut(cut);
    const waiting = this._waiting.take();
    if (waiting) this._onDidRestoreInput.fire(waiting);
    this._info = { ...this._info, ready: false };
    this._onDidChangeSession.fire(this._info);
    if (fault) this._onDidNotify.fire({ level: 'error', message: t('Pi: {0} The conversation is kept.', message), code: 'workerStopped' });
  }
}
