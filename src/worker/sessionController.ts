/**
 * Owns the Pi session in the worker thread, a facade over its parts: opening, switching and closing it
 * (SessionLifecycle), the reduced transcript the projection reads (SessionTranscript), Pi's events
 * (SessionEvents), prompting, branching, restoring, the run's watchdog and its file changes. No `vscode` here,
 * so unit tests drive it with a `FakeSession`.
 */

import type { Scheduler } from '../shared/batcher.ts';
import { Disposable, Emitter } from '../shared/disposable.ts';
import type { ImageAttachment } from '../shared/images.ts';
import type { SendMode, SessionInfoView } from '../shared/wire/webviewProtocol.ts';
import type { CommandHandlers } from '../shared/wire/commands.ts';
import type { WireEvent } from '../shared/wire/events.ts';
import type { TranscriptState } from '../shared/transcript/rows.ts';
import type { Logger, RestoredInput, UserNotification } from '../shared/wire/workerProtocol.ts';
import type { AgentSessionLike, ControllerOptions, SessionFactory } from './agentSession.ts';
import { Branching } from './branching.ts';
import { SessionCheckpoints } from './checkpoints/sessionCheckpoints.ts';
import { Prompting } from './prompting.ts';
import { Restoring, type PanelQuestion } from './restoring.ts';
import { RunFiles } from './runFiles.ts';
import { RunWatchdog } from './runWatchdog.ts';
import { SessionNotices } from './sessionNotices.ts';
import { RunReview } from './runReview.ts';
import type { SessionContext } from './sessionContext.ts';
import { SessionEvents } from './sessionEvents.ts';
import { SessionLifecycle } from './sessionLifecycle.ts';
import { SessionListener } from './sessionListener.ts';
import { SessionTranscript } from './sessionTranscript.ts';
import { sessionIdOf } from './sessionEntries.ts';

/** The commands the session's parts answer. */
type SessionCommand = keyof (Branching['commands'] & Restoring['commands'] & Prompting['commands'] & RunReview['commands']);

/** One Pi session and its transcript in the worker; `main.ts` maps the main thread's requests onto it. */
export class SessionController extends Disposable {
  private readonly _transcript: SessionTranscript;
  private readonly _lifecycle: SessionLifecycle;
  private readonly _notices: SessionNotices;
  private readonly _watchdog: RunWatchdog;
  /** Prompts, the queue, Cancel, Retry and compaction. */
  readonly prompting: Prompting;
  /** Session replacements and tree moves. */
  readonly branching: Branching;
  /** A run's file changes looked back at: Open Diff, Undo, Clear Checkpoints. */
  readonly review: RunReview;
  private _ask: ((question: PanelQuestion) => Promise<string | undefined>) | undefined;
  /** The commands of the table (`COMMANDS`) the session's parts register (`main.ts` adds those of the worker's other parts). */
  readonly commands: CommandHandlers<SessionCommand>;

  /** Wire events, in order, right after the host store applied them. */
  readonly onDidEmit: SessionTranscript['onDidEmit'];
  /** What the main thread is sent: the changes the events made (SessionTranscript's `onDidChange`). */
  readonly onDidChange: SessionTranscript['onDidChange'];
  private readonly _onDidRestoreInput = this._register(new Emitter<RestoredInput>());
  /** Texts and images that did not reach Pi (a cancelled queue, a refused prompt): they go back to the composer. */
  readonly onDidRestoreInput = this._onDidRestoreInput.event;
  private readonly _onDidNotify = this._register(new Emitter<UserNotification>());
  readonly onDidNotify = this._onDidNotify.event;
  readonly onDidChangeSession: SessionLifecycle['onDidChangeSession'];
  private readonly _onWillCancel = this._register(new Emitter<void>());
  /** Cancel was asked for (whether or not a run is active): open extension dialogs are answered as dismissed. */
  readonly onWillCancel = this._onWillCancel.event;
  /** The session is about to go (new, resumed, reloaded, forced idle): nothing may wait on it. */
  readonly onWillDisposeSession: SessionLifecycle['onWillDisposeSession'];
  private readonly _onDidSetInput = this._register(new Emitter<string>());
  /** Text the composer should hold instead of what it has (the message "Edit and resend" rewound to). */
  readonly onDidSetInput = this._onDidSetInput.event;
  /**
   * A saved session's history was replayed into `state` in one pass, without events: the main thread gets a
   * snapshot of its newest rows instead (20,000 messages are some 40,000 events) and pages older ones in.
   */
  readonly onDidReplay: SessionTranscript['onDidReplay'];

