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
import type { NoticeLevel } from '../shared/wire/events.ts';
import { ChatNotices } from './chatNotices.ts';
import { ChatPrompts } from './chatPrompts.ts';
import { ChatWorker } from './chatWorker.ts';
import { InterruptedReplies } from './interruptedReplies.ts';
import { SessionContinuity } from './sessionContinuity.ts';
import { WaitingPrompts } from './waitingPrompts.ts';
import { TranscriptMirror, type EarlierRows } from './transcriptMirror.ts';
import { errorText, REQUEST_RULES } from './workerRequests.ts';
import { WorkerRpc, type AskMethod, type CallMethod } from './workerRpc.ts';
import { WorkerSupervisor, type RunningWorker, type WorkerSupervisorOptions } from './workerSupervisor.ts';
import { t } from '../shared/l10n.ts';
import { findRows, type FindResult } from '../shared/transcript/find.ts';

export type { ExtensionUiNotice, Logger, RestoredInput, UserNotification };
export { errorText };

/** Timings of the worker's supervision and of requests with a short timeout. */
export type PiClientOptions = WorkerSupervisorOptions;

/** One chat's client of its Pi worker; `activate` makes one, the parallel chats will make one each. */
export class PiClient extends Disposable {
  private _info: SessionInfoView = { ready: false };
  private readonly _continuity: SessionContinuity;
  /** Prompts sent before the session existed; Cancel drops them and gives the text back. */
  private readonly _waiting: WaitingPrompts;
  private readonly _log: Logger;
  private readonly _config: () => WorkerConfig;
  private readonly _mirror: TranscriptMirror;
  private readonly _rowSources = new WeakMap<RunningWorker, EarlierRows>();
  private readonly _supervisor: WorkerSupervisor;
  private readonly _rpc: WorkerRpc;
  private readonly _interrupted: InterruptedReplies;
  /** Prompts on their way to Pi, and Cancel. */
  private readonly _prompts: ChatPrompts;
  /** The chat's worker over time: Restart, Force Idle, an idle stop, and what a fault leaves behind. */
  readonly worker: ChatWorker;

