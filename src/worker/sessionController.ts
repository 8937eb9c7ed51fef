/**
 * Owns the Pi session in the worker thread: creates it on first use, subscribes before any prompt, keeps the
 * reduced transcript the projection reads, and runs prompt, steer, follow-up, cancel and new-session. No
 * `vscode` here, so unit tests drive it with a `FakeSession`.
 */

import type { AgentSession, AgentSessionEvent } from '@earendil-works/pi-coding-agent';
import type { Scheduler } from '../shared/batcher.ts';
import { project } from '../shared/projection.ts';
import type { NoticeCode, NoticeLevel, SendMode, SessionInfoView, WireEvent } from '../shared/protocol.ts';
import { initialTranscript, reduceOne, type TranscriptState } from '../shared/transcript.ts';
import { Disposable, Emitter } from '../shared/disposable.ts';
import type { Logger, RestoredInput, UserNotification } from '../shared/workerProtocol.ts';
import type { ImageAttachment } from '../shared/images.ts';
import { FileChanges, type Before } from './fileChanges.ts';
import { describeSessionError } from './piErrors.ts';
import { replayOnto } from './replay.ts';
import { importLeavingNoCopy } from './sessionFiles.ts';
import {
  exchangeEndId,
  statsView,
  treeView,
  userEntryId,
  type ForkOptions,
  type NewSessionOptions,
  type SessionOps,
  type SessionRuntimeLike,
  type SwitchSessionOptions,
} from './sessionRuntime.ts';
import type { TreeNodeView } from '../shared/sessions.ts';

/** What a move in the session tree may ask for besides its target (Pi's `navigateTree` options). */
export type NavigateTreeOptions = NonNullable<Parameters<AgentSession['navigateTree']>[1]>;

/** The part of Pi's `AgentSession` the controller uses; `FakeSession` implements the same. */
export type AgentSessionLike = Pick<
  AgentSession,
  | 'subscribe'
  | 'prompt'
  | 'steer'
  | 'followUp'
  | 'clearQueue'
  | 'abort'
  | 'dispose'
  | 'compact'
  | 'abortCompaction'
  | 'setModel'
  | 'setThinkingLevel'
  | 'getAvailableThinkingLevels'
  | 'exportToHtml'
  | 'modelRuntime'
  | 'getContextUsage'
> & {
  readonly sessionFile?: string | undefined;
  readonly isStreaming: boolean;
  readonly isCompacting: boolean;
  readonly model: { readonly provider: string; readonly id: string; readonly name?: string } | undefined;
  readonly thinkingLevel: string;
  readonly messages: readonly unknown[];
} & Partial<SessionOps>;

export interface CreatedSession {
  readonly session: AgentSessionLike;
  /** Pi's runtime that owns `session`: new, resume, fork and import replace the session through it. */
  readonly runtime?: SessionRuntimeLike<AgentSessionLike>;
  /** Something the user should know (a model fallback, a missing workspace). */
  readonly warning?: string;
  readonly cwd: string;
  /** Pi found no model with credentials; prompting would fail with "No API key found". */
  readonly noModel?: boolean;
  /** Binds Pi's extensions to the panel's UI (fires `session_start`); called once the controller listens. */
  readonly bind?: (session: AgentSessionLike) => Promise<void>;
}

/**
 * Makes sessions. `fresh` starts an empty one; `open` opens a saved session file; otherwise the most recent
 * one for the workspace continues.
 */
export type SessionFactory = (options: { fresh: boolean; open?: string }) => Promise<CreatedSession>;

export type { Logger, UserNotification };

export interface ControllerOptions {
  /** How long to wait for `agent_settled` after a cancel before offering "Force idle". */
  readonly settleTimeoutMs: number;
  /** How long a run may go without any event before the user is told (0 = never). */
  readonly noResponseMs: number;
  readonly collapseThinking?: boolean;
  /** The extension's workspace storage: the last run's file changes are kept there across reloads. */
  readonly storageDir?: string;
}