  constructor(factory: SessionFactory, log: Logger, clock: Scheduler, options: ControllerOptions) {
    super();
    const transcript = (this._transcript = this._register(new SessionTranscript(log, clock)));
    this.onDidEmit = transcript.onDidEmit;
    this.onDidChange = transcript.onDidChange;
    this.onDidReplay = transcript.onDidReplay;
    // The session context every part takes; the lifecycle behind it comes after the parts it composes, branching after it.
    const context: SessionContext = {
      state: () => transcript.state,
      apply: (events) => transcript.apply(events),
      session: () => this.session,
      isActive: () => this.isActive,
      ensureSession: () => this.ensureSession(),
    };
    this._notices = new SessionNotices({ ...context, notify: (n) => this._onDidNotify.fire(n), restore: (input) => this._onDidRestoreInput.fire(input) }, log);
    this._watchdog = new RunWatchdog(context, clock, options);
    const files = new RunFiles(context.apply, log, options);
    const checkpoints = new SessionCheckpoints(log, (message) => this._notices.notice('warning', message), files.outside);
    this.prompting = new Prompting(
      {
        ...context,
        noModel: () => this._lifecycle.noModel,
        // After the tree moves under way: a prompt sent during "Edit and resend" goes on the rewound branch.
        ensureSession: async () => {
          await this.branching.settled();
          return this.ensureSession();
        },
        reopenQuietly: () => this._lifecycle.reopenQuietly(),
        onDidEmit: this.onDidEmit,
        willCancel: () => this._onWillCancel.fire(),
        beforePrompt: (session) => checkpoints.beforePrompt(sessionIdOf(session), session.sessionManager?.getLeafId() ?? undefined),
        promptDropped: () => checkpoints.promptDropped(),
      },
      this._notices,
      this._watchdog,
      log,
      clock,
      options,
    );
    const restoring = new Restoring(
      {
        ...context,
        ask: (question) => (this._ask ? this._ask(question) : Promise.resolve(undefined)),
        navigateTree: (entryId) => this.branching.navigateTree(entryId),
        notice: (level, text, code) => this._notices.notice(level, text, code),
        showChanges: (row) => context.apply([{ type: 'changes', ...row }]),
      },
      checkpoints,
    );
    this.review = new RunReview(
      checkpoints,
      files,
      restoring,
      log,
      (row) => context.apply([{ type: 'changes', ...row }]),
      () => this.ensureSession(),
    );
    const parts = {
      transcript,
      notices: this._notices,
      watchdog: this._watchdog,
      files,
      checkpoints,
      listener: new SessionListener((event) => events.heard(event)),
      review: this.review,
      prompting: this.prompting,
    };
    this._lifecycle = this._register(new SessionLifecycle(context, parts, factory, log, clock, options));
    this.onDidChangeSession = this._lifecycle.onDidChangeSession;
    this.onWillDisposeSession = this._lifecycle.onWillDisposeSession;
    const events = new SessionEvents(context, { ...parts, lifecycle: this._lifecycle }, log);
    this.branching = new Branching(
      {
        ...context,
        lifecycle: this._lifecycle,
        cancelAndWait: () => this.prompting.cancelAndWait(),
        setInput: (text) => this._onDidSetInput.fire(text),
      },
      this._notices,
      this._lifecycle.pendingImport,
    );
    this.commands = { ...this.branching.commands, ...restoring.commands, ...this.prompting.commands, ...this.review.commands };
  }

