/**
 * The main thread's side of the Pi worker: starts it, forwards the user's intents as requests, keeps the
 * reduced transcript a re-created view starts from, and survives the worker failing. No `vscode` here, so
 * the SDK tests run it in plain Node with the real worker.
 */

import type { Worker } from 'node:worker_threads';
import { createMessageConnection, PortMessageReader, PortMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node.js';
import type { Scheduler } from '../shared/batcher.ts';
import { ChildProcessTable } from '../shared/childProcessTable.ts';
import { Disposable, Emitter } from '../shared/disposable.ts';
import type { ImageAttachment } from '../shared/images.ts';
import type { SendMode, SessionInfoView, WireEvent } from '../shared/protocol.ts';
import type { SlashCommand } from '../shared/slashCommands.ts';
import type { SessionPage, TreeNodeView } from '../shared/sessions.ts';
import {
  earlierPage,
  firstRowId,
  initialTranscript,
  MAX_PAGE_ROWS,
  prependRows,
  reduceOne,
  type EarlierPage,
  type TranscriptState,
} from '../shared/transcript.ts';
import { killProcesses } from './childProcesses.ts';
import type {
  FileBefore,
  ExtensionUiNotice,
  Logger,
  ModelChoice,
  RestoredInput,
  SessionChoice,
  UserNotification,
  WorkerConfig,
  WorkerData,
  WorkerNotifications,
  WorkerRequestMethod,
  WorkerRequests,
} from '../shared/workerProtocol.ts';

export type { ExtensionUiNotice, Logger, RestoredInput, UserNotification };

export interface PiClientOptions {
  /** How long a short request (cancel, model list, …) may go unanswered before it is reported and given up. */
  readonly requestTimeoutMs: number;
  /** How often the worker is asked for a sign of life, and how long it may take to answer before the user is told. */
  readonly pingMs: number;
  readonly hangMs: number;
}

/** One started worker and its channel. */
interface Live {
  readonly worker: Worker;
  readonly connection: MessageConnection;
  /** Resolves once the worker has opened the session (true) or failed to (false). */
  ready: Promise<boolean>;
  /** Set when we stop it on purpose: its exit is not a fault. */
  stopping: boolean;
  /** Set once the user was told it does not answer; cleared when it answers again. */
  hangReported: boolean;
  /** Prompts handed to it whose run has not ended: a fault now fails a run even before Pi started it. */
  sending: number;
  /** What it has running (shells, servers), recorded by the worker in shared memory: killed when it ends, since they would outlive it. */
  processes: ChildProcessTable;
  stopPing?: () => void;
}

export class PiClient extends Disposable {
  private _state: TranscriptState = initialTranscript;
  /**
   * Rows of a replayed history the worker holds before the first row of `_state`: they are fetched a page at
   * a time after its snapshot, so no single step blocks this thread for long.
   */
  private _earlier = 0;
  /** Bumped whenever the transcript is replaced (a snapshot, a reset): a page fetched for an older one is dropped. */
  private _transcript = 0;
  private _info: SessionInfoView = { ready: false };
  private _live: Live | undefined;
  /** The session file to reopen in the next worker after a fault, so the conversation continues. */
  private _resumeFile: string | undefined;
  private _sessionFile: string | undefined;
  /** Prompts sent before the session existed; Cancel drops them and gives the text back. */
  private _queued: { text: string; mode: SendMode; images?: readonly ImageAttachment[] }[] = [];
  private readonly _spawn: (data: WorkerData) => Worker;
  private readonly _config: () => WorkerConfig;
  private readonly _log: Logger;
  private readonly _clock: Scheduler;
  private readonly _options: PiClientOptions;

  private readonly _onDidEmit = this._register(new Emitter<readonly WireEvent[]>());
  /** Wire events, in order, right after the host store applied them. */
  readonly onDidEmit = this._onDidEmit.event;
  private readonly _onDidReplace = this._register(new Emitter<void>());
  /** The transcript was replaced by a snapshot (a replayed history): a view starts again from `state`. */
  readonly onDidReplace = this._onDidReplace.event;
  /** Rows of a replayed history arrived, or no more will (`pendingEarlier` changed). */
  private readonly _onDidFetchEarlier = this._register(new Emitter<void>());
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

  constructor(spawn: (data: WorkerData) => Worker, config: () => WorkerConfig, log: Logger, clock: Scheduler, options: PiClientOptions) {
    super();
    this._spawn = spawn;
    this._config = config;
    this._log = log;
    this._clock = clock;
    this._options = options;
  }

  /** The host's reduced transcript: what a (re)created view starts from. */
  get state(): TranscriptState {
    return this._state;
  }

  get sessionInfo(): SessionInfoView {
    return this._info;
  }

  /** Rows before the first one `state` holds that are still in the worker (on their way here). */
  get pendingEarlier(): number {
    return this._earlier;
  }

  /**
   * Up to `count` rows just before the row `before`, and how many rows precede them; waits for rows of a
   * replayed history still on their way. Undefined when there is no such row (the transcript was replaced).
   */
  async earlierPage(before: number, count: number): Promise<EarlierPage | undefined> {
    for (;;) {
      const page = earlierPage(this._state, before, count);
      if (!page) return undefined;
      if (page.messages.length === count || this._earlier === 0) return { ...page, earlier: page.earlier + this._earlier };
      await new Promise<void>((resolve) => {
        const sub = this._onDidFetchEarlier.event(() => {
          sub.dispose();
          resolve();
        });
      });
    }
  }

  get isActive(): boolean {
    const r = this._state.run;
    return r.active || r.compaction !== undefined;
  }

  /** Whether a worker thread is running now (tests and the bench). */
  get workerStarted(): boolean {
    return this._live !== undefined;
  }

  /** Starts the worker (when the view first opens) and opens the session; true once it is open. */
  ensureSession(): Promise<boolean> {
    return this._start().ready;
  }

  /** Sends a prompt (with its images) while idle; while a run is active Pi queues it as steer or follow-up. */
  async send(text: string, mode: SendMode, images?: readonly ImageAttachment[]): Promise<void> {
    if (!text.trim() && !images?.length) return;
    const live = this._start();
    if (!this._info.ready) {
      // The session is still opening (Pi loads in the worker): hold the prompt until it exists.
      const item = { text, mode, ...(images?.length ? { images } : {}) };
      this._queued.push(item);
      if (this._queued.length === 1) this._apply([{ type: 'starting', on: true, at: this._clock.now() }]);
      const ok = await live.ready;
      const i = this._queued.indexOf(item);
      if (i < 0) return; // cancelled meanwhile; the text went back to the composer
      this._queued.splice(i, 1);
      if (!ok || live !== this._live) {
        this._endStarting();
        this._onDidRestoreInput.fire({ texts: [text], ...(item.images ? { images: item.images } : {}) });
        return;
      }
    }
    live.sending++;
    try {
      await this._call(live, 'send', { text, mode, ...(images?.length ? { images } : {}) }, 0);
    } finally {
      live.sending--;
      // Normally the run's start ended "starting"; a prompt Pi refused ends it here.
      this._endStarting();
    }
  }

  /** Leaves the starting state once no prompt waits for the session any more. */
  private _endStarting(): void {
    if (this._state.run.starting && !this._queued.length) this._apply([{ type: 'starting', on: false, at: this._clock.now() }]);
  }

  /** Cancels the run; prompts still waiting for the session are dropped and given back. Works in every phase. */
  async cancel(): Promise<void> {
    if (this._queued.length) {
      const texts = this._queued.map((q) => q.text);
      const images = this._queued.flatMap((q) => q.images ?? []);
      this._queued = [];
      this._apply([{ type: 'starting', on: false, at: this._clock.now() }]);
      this._onDidRestoreInput.fire({ texts, ...(images.length ? { images } : {}) });
    }
    const live = this._live;
    // An open extension dialog is answered as dismissed even when no run is active (a command asked).
    if (!live || ((!this.isActive || this._state.run.cancelling) && !this._state.run.dialogs && !this._state.run.shell)) return;
    await this._call(live, 'cancel', null);
  }

  /** The user's answer to an extension dialog; no `value` dismisses it; `reason` goes with an approval's Deny. False when it was no longer open. */
  async answerDialog(id: string, value: string | undefined, reason?: string): Promise<boolean> {
    const live = this._live;
    if (!live) return false;
    const r = await this._call(live, 'answerDialog', value === undefined ? { id } : { id, value, ...(reason ? { reason } : {}) });
    return r?.answered ?? false;
  }

  /** Pi's slash commands (extension commands, prompt templates, skills); empty when there is no session. */
  async listCommands(): Promise<readonly SlashCommand[]> {
    const live = this._start();
    if (!(await live.ready)) return [];
    return (await this._call(live, 'listCommands', null))?.commands ?? [];
  }

  /** `!command` (`excluded`: `!!command`, kept out of the model's context). */
  async bash(command: string, excluded: boolean): Promise<void> {
    const live = this._start();
    if (await live.ready) await this._call(live, 'bash', { command, excluded }, 0);
  }

  /** `/compact instructions`. */
  async compactWith(instructions: string): Promise<void> {
    const live = this._start();
    if (await live.ready) await this._call(live, 'compactWith', { instructions }, 0);
  }

  /** `/name title`. */
  async setSessionName(name: string): Promise<void> {
    const live = this._start();
    if (await live.ready) await this._call(live, 'setSessionName', { name });
  }

  /** Tells the worker what the composer holds, for an extension's `getEditorText()`. */
  composerText(text: string): void {
    const live = this._live;
    if (live) void this._call(live, 'composerText', { text });
  }

  async retryLast(): Promise<void> {
    const live = this._start();
    if (await live.ready) await this._call(live, 'retryLast', null, 0);
  }

  async newSession(): Promise<void> {
    this._resumeFile = undefined;
    const live = this._start();
    await live.ready;
    await this._call(live, 'newSession', null, 0);
  }

  async resumeSession(file: string): Promise<void> {
    this._resumeFile = undefined;
    const live = this._start();
    await live.ready;
    await this._call(live, 'resumeSession', { file }, 0);
  }

  /** Applies changed settings or workspace trust: at once when idle, else when the run settles. */
  async reload(): Promise<boolean> {
    const live = this._live;
    if (!live) return false;
    const r = await this._call(live, 'reload', this._config(), 0);
    return r?.reloaded ?? false;
  }

  /** Sends settings that apply without reopening the session (approvals) to a running worker. */
  configure(): void {
    const live = this._live;
    if (live) void this._request(live, 'configure', this._config(), 0).catch(() => undefined);
  }

  /**
   * Gives up waiting: a worker that answers re-creates its session from disk; one that does not (or is gone)
   * is replaced by a fresh one that resumes the same session file. The transcript stays.
   */
  async forceIdle(): Promise<void> {
    const live = this._live;
    if (live && !live.hangReported) {
      try {
        await this._request(live, 'forceIdle', null, this._options.requestTimeoutMs);
        return;
      } catch (err) {
        this._log.warn(`Force idle: the worker did not answer (${errorText(err)}); restarting it.`);
      }
    }
    this.restart();
  }

  /** Stops the worker (whatever it is doing) and starts a fresh one that resumes the session. */
  restart(): void {
    const live = this._live;
    if (live) {
      this._stop(live);
      this._afterWorkerGone(undefined, live.sending);
    }
    void this._start().ready;
  }

  async compact(): Promise<void> {
    const live = this._start();
    if (await live.ready) await this._call(live, 'compact', null, 0);
  }

  async listModels(): Promise<{ models: readonly ModelChoice[]; current?: string } | undefined> {
    const live = this._start();
    return (await live.ready) ? this._request(live, 'listModels', null, this._options.requestTimeoutMs) : undefined;
  }

  async setModel(model: ModelChoice): Promise<void> {
    const live = this._start();
    await this._request(live, 'setModel', { provider: model.provider, id: model.id }, this._options.requestTimeoutMs);
  }

  async thinkingLevels(): Promise<{ levels: readonly string[]; current?: string } | undefined> {
    const live = this._start();
    return (await live.ready) ? this._request(live, 'thinkingLevels', null, this._options.requestTimeoutMs) : undefined;
  }

  async setThinkingLevel(level: string): Promise<void> {
    await this._request(this._start(), 'setThinkingLevel', { level }, this._options.requestTimeoutMs);
  }

  async listSessions(): Promise<readonly SessionChoice[]> {
    return (await this._request(this._start(), 'listSessions', null, this._options.requestTimeoutMs)).sessions;
  }

  /** A file's content before the current or last run changed it; undefined when no run touched it. */
  async fileBefore(path: string): Promise<FileBefore | undefined> {
    const live = this._start();
    if (!(await live.ready)) return undefined;
    return (await this._request(live, 'fileBefore', { path }, this._options.requestTimeoutMs)).before;
  }

  /** Undoes the last run's change to `path`, or to all its files. */
  async undo(path: string | undefined, runId?: string): Promise<{ ok: boolean; message: string }> {
    const live = this._start();
    if (!(await live.ready)) return { ok: false, message: 'the session could not start (see Pi: Show Log)' };
    return this._request(live, 'undo', { ...(path !== undefined ? { path } : {}), ...(runId !== undefined ? { runId } : {}) }, this._options.requestTimeoutMs);
  }

  /** A page of the workspace's saved sessions matching `query`. */
  async sessionPage(query: string, offset: number, limit?: number): Promise<SessionPage> {
    return this._request(this._start(), 'sessionPage', { query, offset, ...(limit ? { limit } : {}) }, this._options.requestTimeoutMs);
  }

  async importSession(file: string): Promise<void> {
    await this._whenReady('importSession', { file });
  }

  async forkHere(fromEnd: number, text: string): Promise<void> {
    await this._whenReady('forkHere', { fromEnd, text });
  }

  async editResend(fromEnd: number, text: string): Promise<void> {
    await this._whenReady('editResend', { fromEnd, text });
  }

  async navigateTree(entryId: string): Promise<void> {
    await this._whenReady('navigateTree', { entryId });
  }

  async sessionTree(): Promise<readonly TreeNodeView[]> {
    return (await this._request(this._start(), 'sessionTree', null, 0)).nodes;
  }

  /** Names a saved session, or the open one (no `file`). */
  async renameSession(name: string, file?: string): Promise<void> {
    await this._request(this._start(), 'renameSession', { name, ...(file ? { file } : {}) }, this._options.requestTimeoutMs);
  }

  async exportJsonl(file: string): Promise<string> {
    return (await this._request(this._start(), 'exportJsonl', { file }, 0)).file;
  }

  async lastAnswer(): Promise<string | undefined> {
    return (await this._request(this._start(), 'lastAnswer', null, this._options.requestTimeoutMs)).text;
  }

  /** The session file open now, when it has one. */
  get sessionFile(): string | undefined {
    return this._sessionFile;
  }

  /** A session-replacing request, once the session is open; failures are shown in the view. */
  private async _whenReady<M extends 'importSession' | 'forkHere' | 'editResend' | 'navigateTree'>(
    method: M,
    params: WorkerRequests[M]['params'],
  ): Promise<void> {
    this._resumeFile = undefined;
    const live = this._start();
    await live.ready;
    await this._call(live, method, params, 0);
  }

  /** Writes the session as HTML to `file` (an absolute path the user chose). */
  async exportHtml(file: string): Promise<string> {
    // Writing a long transcript can take a while; the worker's liveness is watched separately.
    return (await this._request(this._start(), 'exportHtml', { file }, 0)).file;
  }

  override dispose(): void {
    const live = this._live;
    if (live) this._stop(live);
    super.dispose();
  }

  private _start(): Live {
    if (this._live) return this._live;
    if (this.isDisposed) throw new Error('The Pi panel is shutting down.');
    const processes = new ChildProcessTable();
    const worker = this._spawn({ processTable: processes.buffer });
    const connection = createMessageConnection(new PortMessageReader(worker), new PortMessageWriter(worker));
    const live: Live = { worker, connection, ready: Promise.resolve(false), stopping: false, hangReported: false, sending: 0, processes };
    this._live = live;
    const on = <M extends keyof WorkerNotifications>(method: M, fn: (p: WorkerNotifications[M]) => void) =>
      connection.onNotification(method, (p: WorkerNotifications[M]) => {
        if (this._live === live) fn(p);
      });
    on('events', (p) => this._apply(p.events));
    on('snapshot', (p) => this._adopt(live, p.state, p.earlier));
    on('session', (p) => {
      this._info = p.info;
      this._sessionFile = p.sessionFile;
      this._onDidChangeSession.fire(p.info);
    });
    on('restoreInput', (p) => this._onDidRestoreInput.fire(p));
    on('setInput', (p) => this._onDidSetInput.fire(p.text));
    on('notify', (n) => this._onDidNotify.fire(n));
    on('log', (l) => this._log[l.level](`[worker] ${l.message}`));
    on('extensionUi', (n) => this._onDidExtensionUi.fire(n));
    worker.on('error', (err: Error) => this._onFault(live, `it threw: ${err.message}`));
    worker.on('exit', (code: number) => {
      // A worker stopped on purpose had its processes killed then (its table closed, nothing started after).
      if (!live.stopping) killProcesses(live.processes.running());
      this._onFault(live, `it exited with code ${code}`);
    });
    connection.listen();
    const resume = this._resumeFile;
    void this._request(live, 'configure', this._config(), 0).catch(() => undefined);
    live.ready = this._request(live, 'ensureSession', resume ? { resume } : {}, 0).then(
      (r) => r.ok,
      () => false,
    );
    this._ping(live);
    return live;
  }

  /** Asks for a sign of life every `pingMs`; a worker silent for `hangMs` is reported (once per hang). */
  private _ping(live: Live): void {
    live.stopPing = this._clock.setTimer(() => {
      if (this._live !== live) return;
      let answered = false;
      const cancelHang = this._clock.setTimer(() => {
        if (answered || this._live !== live || live.hangReported) return;
        live.hangReported = true;
        const secs = Math.round(this._options.hangMs / 1000);
        this._notice(
          'warning',
          `Pi's worker has not answered for ${secs} s (a tool or a Pi extension may be busy). The panel keeps working; Restart stops the worker and resumes the conversation.`,
          'workerStopped',
        );
      }, this._options.hangMs);
      this._request(live, 'ping', null, 0).then(
        () => {
          answered = true;
          cancelHang();
          live.hangReported = false;
          this._ping(live);
        },
        () => cancelHang(),
      );
    }, this._options.pingMs);
  }

  /** A request whose failure is reported in the view rather than thrown at the caller. */
  private async _call<M extends WorkerRequestMethod>(
    live: Live,
    method: M,
    params: WorkerRequests[M]['params'],
    timeoutMs = this._options.requestTimeoutMs,
  ): Promise<WorkerRequests[M]['result'] | undefined> {
    try {
      return await this._request(live, method, params, timeoutMs);
    } catch (err) {
      if (this._live === live && !live.stopping) {
        this._log.error(`Pi worker request "${method}" failed: ${errorText(err)}`);
        this._notice('error', `Pi did not complete "${method}": ${errorText(err)}`, 'workerStopped');
      }
      return undefined;
    }
  }

  /** Sends one request; with `timeoutMs` > 0 it is given up (rejected) after that long without an answer. */
  private _request<M extends WorkerRequestMethod>(
    live: Live,
    method: M,
    params: WorkerRequests[M]['params'],
    timeoutMs: number,
  ): Promise<WorkerRequests[M]['result']> {
    const sent = (params === null ? live.connection.sendRequest(method) : live.connection.sendRequest(method, params)) as Promise<WorkerRequests[M]['result']>;
    if (!timeoutMs) return sent;
    return new Promise((resolve, reject) => {
      const cancel = this._clock.setTimer(
        () => reject(new Error(`the Pi worker did not answer "${method}" within ${Math.round(timeoutMs / 1000)} s`)),
        timeoutMs,
      );
      sent.then(
        (v) => {
          cancel();
          resolve(v);
        },
        (err: unknown) => {
          cancel();
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  }

  private _onFault(live: Live, reason: string): void {
    if (this._live !== live) return;
    this._drop(live);
    if (live.stopping || this.isDisposed) return;
    this._log.error(`The Pi worker stopped: ${reason}.`);
    this._afterWorkerGone(reason, live.sending);
  }

  /** Stops a worker on purpose, and whatever it has running. */
  private _stop(live: Live): void {
    live.stopping = true;
    this._drop(live);
    // Closed first: a spawn under way is recorded before the worker stops, and none starts after.
    const running = live.processes.close();
    void live.worker.terminate();
    // Now, not at its exit: the extension host may be shutting down.
    killProcesses(running);
  }

  /** Forgets a worker: no more of its messages are applied, its pending requests fail. */
  private _drop(live: Live): void {
    if (this._live === live) this._live = undefined;
    live.stopPing?.();
    live.connection.dispose();
  }

  /** The transcript stays; a run in progress is marked failed; the next worker resumes the same session file. */
  private _afterWorkerGone(reason: string | undefined, sending = 0): void {
    this._resumeFile = this._sessionFile ?? this._resumeFile;
    // The next worker resumes quietly, without the history: rows not fetched yet are out of reach.
    if (this._earlier) this._setEarlier(0);
    const events: WireEvent[] = [];
    const now = this._clock.now();
    const message = reason ? `Pi's worker stopped (${reason}).` : 'Pi was restarted.';
    // Dialogs of the old worker can never be answered now.
    for (const d of this._state.ui?.dialogs ?? []) events.push({ type: 'dialogClose', id: d.id, outcome: 'worker stopped' });
    // A `!` command went with it (its process was killed): its row ends, cancelled, with the output it had.
    const shell = this._state.ui?.shell;
    if (shell) events.push({ type: 'bashEnd', id: shell.id, command: shell.command, output: shell.output, cancelled: true, excluded: shell.excluded });
    if (this.isActive || sending > 0) events.push({ type: 'settled', aborted: false, at: now, error: message });
    if (reason) {
      events.push({
        type: 'noticeMessage',
        level: 'error',
        text: `${message} The conversation is kept; your next prompt resumes it. Restart starts Pi again now.`,
        code: 'workerStopped',
      });
    }
    if (this._state.run.starting) events.push({ type: 'starting', on: false, at: now });
    if (events.length) this._apply(events);
    if (this._queued.length) {
      const texts = this._queued.map((q) => q.text);
      const images = this._queued.flatMap((q) => q.images ?? []);
      this._queued = [];
      this._onDidRestoreInput.fire({ texts, ...(images.length ? { images } : {}) });
    }
    this._info = { ...this._info, ready: false };
    this._onDidChangeSession.fire(this._info);
    if (reason) this._onDidNotify.fire({ level: 'error', message: `Pi: ${message} The conversation is kept.`, code: 'workerStopped' });
  }

  private _apply(events: readonly WireEvent[]): void {
    let s = this._state;
    for (const ev of events) s = reduceOne(s, ev);
    this._state = s;
    if (this._earlier && events.some((ev) => ev.type === 'reset')) this._setEarlier(0);
    this._onDidEmit.fire(events);
  }

  /** The worker replayed a history: its newest rows replace the transcript, the `earlier` ones follow a page at a time. */
  private _adopt(live: Live, state: TranscriptState, earlier: number): void {
    let s = state;
    // Prompts still wait for the session here, not in the worker.
    if (this._queued.length && !s.run.starting) s = reduceOne(s, { type: 'starting', on: true, at: this._clock.now() });
    this._state = s;
    this._setEarlier(earlier);
    this._onDidReplace.fire();
    if (earlier > 0) void this._fetchEarlier(live, this._transcript);
  }

  private _setEarlier(n: number): void {
    this._earlier = n;
    this._transcript++;
    this._onDidFetchEarlier.fire();
  }

  /**
   * Fetches the rows the worker holds before ours, newest page first, one page per request: each page is
   * structured-cloned and prepended in a step of its own, between whatever else this thread has to do.
   */
  private async _fetchEarlier(live: Live, transcript: number): Promise<void> {
    while (this._earlier > 0 && this._transcript === transcript && this._live === live) {
      const before = firstRowId(this._state);
      let page: EarlierPage | undefined;
      try {
        if (before !== undefined) page = (await this._request(live, 'earlierRows', { before, count: MAX_PAGE_ROWS }, this._options.requestTimeoutMs)).page;
      } catch (err) {
        if (this._live === live) this._log.warn(`Fetching earlier rows from the worker failed: ${errorText(err)}`);
      }
      if (this._transcript !== transcript) return;
      const state = page && prependRows(this._state, page.messages, page.tools);
      if (!page || state === this._state) {
        // Out of reach (the worker stopped or moved on) or not ours: the view shows what is here.
        this._setEarlier(0);
        return;
      }
      this._state = state!;
      this._earlier = page.earlier;
      this._onDidFetchEarlier.fire();
    }
  }

  private _notice(level: 'info' | 'warning' | 'error', text: string, code?: 'workerStopped'): void {
    this._apply([{ type: 'noticeMessage', level, text, code }]);
  }
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