export class SessionController extends Disposable {
  private _state: TranscriptState = initialTranscript;
  private _session: AgentSessionLike | undefined;
  private _unsubscribe: (() => void) | undefined;
  private _runtime: SessionRuntimeLike<AgentSessionLike> | undefined;
  private _bindExtensions: ((session: AgentSessionLike) => Promise<void>) | undefined;
  /** Bumped whenever the listened-to session changes: a listener of an earlier one drops what it still hears. */
  private _generation = 0;
  private _creating: Promise<AgentSessionLike | undefined> | undefined;
  private _cwd: string | undefined;
  private readonly _unknownTypes = new Set<string>();
  private _cancelSettleTimer: (() => void) | undefined;
  private _cancelWatchdog: (() => void) | undefined;
  private _lastEventAt = 0;
  private _lastPrompt: { text: string; images?: readonly ImageAttachment[] } | undefined;
  /**
   * Images of steering and follow-up messages still in Pi's queue, by their text: `clearQueue()` gives back
   * only texts, and Cancel must put the images back in the composer too.
   */
  private _queuedImages: { text: string; images: readonly ImageAttachment[] }[] = [];
  private _noModel = false;
  /** What runs of this session did to files (before-contents, Undo). */
  private _files: FileChanges | undefined;
  /** A reload asked for during a run (its note, possibly empty), done when the run settles. */
  private _reloadWhenIdle: string | undefined;
  private readonly _factory: SessionFactory;
  private readonly _log: Logger;
  private readonly _clock: Scheduler;
  private readonly _options: ControllerOptions;

  private readonly _onDidEmit = this._register(new Emitter<readonly WireEvent[]>());
  /** Wire events, in order, right after the host store applied them. */
  readonly onDidEmit = this._onDidEmit.event;
  private readonly _onDidRestoreInput = this._register(new Emitter<RestoredInput>());
  /** Texts and images that did not reach Pi (a cancelled queue, a refused prompt): they go back to the composer. */
  readonly onDidRestoreInput = this._onDidRestoreInput.event;
  private readonly _onDidNotify = this._register(new Emitter<UserNotification>());
  readonly onDidNotify = this._onDidNotify.event;
  private readonly _onDidChangeSession = this._register(new Emitter<SessionInfoView>());
  readonly onDidChangeSession = this._onDidChangeSession.event;
  private readonly _onWillCancel = this._register(new Emitter<void>());
  /** Cancel was asked for (whether or not a run is active): open extension dialogs are answered as dismissed. */
  readonly onWillCancel = this._onWillCancel.event;
  private readonly _onWillDisposeSession = this._register(new Emitter<void>());
  /** The session is about to go (new, resumed, reloaded, forced idle): nothing may wait on it. */
  readonly onWillDisposeSession = this._onWillDisposeSession.event;
  private readonly _onDidSetInput = this._register(new Emitter<string>());
  /** Text the composer should hold instead of what it has (the message "Edit and resend" rewound to). */
  readonly onDidSetInput = this._onDidSetInput.event;
  private readonly _onDidReplay = this._register(new Emitter<void>());
  /**
   * A saved session's history was replayed into `state` in one pass, without events: the main thread gets a
   * snapshot of its newest rows instead (20,000 messages are some 40,000 events) and pages older ones in.
   */
  readonly onDidReplay = this._onDidReplay.event;

  constructor(factory: SessionFactory, log: Logger, clock: Scheduler, options: ControllerOptions) {
    super();
    this._factory = factory;
    this._log = log;
    this._clock = clock;
    this._options = options;
  }

  /** The host's reduced transcript: what a (re)created view starts from. */
  get state(): TranscriptState {
    return this._state;
  }

  get sessionInfo(): SessionInfoView {
    const s = this._session;
    const m = this._noModel ? undefined : s?.model;
    const modelId = m ? `${m.provider}/${m.id}` : undefined;
    return {
      ready: s !== undefined,
      // The model's display name when it has one ("Claude Sonnet 4.5", "Scripted demo model"), else provider/id.
      model: m?.name && m.name !== m.id ? m.name : modelId,
      modelId,
      thinkingLevel: s?.thinkingLevel,
      cwd: this._cwd,
      collapseThinking: this._options.collapseThinking ?? true,
      contextPercent: contextPercent(s),
      ...(s?.sessionName ? { name: s.sessionName } : {}),
      ...(s ? optional('stats', statsView(s)) : {}),
    };
  }

  get isActive(): boolean {
    const r = this._state.run;
    return r.active || r.compaction !== undefined || (this._session?.isStreaming ?? false);
  }

  /**
   * Creates the session on first use (loading Pi); later calls share it. `resume` reopens that session file
   * without replaying it: its transcript is on screen already (a fresh worker after a fault).
   */
  ensureSession(resume?: string): Promise<AgentSessionLike | undefined> {
    if (this._session) return Promise.resolve(this._session);
    this._creating ??= this._create(resume ? { fresh: false, open: resume, quiet: true } : { fresh: false }).finally(() => (this._creating = undefined));
    return this._creating;
  }

