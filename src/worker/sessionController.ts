/**
 * Owns the Pi session in the worker thread: its lifecycle (create on first use, subscribe before any prompt,
 * reload, force idle, dispose), the reduced transcript the projection reads, and Pi's events. Prompting,
 * branching, the run's watchdog and its file changes are parts of their own it composes. No `vscode` here, so
 * unit tests drive it with a `FakeSession`.
 */

import type { AgentSessionEvent } from '@earendil-works/pi-coding-agent';
import type { Scheduler } from '../shared/batcher.ts';
import { Disposable, Emitter } from '../shared/disposable.ts';
import type { ImageAttachment } from '../shared/images.ts';
import { project } from './projection.ts';
import type { SendMode, SessionInfoView } from '../shared/wire/webviewProtocol.ts';
import type { CommandHandlers, CommandName } from '../shared/wire/commands.ts';
import type { WireEvent } from '../shared/wire/events.ts';
import { asSent, initialTranscript, reduceOne } from '../shared/transcript/reduce.ts';
import { type TranscriptState } from '../shared/transcript/rows.ts';
import { t } from '../shared/l10n.ts';
import type { Logger, RestoredInput, UserNotification } from '../shared/wire/workerProtocol.ts';
import { errorText, type AgentSessionLike, type ControllerOptions, type SessionFactory } from './agentSession.ts';
import { Branching } from './branching.ts';
import { SessionCheckpoints } from './checkpoints/sessionCheckpoints.ts';
import { Prompting } from './prompting.ts';
import { replayOnto } from './replay.ts';
import { Restoring, type PanelQuestion } from './restoring.ts';
import { RunFiles } from './runFiles.ts';
import { RunWatchdog } from './runWatchdog.ts';
import { sessionInfoView } from './sessionInfo.ts';
import { SessionNotices } from './sessionNotices.ts';
import { RunReview } from './runReview.ts';
import { SessionListener } from './sessionListener.ts';
import { within } from './within.ts';
import { sessionIdOf } from './sessionEntries.ts';
import type { SessionRuntimeLike } from './sessionRuntime.ts';
import { PendingImport } from './sessionFiles.ts';