  /** How the panel's own questions (the restore card) are asked: the worker's dialog cards. */
  setAsker(ask: (question: PanelQuestion) => Promise<string | undefined>): void {
    this._ask = ask;
  }

  /** The transcript's pages and find, over the whole session (rows the worker no longer holds rebuilt). */
  get transcript(): SessionTranscript {
    return this._transcript;
  }

  /** The host's reduced transcript: what a (re)created view starts from. */
  get state(): TranscriptState {
    return this._transcript.state;
  }

  get sessionInfo(): SessionInfoView {
    return this._lifecycle.sessionInfo;
  }

  get isActive(): boolean {
    const r = this._transcript.state.run;
    return r.active || r.compaction !== undefined || (this.session?.isStreaming ?? false);
  }

  /** The file the session is saved in, so a fresh worker can resume it. */
  get sessionFile(): string | undefined {
    return this.session?.sessionFile;
  }

  /** The live session, for commands that act on it directly (model, thinking level, export). */
  get session(): AgentSessionLike | undefined {
    return this._lifecycle.session;
  }

  /**
   * Creates the session on first use (loading Pi); later calls share it. `resume` reopens that session file
   * without replaying it: its transcript is on screen already (a fresh worker after a fault). Without it, `first`
   * opens a saved session (`open`, shown) or an empty one (`fresh`); else the most recent continues.
   */
  ensureSession(resume?: string, first: { open?: string; fresh?: boolean } = {}): Promise<AgentSessionLike | undefined> {
    return this._lifecycle.ensureSession(resume, first);
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
    await this.session?.waitForIdle?.();
    if (this.isDisposed) return;
    await this.branching.newSession();
    this._notices.notice('info', 'A Pi extension ended the session (ctx.shutdown()), where `pi` would exit. This is a new session.');
  }

  /**
   * Re-opens the same session so new settings or workspace trust apply (tools, agent directory). A run in
   * progress is left alone: the reload happens when it settles, and `note` then tells the user.
   */
  reload(note?: string): Promise<boolean> {
    return this._lifecycle.reload(note);
  }

  /** Tells views that the model or thinking level changed. */
  refreshSessionInfo(): void {
    this._lifecycle.sessionChanged();
  }

  /** Credentials changed: see `SessionLifecycle.modelsChanged`. */
  modelsChanged(): Promise<void> {
    return this._lifecycle.modelsChanged();
  }

  /** The open session found no model with credentials. */
  get noModel(): boolean {
    return this._lifecycle.noModel;
  }

  /**
   * Gives up waiting for `agent_settled`: drops the session and opens the same one again from disk, so
   * the persisted transcript is kept.
   */
  forceIdle(): Promise<void> {
    return this._lifecycle.forceIdle();
  }

  /** Wire events from outside Pi's event stream (its extensions' UI), in order with Pi's own. */
  emitExternal(events: readonly WireEvent[]): void {
    if (!this.isDisposed && events.length) this._transcript.apply(events);
  }

  /**
   * Stops on purpose, keeping the turn (the worker is about to end: a reload, Restart, closing the window): the
   * queue goes back to the composer and the run is aborted, so Pi writes the partial reply (its text and tool
   * results) as aborted; after it settles (or `settleMs`), Pi's extensions hear `session_shutdown` (at most
   * `extensionsMs`). The only place a stopping worker emits it.
   */
  shutdown(settleMs: number, extensionsMs: number): Promise<void> {
    return this._lifecycle.shutdown(settleMs, extensionsMs);
  }

  override dispose(): void {
    // The session goes first, while everything that hears of it still stands.
    this._lifecycle.disposeSession();
    super.dispose();
  }
}