  /**
   * Sends a prompt while idle; while a run is active, queues it as steer or follow-up, never the bare prompt.
   * `images` go with it as Pi's `ImageContent` (Pi resizes them for the model); with images the text may be empty.
   */
  async send(text: string, mode: SendMode, images?: readonly ImageAttachment[]): Promise<void> {
    const pics = images?.length ? images.map((i) => ({ type: 'image' as const, data: i.data, mimeType: i.mimeType })) : undefined;
    if (!text.trim() && !pics) return;
    const session = await this.ensureSession();
    if (!session) {
      this._onDidRestoreInput.fire(restored(text, images));
      return;
    }
    if (this.isActive) {
      try {
        // A slash command goes through prompt(), which runs an extension's command at once, even mid-run,
        // and expands a template or skill before queueing it: what Pi does with it in a terminal.
        if (text.trimStart().startsWith('/'))
          await session.prompt(text, { streamingBehavior: mode === 'steer' ? 'steer' : 'followUp', ...(pics ? { images: pics } : {}) });
        else if (mode === 'steer') await session.steer(text, pics);
        else await session.followUp(text, pics);
        if (images?.length) this._queuedImages.push({ text, images });
      } catch (err) {
        this._failedInput(text, err, images);
      }
      return;
    }
    let ready: AgentSessionLike | undefined = session;
    if (this._noModel) {
      // The user may have added a key since: look again before refusing.
      this._disposeSession();
      ready = await this._create({ fresh: false, quiet: true });
      if (!ready || this._noModel) {
        this._reportNoModel(text, images);
        return;
      }
    }
    this._lastPrompt = { text, ...(images?.length ? { images } : {}) };
    try {
      // Resolves when the run settles; provider errors arrive as events, not as a rejection.
      await ready.prompt(text, pics ? { images: pics } : undefined);
    } catch (err) {
      this._failedInput(text, err, images);
    }
  }

  /**
   * Cancels the run: the queue is cleared first (its texts go back to the composer) so queued work cannot
   * start while abort waits, then `abort()`. Partial output stays. Only `agent_settled` ends the run.
   */
  async cancel(): Promise<void> {
    // Before abort(): a tool call waiting on a dialog would otherwise hold the run open.
    this._onWillCancel.fire();
    const session = this._session;
    // Escape in the view and the Escape keybinding can both fire: one cancel is enough.
    if (!session || !this.isActive || this._state.run.cancelling) return;
    this._apply([{ type: 'cancelRequested', at: this._clock.now() }]);
    // Taken first: clearQueue() announces the empty queue, which would prune them.
    const queuedImages = this._queuedImages;
    this._queuedImages = [];
    const { steering, followUp } = session.clearQueue();
    const texts = [...steering, ...followUp];
    if (texts.length) this._onDidRestoreInput.fire({ texts, ...optional('images', imagesFor(texts, queuedImages)) });
    this._armSettleTimer();
    if (session.isCompacting) session.abortCompaction();
    try {
      await session.abort();
    } catch (err) {
      this._log.error(`abort() failed: ${errorText(err)}`);
    }
  }

  /** Forgets the images of queued messages Pi has delivered (their text left the queue). */
  private _pruneQueuedImages(queue: { readonly steering: readonly string[]; readonly followUp: readonly string[] }): void {
    if (!this._queuedImages.length) return;
    const left = [...queue.steering, ...queue.followUp];
    const kept: typeof this._queuedImages = [];
    // Newest first: of two equal texts, the older one was delivered first.
    for (const q of this._queuedImages.toReversed()) {
      const i = left.indexOf(q.text);
      if (i < 0) continue;
      left.splice(i, 1);
      kept.unshift(q);
    }
    this._queuedImages = kept;
  }

  /** Sends the last prompt again; a run that is still active (stalled, say) is cancelled first. */
  async retryLast(): Promise<void> {
    const last = this._lastPrompt;
    if (last === undefined) return;
    if (this.isActive) {
      await this.cancel();
      await this._whenIdle(this._options.settleTimeoutMs);
      // Still not settled: the settle-timeout notice offers Force idle; sending now would only queue.
      if (this.isActive) return;
    }
    await this.send(last.text, 'prompt', last.images);
  }