  private readonly _notices = this._register(new ChatNotices());
  /** Texts and images that did not reach Pi (a cancelled queue, a refused prompt): they go back to the composer. */
  readonly onDidRestoreInput = this._notices.onDidRestoreInput;
  /** Text the composer should hold instead of what it has ("Edit and resend"). */
  readonly onDidSetInput = this._notices.onDidSetInput;
  readonly onDidNotify = this._notices.onDidNotify;
  /** Pi's sign-in flow asks or tells the user something (see signIn.ts). */
  readonly onDidAuth = this._notices.onDidAuth;
  /** An extension set a status-bar item, the view's title or the composer's text. */
  readonly onDidExtensionUi = this._notices.onDidExtensionUi;
  /** "Always allow" was chosen on an approval card: the rule to save in the user's settings. */
  readonly onDidSaveApprovalRule = this._notices.onDidSaveApprovalRule;
  private readonly _onDidChangeSession = this._register(new Emitter<SessionInfoView>());
  readonly onDidChangeSession = this._onDidChangeSession.event;

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
    const continuity = (this._continuity = new SessionContinuity(first));
    this._log = log;
    this._config = config;
    const mirror = this._register(new TranscriptMirror(log, clock));
    this._mirror = mirror;
    this._interrupted = this._register(new InterruptedReplies(mirror, clock, () => continuity.file, journal));
    this._waiting = new WaitingPrompts(mirror, (input) => this._notices.giveBack(input));
    this._supervisor = new WorkerSupervisor(
      spawn,
      config,
      () => continuity.next(),
      {
        events: (p, worker) => mirror.apply(p.events, this._rowsOf(worker)),
        snapshot: (p, worker) => {
          mirror.adopt(p.state, p.earlier, this._waiting.any, this._rowsOf(worker));
          this._interrupted.replayed();
        },
        session: (p) => {
          this._info = p.info;
          continuity.opened(p.info.ready, p.sessionFile);
          this._onDidChangeSession.fire(p.info);
          if (p.info.ready) this._interrupted.sessionOpened();
        },
        ...this._notices.handlers,
        log: (l) => this._log[l.level](`[worker] ${l.message}`),
      },
      log,
      clock,
      options,
    );
    this._rpc = new WorkerRpc(this._supervisor, log, (text) => mirror.notice('error', text));
    const giveBack = (input: RestoredInput) => this._notices.giveBack(input);
    this._prompts = new ChatPrompts({ supervisor: this._supervisor, rpc: this._rpc, mirror, waiting: this._waiting, ready: () => this._info.ready, giveBack });
    this.worker = this._register(
      new ChatWorker(
        {
          supervisor: this._supervisor,
          rpc: this._rpc,
          mirror,
          continuity,
          interrupted: this._interrupted,
          waiting: this._waiting,
          log,
          gone: (message, fault) => this._gone(message, fault),
        },
        options.hangMs,
      ),
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

  /** A notice row in this chat's transcript from the host (a sign-in that did not finish), offering Show Log. */
  notice(level: NoticeLevel, text: string): void {
    this._mirror.notice(level, text, 'sessionFailed');
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
    return this._continuity.file;
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

  /** Starts the worker (when the view first opens) and opens the session; true once it is open. */
  ensureSession(): Promise<boolean> {
    return this._supervisor.start().ready;
  }

  /** See `ChatPrompts.send`. */
  send(text: string, mode: SendMode, images?: readonly ImageAttachment[]): Promise<void> {
    return this._prompts.send(text, mode, images);
  }

  /** See `ChatPrompts.cancel`. */
  cancel(): Promise<void> {
    return this._prompts.cancel();
  }

  /**
   * Sends request `method` as its rule in `REQUEST_RULES` says; one that moves the session forgets the file a
   * worker started after a fault would reopen. Undefined when it was not sent or failed and was reported.
   */
  call<M extends CallMethod>(method: M, params: WorkerRequests[M]['params']): Promise<WorkerRequests[M]['result'] | undefined> {
    if ((REQUEST_RULES[method] as RequestRule).movesSession) this._continuity.moved();
    return this._rpc.call(method, params);
  }

  /** Sends `method` at once (starting a worker if none runs): its answer, or a rejection the caller shows. */
  ask<M extends AskMethod>(method: M, params: WorkerRequests[M]['params']): Promise<WorkerRequests[M]['result']> {
    return this._rpc.ask(method, params);
  }

  /** Find in chat over the whole session: the worker searches it all (rebuilding from Pi's session the rows it dropped); without one, the rows this thread holds. */
  async find(query: string): Promise<FindResult> {
    const found = await this.call('findRows', { query }).catch(() => undefined);
    return found ?? findRows(this.state, query);
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

  /** Whether a worker thread is running now (idle chats, tests and the bench). */
  get workerStarted(): boolean {
    return this.worker.started;
  }

  /** See `ChatWorker.stopIdle` (idle chats free their workers' memory). */
  stopIdle(): Promise<boolean> {
    return this.worker.stopIdle();
  }

  /** Ends the worker on purpose, keeping the turn (window reload or close; see `ChatWorker.shutdown`), and this client. */
  async shutdown(): Promise<void> {
    await this.worker.shutdown();
    this.dispose();
  }

  override dispose(): void {
    this._supervisor.dispose();
    super.dispose();
  }

  /** Input kept across a reload (a queue the stop took back) goes to the composer, as a cancelled queue does. */
  restoreInput(input: RestoredInput): void {
    if (input.texts.length || input.images?.length) this._notices.giveBack(input);
  }

  /** Continue on an interrupted reply: asks Pi to go on from the text it never saved. */
  async continueInterrupted(): Promise<void> {
    const prompt = this._interrupted.takeContinuePrompt();
    if (prompt) await this.send(prompt, this.isActive ? 'followUp' : 'prompt');
  }

  /** The worker is gone (see `ChatWorker`): the session is not ready until the next one opens it. */
  private _gone(message: string, fault: boolean): void {
    this._info = { ...this._info, ready: false };
    this._onDidChangeSession.fire(this._info);
    if (fault) this._notices.notify({ level: 'error', message: t('Pi: {0} The conversation is kept.', message), code: 'workerStopped' });
  }
}