/** One Pi session and its transcript in the worker; `main.ts` maps the main thread's requests onto it. */
export class SessionController extends Disposable {
  private _state: TranscriptState = initialTranscript;
  private _session: AgentSessionLike | undefined;
  private _runtime: SessionRuntimeLike<AgentSessionLike> | undefined;
  private _bindExtensions: ((session: AgentSessionLike) => Promise<void>) | undefined;
  private readonly _listener = new SessionListener((event) => this._onPiEvent(event));
  private _creating: Promise<AgentSessionLike | undefined> | undefined;
  /** An import under way, recorded in the chat's storage until it finished (see `PendingImport`). */
  private readonly _pendingImport: PendingImport;
  /** Whether this worker has looked for a copy an import left when the worker before died during it. */
  private _leftoverChecked = false;
  private _cwd: string | undefined;
  private readonly _unknownTypes = new Set<string>();
  private _noModel = false;
  /** A reload asked for during a run (its note, possibly empty), done when the run settles. */
  private _reloadWhenIdle: string | undefined;
  private readonly _factory: SessionFactory;
  private readonly _log: Logger;
  private readonly _clock: Scheduler;
  private readonly _options: ControllerOptions;
  private readonly _notices: SessionNotices;
  private readonly _watchdog: RunWatchdog;
  private readonly _files: RunFiles;
  /** Prompts, the queue, Cancel, Retry and compaction. */
  readonly prompting: Prompting;
  /** Session replacements and tree moves. */
  readonly branching: Branching;
  /** A run's file changes looked back at: Open Diff, Undo, Clear Checkpoints. */
  readonly review: RunReview;
  private readonly _checkpoints: SessionCheckpoints;
  private readonly _restoring: Restoring;
  private _ask: ((question: PanelQuestion) => Promise<string | undefined>) | undefined;
  /** The commands of the table (`COMMANDS`) the session's parts answer (`main.ts` adds those of the extension UI and the shell). */
  readonly commands: CommandHandlers<Exclude<CommandName, 'retryLast' | 'bash' | 'composerText'>>;

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
    // The transcript every part reads and writes, and the session context each takes what it needs of.
    const transcript = { state: () => this._state, apply: (events: readonly WireEvent[]) => this._apply(events) };
    const context = { ...transcript, session: () => this._session, isActive: () => this.isActive, ensureSession: () => this.ensureSession() };
    this._notices = new SessionNotices(
      { ...transcript, notify: (n) => this._onDidNotify.fire(n), restore: (input) => this._onDidRestoreInput.fire(input) },
      log,
    );
    this._watchdog = new RunWatchdog(transcript, clock, options);
    this._files = new RunFiles(transcript.apply, log, options);
    this._checkpoints = new SessionCheckpoints(log, (message) => this._notices.notice('warning', message), this._files.outside);
    this.prompting = new Prompting(
      {
        ...context,
        noModel: () => this._noModel,
        // After the tree moves under way: a prompt sent during "Edit and resend" goes on the rewound branch.
        ensureSession: async () => {
          await this.branching.settled();
          return this.ensureSession();
        },
        reopenQuietly: () => {
          this._disposeSession();
          return this._create({ fresh: false, quiet: true });
        },
        onDidEmit: this.onDidEmit,
        willCancel: () => this._onWillCancel.fire(),
        beforePrompt: (session) => this._checkpoints.beforePrompt(sessionIdOf(session), session.sessionManager?.getLeafId() ?? undefined),
        promptDropped: () => this._checkpoints.promptDropped(),
      },
      this._notices,
      this._watchdog,
      log,
      clock,
      options,
    );
    this._pendingImport = new PendingImport(() => this._options.storageDir);
    this.branching = new Branching(
      {
        ...context,
        runtime: () => this._runtime,
        sessionFile: () => this.sessionFile,
        cwd: () => this._cwd,
        cancelAndWait: () => this.prompting.cancelAndWait(),
        bind: (session) => this._bind(session),
        detach: () => this._listener.stop(),
        reopenFrom: async (file) => {
          this._disposeSession();
          await this._create(file ? { fresh: false, open: file } : { fresh: false });
        },
        switchSession: (o) => this._switchSession(o),
        showSession: (session) => this._showSession(session),
        setInput: (text) => this._onDidSetInput.fire(text),
        sessionChanged: () => this.refreshSessionInfo(),
      },
      this._notices,
      this._pendingImport,
    );
    this._restoring = new Restoring(
      {
        ...context,
        ask: (question) => (this._ask ? this._ask(question) : Promise.resolve(undefined)),
        navigateTree: (entryId) => this.branching.navigateTree(entryId),
        notice: (level, text, code) => this._notices.notice(level, text, code),
        showChanges: (row) => this._apply([{ type: 'changes', ...row }]),
      },
      this._checkpoints,
    );
    this.review = new RunReview(this._checkpoints, this._files, this._restoring, log, (row) => this._apply([{ type: 'changes', ...row }]));
    this.commands = { ...this.branching.commands, ...this._restoring.commands };
  }

  /** How the panel's own questions (the restore card) are asked: the worker's dialog cards. */
  setAsker(ask: (question: PanelQuestion) => Promise<string | undefined>): void {
    this._ask = ask;
  }

  /** The host's reduced transcript: what a (re)created view starts from. */
  get state(): TranscriptState {
    return this._state;
  }

  get sessionInfo(): SessionInfoView {
    return sessionInfoView(this._session, { noModel: this._noModel, cwd: this._cwd, collapseThinking: this._options.collapseThinking ?? true });
  }

  get isActive(): boolean {
    const r = this._state.run;
    return r.active || r.compaction !== undefined || (this._session?.isStreaming ?? false);
  }

  /** The file the session is saved in, so a fresh worker can resume it. */
  get sessionFile(): string | undefined {
    return this._session?.sessionFile;
  }

  /** The live session, for commands that act on it directly (model, thinking level, export). */
  get session(): AgentSessionLike | undefined {
    return this._session;
  }

  /**
   * Creates the session on first use (loading Pi); later calls share it. `resume` reopens that session file
   * without replaying it: its transcript is on screen already (a fresh worker after a fault). Without it, `first`
   * opens a saved session (`open`, shown) or an empty one (`fresh`); else the most recent continues.
   */
  ensureSession(resume?: string, first: { open?: string; fresh?: boolean } = {}): Promise<AgentSessionLike | undefined> {
    if (this._session) return Promise.resolve(this._session);
    if (this._creating) return this._creating;
    const removed = this._removeLeftoverImport();
    // The copy the worker before was showing is gone: the transcript on screen is not a session any more.
    if (resume && removed.includes(resume)) {
      resume = undefined;
      this._apply([{ type: 'reset' }]);
    }
    if (first.open && removed.includes(first.open)) first = {};
    const how = resume ? { fresh: false, open: resume, quiet: true } : first.open ? { fresh: false, open: first.open } : { fresh: first.fresh === true };
    this._creating = this._create(how)
      .then((session) => {
        for (const file of removed)
          this._notices.notice(
            'warning',
            t('The imported session {0} was removed: Pi stopped before it had opened it. Import it again to retry.', file.split(/[\\/]/).pop() ?? file),
          );
        return session;
      })
      .finally(() => (this._creating = undefined));
    return this._creating;
  }

  /**
   * Before this worker's first session opens: removes the copy an import left when the worker before died during it
   * (a crafted session, a Pi extension ending the process, a replay stopped as hung), so it is never resumed.
   */
  private _removeLeftoverImport(): string[] {
    if (this._leftoverChecked) return [];
    this._leftoverChecked = true;
    try {
      return this._pendingImport.removeLeftover();
    } catch (err) {
      this._log.warn(`Could not remove the copy of an unfinished import: ${errorText(err)}`);
      return [];
    }
  }

  /** See `Prompting.send`. */
  send(text: string, mode: SendMode, images?: readonly ImageAttachment[]): Promise<void> {
    return this.prompting.send(text, mode, images);
  }

  /** See `Prompting.cancel`. */
  cancel(): Promise<void> {
    return this.prompting.cancel();
  }

  /**
   * A Pi extension called `ctx.shutdown()`: once the session is idle it ends, as `pi` would exit, and an
   * empty one takes its place (the panel stays open), with a notice saying why.
   */
  async endSession(): Promise<void> {
    await this._session?.waitForIdle?.();
    if (this.isDisposed) return;
    await this.branching.newSession();
    this._notices.notice('info', 'A Pi extension ended the session (ctx.shutdown()), where `pi` would exit. This is a new session.');
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

  /** Wire events from outside Pi's event stream (its extensions' UI), in order with Pi's own. */
  emitExternal(events: readonly WireEvent[]): void {
    if (!this.isDisposed && events.length) this._apply(events);
  }

  /**
   * Stops on purpose, keeping the turn (the worker is about to end: a reload, Restart, closing the window): the
   * queue goes back to the composer and the run is aborted, so Pi writes the partial reply (its text and tool
   * results) as aborted; after it settles (or `settleMs`), Pi's extensions hear `session_shutdown` (at most
   * `extensionsMs`). The only place a stopping worker emits it.
   */
  async shutdown(settleMs: number, extensionsMs: number): Promise<void> {
    if (this._creating) await within(this._clock, this._creating, settleMs);
    if (this.isActive) await this.prompting.cancelAndWait(settleMs);
    const runtime = this._runtime;
    const session = this._session;
    if (session) this._onWillDisposeSession.fire();
    this._watchdog.clear();
    this._listener.stop();
    this._session = undefined;
    this._runtime = undefined;
    try {
      runtime?.setRebindSession(undefined);
      // Pi's own exit path: abort (a no-op once settled), `session_shutdown` with reason "quit", dispose.
      if (runtime) await within(this._clock, runtime.dispose(), extensionsMs);
      else session?.dispose();
    } catch (err) {
      this._log.error(`Shutting the session down failed: ${errorText(err)}`);
    }
  }

  override dispose(): void {
    this._disposeSession();
    super.dispose();
  }

  private async _reopen(note: string | undefined): Promise<boolean> {
    this._reloadWhenIdle = undefined;
    if (!this._session) return false;
    const file = this._session.sessionFile;
    this._disposeSession();
    // A transcript on screen is this session's already: reopen it without replaying history.
    const quiet = this._state.messages.length > 0;
    await this._create(file ? { fresh: false, open: file, quiet } : { fresh: false, quiet });
    if (note) this._notices.notice('info', note);
    return true;
  }

  /** Cancels what runs, clears the transcript and opens another session in its place. */
  private async _switchSession(options: { fresh: boolean; open?: string }): Promise<void> {
    if (this.isActive) await this.cancel();
    this._disposeSession();
    this._apply([{ type: 'reset' }]);
    await this._create(options);
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
      this._files.open(created.cwd);
      this._checkpoints.open(created.cwd, this._options.storageDir, this._options.checkpoints === true);
      // Subscribe before anything can prompt; the listener never throws into Pi.
      this._bind(created.session);
      this._runtime = created.runtime;
      this._bindExtensions = created.bind;
      created.runtime?.setRebindSession(this._rebind);
      if (!quiet) {
        // The last run's Changes row, kept across a window reload, follows its history.
        if (this._replay(created.session)) this.review.showLast(created.session, () => this._session);
        if (created.warning) this._notices.notice('warning', created.warning);
        if (this._noModel) this._notices.noModel(undefined);
      }
      await this._bindExtensionsTo(created.session);
      this._onDidChangeSession.fire(this.sessionInfo);
      return created.session;
    } catch (err) {
      this._notices.sessionFailed(err);
      return undefined;
    }
  }

  /** Listens to `session` and nothing else; the listener never throws into Pi. */
  private _bind(session: AgentSessionLike): void {
    this._session = session;
    this._listener.listen(session);
  }

  /** The runtime replaced the session: listen to the new one only, and show its branch from scratch. */
  private readonly _rebind = async (session: AgentSessionLike): Promise<void> => {
    this._bind(session);
    this._showSession(session);
    this.review.showLast(session, () => this._session);
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
      this._notices.notice('error', `Pi's extensions could not start: ${errorText(err)}`);
    }
  }

  /** Resets the host store (and so the view) to `session`'s current branch. */
  private _showSession(session: AgentSessionLike): void {
    this._watchdog.clear();
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
      this._notices.notice(
        'warning',
        `${skipped} message${skipped === 1 ? '' : 's'} of this session could not be shown (malformed) and ${skipped === 1 ? 'was' : 'were'} skipped.`,
      );
    this._onDidReplay.fire();
    return true;
  }

  private _disposeSession(): void {
    if (this._session) this._onWillDisposeSession.fire();
    this._watchdog.clear();
    this._listener.stop();
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
      this.review.heard(event, this._session);
      const wire = project(event, {
        state: this._state,
        now: this._watchdog.heard(),
        onUnknown: (type) => {
          if (this._unknownTypes.has(type)) return;
          this._unknownTypes.add(type);
          this._log.warn(`Ignoring Pi event of unknown type "${type}".`);
        },
      });
      if (wire.length) this._apply(wire);
      if (event.type === 'queue_update') this.prompting.pruneQueuedImages(event);
      if (event.type === 'agent_settled') this._settled(event.aborted);
      // The model, its thinking level or how full its context is may have changed. An extension that
      // switches the model (`pi.setModel`) leaves only a `model_change` entry behind.
      if (
        event.type === 'thinking_level_changed' ||
        event.type === 'agent_settled' ||
        event.type === 'compaction_end' ||
        (event.type === 'entry_appended' && event.entry.type === 'model_change')
      )
        this._onDidChangeSession.fire(this.sessionInfo);
      this._watchdog.armSilence();
    } catch (err) {
      this._log.error(`Pi event "${event.type}" could not be shown: ${errorText(err)}`);
    }
  };

  /** A run settled: its file changes, a reload it held back, a provider error it ended on. */
  private _settled(aborted: boolean): void {
    this._watchdog.clearSettle();
    const session = this._session;
    this.review.settled(session, () => !this.isDisposed && session === this._session);
    if (this._reloadWhenIdle !== undefined) {
      const note = this._reloadWhenIdle;
      this._clock.setTimer(() => void this._reopen(note), 0);
    }
    if (!aborted && this._state.run.outcome?.kind === 'error') this._notices.providerError(this._state.run.outcome.message);
  }

  private _apply(events: readonly WireEvent[]): void {
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
}