  /** Resolves once no run is active, or after `timeoutMs`. */
  private _whenIdle(timeoutMs: number): Promise<void> {
    if (!this.isActive) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        sub.dispose();
        cancelTimer();
        resolve();
      };
      const sub = this.onDidEmit(() => {
        if (!this.isActive) done();
      });
      const cancelTimer = this._clock.setTimer(done, timeoutMs);
    });
  }

  /**
   * Starts an empty session for the workspace (the old one stays on disk). A Pi extension's `ctx.newSession`
   * options (parent file, setup, `withSession`) go to Pi's runtime as they are.
   */
  async newSession(options?: NewSessionOptions): Promise<void> {
    if (await this._withRuntime()) await this._replace('start a new session', (rt) => rt.newSession(options));
    else await this._switchSession({ fresh: true });
  }

  /** Switches to a saved session file and shows its history (a Pi extension's `withSession` runs in it). */
  async resumeSession(file: string, options?: SwitchSessionOptions): Promise<void> {
    if (file === this.sessionFile) return;
    // A session file names its own folder; it runs in this workspace, with this workspace's trust.
    if (await this._withRuntime()) await this._replace('open the session', (rt) => rt.switchSession(file, { ...options, ...this._inWorkspace() }));
    else await this._switchSession({ fresh: false, open: file });
  }

  /** Copies a session file (JSONL) into the workspace's sessions and opens it. */
  async importSession(file: string): Promise<void> {
    const session = await this._withRuntime();
    if (!session) return this._unsupported('Import');
    const dir = (session as { sessionManager?: { getSessionDir?(): string } }).sessionManager?.getSessionDir?.();
    await this._replace('import the session', (rt) => importLeavingNoCopy(dir, () => rt.importFromJsonl(file, this._inWorkspace().cwdOverride)));
  }

  /**
   * "Fork from here": a new session file holding the conversation up to the end of the exchange that the
   * user message (named as in `userEntryId`) starts. The original file is untouched.
   */
  async forkHere(fromEnd: number, text: string): Promise<void> {
    const session = await this._withRuntime();
    const id = session?.sessionManager ? userEntryId(session as SessionOps, fromEnd, text) : undefined;
    if (!session || !id) return this._unsupported('Fork');
    const at = exchangeEndId(session as SessionOps, id);
    await this._replace('fork the session', (rt) => rt.fork(at, { position: 'at' }));
  }

  /**
   * A Pi extension's `ctx.fork(entryId)`: a new session file with the branch up to that entry (`position:
   * 'before'`, Pi's default, leaves the entry itself out; a user message's text then goes to the composer).
   * The extension's `withSession` runs in the new session, as Pi's runtime does it.
   */
  async forkAt(entryId: string, options?: ForkOptions): Promise<void> {
    if (!(await this._withRuntime())) return this._unsupported('Fork');
    let selected: string | undefined;
    await this._replace('fork the session', async (rt) => {
      const result = await rt.fork(entryId, options);
      selected = result.cancelled ? undefined : result.selectedText;
      return result;
    });
    if (selected !== undefined) this._onDidSetInput.fire(selected);
  }

  /**
   * "Edit and resend": moves the session's leaf to just before that user message (a new branch in the same
   * file; the old one stays in the tree) and puts its text in the composer.
   */
  async editResend(fromEnd: number, text: string): Promise<void> {
    const session = await this.ensureSession();
    const id = session?.sessionManager ? userEntryId(session as SessionOps, fromEnd, text) : undefined;
    if (!session || !id) return this._unsupported('Edit and resend');
    await this.navigateTree(id);
  }

  /**
   * Moves to an entry of the session's tree (`/tree`, or a Pi extension's `ctx.navigateTree` with its
   * options: a summary of the branch left, a label); a user message's text goes to the composer.
   */
  async navigateTree(entryId: string, options?: NavigateTreeOptions): Promise<void> {
    const session = await this.ensureSession();
    if (!session?.navigateTree) return this._unsupported('Moving in the session tree');
    if (this.isActive) {
      await this.cancel();
      await this._whenIdle(this._options.settleTimeoutMs);
    }
    try {
      const result = await session.navigateTree(entryId, options);
      if (result.cancelled) return;
      if (session !== this._session) return;
      this._showSession(session);
      if (result.editorText !== undefined) this._onDidSetInput.fire(result.editorText);
    } catch (err) {
      this._notice('warning', `Could not move in the session tree: ${errorText(err)}`);
    }
  }

  /** The open session's tree, for the view's tree mode. */
  tree(): TreeNodeView[] {
    const s = this._session;
    return s?.sessionManager ? treeView(s as SessionOps) : [];
  }

  /** Names the open session (`/name`); the header and the list show it. */
  async rename(name: string): Promise<void> {
    const session = await this.ensureSession();
    if (!session?.setSessionName) return this._unsupported('Naming a session');
    session.setSessionName(name.trim());
    this._onDidChangeSession.fire(this.sessionInfo);
  }

  /** The session's runtime once the session is open, or undefined (a test's plain session). */
  private async _withRuntime(): Promise<AgentSessionLike | undefined> {
    const session = await this.ensureSession();
    return this._runtime ? session : undefined;
  }

  private _unsupported(what: string): void {
    this._notice('warning', `${what} is not available: no Pi session is open.`);
  }

  /**
   * Replaces the session through the runtime. A run is cancelled first; then the old session is no longer
   * listened to, so nothing it emits while the runtime tears it down (its abort, its shutdown) reaches the
   * view. The runtime hands the new session to `_rebind`, the only place a replacement is taken up.
   */
  private async _replace(what: string, op: (rt: SessionRuntimeLike<AgentSessionLike>) => Promise<{ cancelled: boolean }>): Promise<void> {
    const runtime = this._runtime;
    if (!runtime) return;
    if (this.isActive) {
      await this.cancel();
      await this._whenIdle(this._options.settleTimeoutMs);
    }
    const before = this._session;
    const file = before?.sessionFile;
    this._detach();
    try {
      const result = await op(runtime);
      // A Pi extension vetoed it (session_before_switch / _fork): the old session is still the one.
      if (result.cancelled && runtime.session === before && before) this._bind(before);
    } catch (err) {
      this._log.error(`Could not ${what}: ${errorText(err)}`);
      this._notice('error', `Could not ${what}: ${errorText(err)}`);
      if (this._runtime !== runtime) return;
      // The runtime may have torn the old session down before failing: open its file again from disk.
      this._disposeSession();
      await this._create(file ? { fresh: false, open: file } : { fresh: false });
    }
  }

  /** Pi's `cwdOverride` for a session opened from a file: the workspace, whatever folder the file's header names. */
  private _inWorkspace(): { cwdOverride?: string } {
    return this._cwd ? { cwdOverride: this._cwd } : {};
  }

  /** The runtime replaced the session: listen to the new one only, and show its branch from scratch. */
  private readonly _rebind = async (session: AgentSessionLike): Promise<void> => {
    this._bind(session);
    this._showSession(session);
    // A replacement session (new, resumed, forked) gets the panel's extension UI too.
    await this._bindExtensionsTo(session);
  };

  /** Binds Pi's extensions of `session` to the panel's UI (trusted workspaces only); a failure is shown, not thrown. */
  private async _bindExtensionsTo(session: AgentSessionLike): Promise<void> {
    if (!this._bindExtensions) return;
    try {
      await this._bindExtensions(session);
    } catch (err) {
      this._log.error(`Binding Pi's extensions failed: ${errorText(err)}`);
      this._notice('error', `Pi's extensions could not start: ${errorText(err)}`);
    }
  }

  /** Resets the host store (and so the view) to `session`'s current branch. */
  private _showSession(session: AgentSessionLike): void {
    this._clearSettleTimer();
    this._clearWatchdog();
    this._apply([{ type: 'reset' }]);
    this._replay(session);
    this._onDidChangeSession.fire(this.sessionInfo);
  }

  /** Adds `session`'s history (and name) to the transcript; false when it has neither. */
  private _replay(session: AgentSessionLike): boolean {
    const messages = session.messages;
    const name = session.sessionName;
    if (!messages.length && !name) return false;
    let skipped = 0;
    let state = replayOnto(this._state, messages, this._clock.now(), undefined, (index, err) => {
      skipped++;
      this._log.warn(`Message ${index} of the session could not be shown and was skipped: ${errorText(err)}`);
    });
    // A crafted file's name can be anything: only text names the session.
    if (typeof name === 'string' && name) state = reduceOne(state, { type: 'sessionInfo', name });
    this._state = state;
    if (skipped)
      this._notice(
        'warning',
        `${skipped} message${skipped === 1 ? '' : 's'} of this session could not be shown (malformed) and ${skipped === 1 ? 'was' : 'were'} skipped.`,
      );
    this._onDidReplay.fire();
    return true;
  }

  /** Listens to `session` and nothing else. */
  private _bind(session: AgentSessionLike): void {
    this._detach();
    const generation = this._generation;
    this._session = session;
    // Subscribe before anything can prompt; the listener never throws into Pi.
    this._unsubscribe = session.subscribe((event) => {
      if (generation === this._generation) this._onPiEvent(event);
    });
  }

  /** Stops listening to the current session; anything its listener still hears is dropped. */
  private _detach(): void {
    this._generation++;
    this._unsubscribe?.();
    this._unsubscribe = undefined;
  }

  /** Cancels what runs, clears the transcript and opens another session in its place. */
  private async _switchSession(options: { fresh: boolean; open?: string }): Promise<void> {
    if (this.isActive) await this.cancel();
    this._disposeSession();
    this._apply([{ type: 'reset' }]);
    await this._create(options);
  }

  /**
   * Re-opens the same session so new settings or workspace trust apply (tools, agent directory). A run in
   * progress is left alone: the reload happens when it settles, and `note` then tells the user.
   */
  async reload(note?: string): Promise<boolean> {
    if (!this._session) return false;
    if (this.isActive) {
      this._reloadWhenIdle = note ?? '';
      return false;
    }
    return this._reopen(note);
  }

  private async _reopen(note: string | undefined): Promise<boolean> {
    this._reloadWhenIdle = undefined;
    if (!this._session) return false;
    const file = this._session.sessionFile;
    this._disposeSession();
    // A transcript on screen is this session's already: reopen it without replaying history.
    const quiet = this._state.messages.length > 0;
    await this._create(file ? { fresh: false, open: file, quiet } : { fresh: false, quiet });
    if (note) this._notice('info', note);
    return true;
  }

  /** The file the session is saved in, so a fresh worker can resume it. */
  get sessionFile(): string | undefined {
    return this._session?.sessionFile;
  }

  /** The live session, for commands that act on it directly (model, thinking level, export). */
  get session(): AgentSessionLike | undefined {
    return this._session;
  }

  /** Tells views that the model or thinking level changed. */
  refreshSessionInfo(): void {
    this._onDidChangeSession.fire(this.sessionInfo);
  }

  /**
   * Gives up waiting for `agent_settled`: drops the session and opens the same one again from disk, so
   * the persisted transcript is kept.
   */
  async forceIdle(): Promise<void> {
    this._log.warn('Force idle: re-creating the session without waiting for agent_settled.');
    const now = this._clock.now();
    this._disposeSession();
    this._apply([{ type: 'settled', aborted: true, at: now }, { type: 'reset' }]);
    await this._create({ fresh: false });
  }

  /** Runs manual compaction; its progress arrives as compaction events. */
  async compact(customInstructions?: string): Promise<void> {
    const session = await this.ensureSession();
    if (!session) return;
    if (this.isActive) {
      this._onDidNotify.fire({ level: 'info', message: 'Pi is busy. Compact the conversation after the run ends.' });
      return;
    }
    try {
      await session.compact(customInstructions || undefined);
    } catch (err) {
      const message = errorText(err);
      this._notice('warning', `Compaction did not run: ${message}`);
      this._onDidNotify.fire({ level: 'warning', message: `Pi: compaction did not run: ${message}` });
    }
  }

  override dispose(): void {
    this._disposeSession();
    super.dispose();
  }

  /**
   * Creates a session and subscribes to it. `quiet` skips replaying its history and its warnings, for a
   * session whose transcript is already on screen.
   */
  private async _create({ fresh, open, quiet = false }: { fresh: boolean; open?: string; quiet?: boolean }): Promise<AgentSessionLike | undefined> {
    try {
      const created = await this._factory(open ? { fresh, open } : { fresh });
      if (this.isDisposed) {
        created.session.dispose();
        return undefined;
      }
      this._cwd = created.cwd;
      this._noModel = created.noModel === true;
      this._files = new FileChanges(created.cwd, this._options.storageDir);
      // Subscribe before anything can prompt; the listener never throws into Pi.
      this._bind(created.session);
      this._runtime = created.runtime;
      this._bindExtensions = created.bind;
      created.runtime?.setRebindSession(this._rebind);
      if (!quiet) {
        const replayed = this._replay(created.session);
        // The last run's Changes row, kept across a window reload, follows its history.
        const last = replayed ? this._files.lastFor(created.session.sessionFile) : undefined;
        if (last) this._apply([{ type: 'changes', ...last }]);
        if (created.warning) this._notice('warning', created.warning);
        if (this._noModel) this._reportNoModel(undefined);
      }
      await this._bindExtensionsTo(created.session);
      this._onDidChangeSession.fire(this.sessionInfo);
      return created.session;
    } catch (err) {
      const described = describeSessionError(err);
      this._log.error(`Could not start a Pi session: ${errorText(err)}`);
      this._notice('error', described.message, described.code);
      this._onDidNotify.fire({ level: 'error', message: described.message, code: described.code });
      return undefined;
    }
  }

  private _disposeSession(): void {
    if (this._session) this._onWillDisposeSession.fire();
    this._clearSettleTimer();
    this._clearWatchdog();
    this._detach();
    const s = this._session;
    const runtime = this._runtime;
    this._session = undefined;
    this._runtime = undefined;
    try {
      if (runtime) {
        runtime.setRebindSession(undefined);
        // Aborts, tells Pi's extensions the session shuts down, then disposes it.
        runtime.dispose().catch((err: unknown) => this._log.error(`dispose() failed: ${errorText(err)}`));
      } else s?.dispose();
    } catch (err) {
      this._log.error(`dispose() failed: ${errorText(err)}`);
    }
  }

  private readonly _onPiEvent = (event: AgentSessionEvent): void => {
    try {
      // Before the tool runs: the file's content as the run found it.
      if (event.type === 'tool_execution_start') this._fileChanges(() => this._files?.toolStarted(event.toolName, event.args));
      this._lastEventAt = this._clock.now();
      const wire = project(event, {
        state: this._state,
        now: this._lastEventAt,
        onUnknown: (type) => {
          if (this._unknownTypes.has(type)) return;
          this._unknownTypes.add(type);
          this._log.warn(`Ignoring Pi event of unknown type "${type}".`);
        },
      });
      if (wire.length) this._apply(wire);
      if (event.type === 'queue_update') this._pruneQueuedImages(event);
      if (event.type === 'agent_settled') {
        this._clearSettleTimer();
        const changes = this._fileChanges(() => this._files?.runSettled(this._session?.sessionFile));
        if (changes) this._apply([{ type: 'changes', ...changes }]);
        if (this._reloadWhenIdle !== undefined) {
          const note = this._reloadWhenIdle;
          this._clock.setTimer(() => void this._reopen(note), 0);
        }
        if (!event.aborted && this._state.run.outcome?.kind === 'error') this._reportProviderError(this._state.run.outcome.message);
      }
      // The model, its thinking level or how full its context is may have changed. An extension that
      // switches the model (`pi.setModel`) leaves only a `model_change` entry behind.
      if (
        event.type === 'thinking_level_changed' ||
        event.type === 'agent_settled' ||
        event.type === 'compaction_end' ||
        (event.type === 'entry_appended' && event.entry.type === 'model_change')
      )
        this._onDidChangeSession.fire(this.sessionInfo);
      this._armWatchdog();
    } catch (err) {
      this._log.error(`Pi event "${(event as { type?: string }).type}" could not be shown: ${errorText(err)}`);
    }
  };

  /** A file's content before the current or last run changed it (Open Diff's left side). */
  fileBefore(p: string): Before | undefined {
    return this._files?.before(p);
  }

  /** Undoes the last run's change to `p`, or to all its files; the Changes row shows the result. */
  undo(p: string | undefined, runId?: string): { ok: boolean; message: string } {
    const files = this._files;
    if (!files) return { ok: false, message: 'No session is open.' };
    // Only the last run's before-contents are kept: an older row's Undo would undo the wrong run.
    if (runId !== undefined && runId !== files.view()?.runId) return { ok: false, message: "Only the last run's changes can be undone." };
    const result = p === undefined ? files.undoAll() : files.undo(p);
    const view = files.view();
    if (view) this._apply([{ type: 'changes', ...view }]);
    return result;
  }

  /** File bookkeeping must never break the event stream: a failure is logged. */
  private _fileChanges<T>(f: () => T): T | undefined {
    try {
      return f();
    } catch (err) {
      this._log.error(`Tracking file changes failed: ${errorText(err)}`);
      return undefined;
    }
  }

  /** Wire events from outside Pi's event stream (its extensions' UI), in order with Pi's own. */
  emitExternal(events: readonly WireEvent[]): void {
    if (!this.isDisposed && events.length) this._apply(events);
  }

  private _apply(events: readonly WireEvent[]): void {
    for (const ev of events) this._state = reduceOne(this._state, ev);
    this._onDidEmit.fire(events);
  }

  private _notice(level: NoticeLevel, text: string, code?: NoticeCode): void {
    this._apply([{ type: 'noticeMessage', level, text, code }]);
  }

  private _reportNoModel(text: string | undefined, images?: readonly ImageAttachment[]): void {
    const message =
      'No model is configured for Pi. Add a provider key (run `pi` in a terminal and use /login, set an API key ' +
      'environment variable such as ANTHROPIC_API_KEY, or edit auth.json / models.json in the Pi agent directory), ' +
      'then try again.';
    this._notice('error', message, 'noModel');
    this._onDidNotify.fire({ level: 'error', message: `Pi: ${message}`, code: 'noModel' });
    if (text !== undefined) this._onDidRestoreInput.fire(restored(text, images));
  }

  /** A run that ended on a provider error (retries used up, or not retryable): say so and offer Retry. */
  private _reportProviderError(message: string | undefined): void {
    const described = describeSessionError(new Error(message ?? 'unknown error'));
    const hint = described.code === 'noKey' || described.code === 'noModel' ? ` ${described.message}` : '';
    // The errored message above already shows the provider's words; this says what happened and what to do.
    const retried = this._state.run.retryFailure ? ' (automatic retries used up)' : '';
    this._notice('error', `Pi stopped after a provider error${retried}.${hint} Retry sends your last message again.`, 'providerError');
  }

  private _failedInput(text: string, err: unknown, images?: readonly ImageAttachment[]): void {
    const described = describeSessionError(err);
    this._log.error(`Prompt refused: ${errorText(err)}`);
    this._notice('error', described.message, described.code ?? 'promptFailed');
    this._onDidNotify.fire({ level: 'error', message: `Pi: ${described.message}`, code: described.code });
    this._onDidRestoreInput.fire(restored(text, images));
  }

  private _armSettleTimer(): void {
    this._clearSettleTimer();
    this._cancelSettleTimer = this._clock.setTimer(() => {
      this._cancelSettleTimer = undefined;
      if (!this._state.run.active && !this._state.run.compaction) return;
      const secs = Math.round(this._options.settleTimeoutMs / 1000);
      this._notice(
        'warning',
        `Pi has not confirmed the cancel after ${secs} s. You can force the panel back to idle; the saved conversation is kept.`,
        'settleTimeout',
      );
    }, this._options.settleTimeoutMs);
  }

  private _clearSettleTimer(): void {
    this._cancelSettleTimer?.();
    this._cancelSettleTimer = undefined;
  }

  private _armWatchdog(): void {
    this._clearWatchdog();
    if (!this._options.noResponseMs || !this._state.run.active) return;
    this._cancelWatchdog = this._clock.setTimer(() => {
      this._cancelWatchdog = undefined;
      if (!this._state.run.active) return;
      // A tool may legitimately run quietly for a long time (a build, `sleep 60`), and a dialog waits for the
      // user, not for Pi: only a silent model is stalled.
      if (this._state.run.dialogs || Object.values(this._state.tools).some((t) => t.status === 'running')) this._armWatchdog();
      else this._apply([{ type: 'stalled', at: this._clock.now(), since: this._lastEventAt }]);
    }, this._options.noResponseMs);
  }

  private _clearWatchdog(): void {
    this._cancelWatchdog?.();
    this._cancelWatchdog = undefined;
  }
}

function contextPercent(s: AgentSessionLike | undefined): number | undefined {
  try {
    const p = s?.getContextUsage?.()?.percent;
    return typeof p === 'number' && Number.isFinite(p) ? Math.round(p) : undefined;
  } catch {
    return undefined;
  }
}

/** The images queued with `texts` (each text's oldest record first); undefined when there are none. */
function imagesFor(texts: readonly string[], queued: readonly { text: string; images: readonly ImageAttachment[] }[]): ImageAttachment[] | undefined {
  const left = [...queued];
  const out: ImageAttachment[] = [];
  for (const text of texts) {
    const i = left.findIndex((q) => q.text === text);
    if (i >= 0) out.push(...left.splice(i, 1)[0]!.images);
  }
  return out.length ? out : undefined;
}

/** One text (and its images) going back to the composer. */
function restored(text: string, images: readonly ImageAttachment[] | undefined): RestoredInput {
  return { texts: [text], ...(images?.length ? { images } : {}) };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
