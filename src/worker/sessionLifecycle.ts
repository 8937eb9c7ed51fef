/** Opening, switching and closing Pi's session: created on first use, rebound by Pi's runtime, reopened, switched, disposed, shut down. */

import * as fs from 'node:fs';
import type { Scheduler } from '../shared/batcher.ts';
import { Disposable, Emitter } from '../shared/disposable.ts';
import type { SessionInfoView } from '../shared/wire/webviewProtocol.ts';
import { t } from '../shared/l10n.ts';
import type { Logger } from '../shared/wire/workerProtocol.ts';
import { errorText, type AgentSessionLike, type ControllerOptions, type SessionFactory } from './agentSession.ts';
import type { SessionCheckpoints } from './checkpoints/sessionCheckpoints.ts';
import type { Prompting } from './prompting.ts';
import type { RunFiles } from './runFiles.ts';
import type { RunReview } from './runReview.ts';
import type { RunWatchdog } from './runWatchdog.ts';
import type { SessionContext } from './sessionContext.ts';
import { sessionInfoView } from './sessionInfo.ts';
import type { SessionListener } from './sessionListener.ts';
import type { SessionNotices } from './sessionNotices.ts';
import type { SessionTranscript } from './sessionTranscript.ts';
import type { SessionRuntimeLike } from './sessionRuntime.ts';
import { PendingImport } from './sessionFiles.ts';
import { within } from './within.ts';

/** The session's other parts that opening and closing it touches. */
export interface LifecycleParts {
  readonly transcript: SessionTranscript;
  readonly notices: SessionNotices;
  readonly watchdog: RunWatchdog;
  readonly files: RunFiles;
  readonly checkpoints: SessionCheckpoints;
  readonly listener: SessionListener;
  readonly review: RunReview;
  readonly prompting: Prompting;
}

/** Which session to open: an empty one (`fresh`), a saved file (`open`), else the latest; `quiet` when its transcript is on screen already. */
interface OpenHow {
  readonly fresh: boolean;
  readonly open?: string;
  readonly quiet?: boolean;
}

/** The one live Pi session of a `SessionController` and the runtime that owns it. */
export class SessionLifecycle extends Disposable {
  private _session: AgentSessionLike | undefined;
  private _runtime: SessionRuntimeLike<AgentSessionLike> | undefined;
  private _bindExtensions: ((session: AgentSessionLike) => Promise<void>) | undefined;
  private _creating: Promise<AgentSessionLike | undefined> | undefined;
  private _cwd: string | undefined;
  private _noModel = false;
  /** A reload asked for during a run (its note, possibly empty), done when the run settles. */
  private _reloadWhenIdle: string | undefined;
  private readonly _context: SessionContext;
  private readonly _parts: LifecycleParts;
  private readonly _factory: SessionFactory;
  private readonly _log: Logger;
  private readonly _clock: Scheduler;
  private readonly _options: ControllerOptions;
  /** An import under way, recorded in the chat's storage until it finished (see `PendingImport`). */
  readonly pendingImport: PendingImport;
  /** Whether this worker has looked for a copy an import left when the worker before died during it. */
  private _leftoverChecked = false;
  private readonly _onDidChangeSession = this._register(new Emitter<SessionInfoView>());
  readonly onDidChangeSession = this._onDidChangeSession.event;
  private readonly _onWillDisposeSession = this._register(new Emitter<void>());
  /** The session is about to go (new, resumed, reloaded, forced idle): nothing may wait on it. */
  readonly onWillDisposeSession = this._onWillDisposeSession.event;

  constructor(context: SessionContext, parts: LifecycleParts, factory: SessionFactory, log: Logger, clock: Scheduler, options: ControllerOptions) {
    super();
    this._context = context;
    this._parts = parts;
    this._factory = factory;
    this._log = log;
    this._clock = clock;
    this._options = options;
    this.pendingImport = new PendingImport(() => options.storageDir);
  }

  get session(): AgentSessionLike | undefined {
    return this._session;
  }

  get runtime(): SessionRuntimeLike<AgentSessionLike> | undefined {
    return this._runtime;
  }

  /** The workspace folder the session runs in. */
  get cwd(): string | undefined {
    return this._cwd;
  }

  /** The open session found no model with credentials. */
  get noModel(): boolean {
    return this._noModel;
  }

  get sessionInfo(): SessionInfoView {
    return sessionInfoView(this._session, { noModel: this._noModel, cwd: this._cwd, collapseThinking: this._options.collapseThinking ?? true });
  }

  /** `session` is still the one shown, and the controller still stands. */
  isCurrent(session: AgentSessionLike | undefined): boolean {
    return !this.isDisposed && session === this._session;
  }

  /** Tells views that the session's info (model, thinking level, name) changed. */
  sessionChanged(): void {
    this._onDidChangeSession.fire(this.sessionInfo);
  }

  /** See `SessionController.ensureSession`. */
  ensureSession(resume?: string, first: { open?: string; fresh?: boolean } = {}): Promise<AgentSessionLike | undefined> {
    if (this._session) return Promise.resolve(this._session);
    if (this._creating) return this._creating;
    const removed = this._removeLeftoverImport();
    // The copy the worker before was showing is gone: the transcript on screen is not a session any more.
    if (resume && removed.includes(resume)) {
      resume = undefined;
      this._context.apply([{ type: 'reset' }]);
    }
    if (first.open && removed.includes(first.open)) first = {};
    const how = resume ? { fresh: false, open: resume, quiet: true } : first.open ? { fresh: false, open: first.open } : { fresh: first.fresh === true };
    this._creating = this._create(how)
      .then((session) => {
        for (const file of removed)
          this._parts.notices.notice(
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
      return this.pendingImport.removeLeftover();
    } catch (err) {
      this._log.warn(`Could not remove the copy of an unfinished import: ${errorText(err)}`);
      return [];
    }
  }

  /** See `SessionController.reload`. */
  async reload(note?: string): Promise<boolean> {
    if (!this._session) return false;
    if (this._context.isActive()) {
      this._reloadWhenIdle = note ?? '';
      return false;
    }
    return this._reopen(note);
  }

  /** A run settled: a reload it held back happens now. */
  reloadIfHeld(): void {
    if (this._reloadWhenIdle === undefined) return;
    const note = this._reloadWhenIdle;
    this._clock.setTimer(() => void this._reopen(note), 0);
  }

  /** See `SessionController.forceIdle`. */
  async forceIdle(): Promise<void> {
    this._log.warn('Force idle: re-creating the session without waiting for agent_settled.');
    const now = this._clock.now();
    this.disposeSession();
    this._context.apply([{ type: 'settled', aborted: true, at: now }, { type: 'reset' }]);
    await this._create({ fresh: false });
  }

  /** Opens the session again, quietly: a key may have been added since it opened. */
  reopenQuietly(): Promise<AgentSessionLike | undefined> {
    this.disposeSession();
    return this._create({ fresh: false, quiet: true });
  }

  /**
   * Credentials changed (a sign-in, a sign-out): a session without a usable model, or one whose model lost its
   * credentials, opens again (the same file) so Pi picks a model that has them; otherwise the view hears of it.
   */
  async modelsChanged(): Promise<void> {
    const s = this._session;
    if (!s || this._context.isActive()) return this.sessionChanged();
    const available = await s.modelRuntime.getAvailable();
    const usable = s.model !== undefined && available.some((m) => m.provider === s.model?.provider && m.id === s.model.id);
    if (!this._noModel && usable) return this.sessionChanged();
    // A session Pi has not written yet is empty: a fresh one is the same, and no older session takes its place.
    const file = s.sessionFile && fs.existsSync(s.sessionFile) ? s.sessionFile : undefined;
    this.disposeSession();
    await this._create(file ? { fresh: false, open: file, quiet: true } : { fresh: true, quiet: true });
  }

  /** Drops the session and opens `file` (or the workspace's latest) again from disk. */
  async reopenFrom(file: string | undefined): Promise<void> {
    this.disposeSession();
    await this._create(file ? { fresh: false, open: file } : { fresh: false });
  }

  /** Cancels what runs, clears the transcript and opens another session in its place. */
  async switchSession(options: { fresh: boolean; open?: string }): Promise<void> {
    if (this._context.isActive()) await this._parts.prompting.cancel();
    this.disposeSession();
    this._context.apply([{ type: 'reset' }]);
    await this._create(options);
  }

  /** Listens to `session` and nothing else; the listener never throws into Pi. */
  bind(session: AgentSessionLike): void {
    this._session = session;
    this._parts.listener.listen(session);
  }

  /** Stops listening to the session (its runtime is about to replace it). */
  detach(): void {
    this._parts.listener.stop();
  }

  /** Resets the host store (and so the view) to `session`'s current branch. */
  showSession(session: AgentSessionLike): void {
    this._parts.watchdog.clear();
    this._context.apply([{ type: 'reset' }]);
    this._replay(session);
    this._onDidChangeSession.fire(this.sessionInfo);
  }

  /** See `SessionController.shutdown`. */
  async shutdown(settleMs: number, extensionsMs: number): Promise<void> {
    if (this._creating) await within(this._clock, this._creating, settleMs);
    if (this._context.isActive()) await this._parts.prompting.cancelAndWait(settleMs);
    const runtime = this._runtime;
    const session = this._session;
    if (session) this._onWillDisposeSession.fire();
    this._parts.watchdog.clear();
    this._parts.listener.stop();
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

  /** Drops the session without waiting: its runtime aborts it and tells Pi's extensions in the background. */
  disposeSession(): void {
    if (this._session) this._onWillDisposeSession.fire();
    this._parts.watchdog.clear();
    this._parts.listener.stop();
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

  override dispose(): void {
    this.disposeSession();
    super.dispose();
  }

  private async _reopen(note: string | undefined): Promise<boolean> {
    this._reloadWhenIdle = undefined;
    if (!this._session) return false;
    const file = this._session.sessionFile;
    this.disposeSession();
    // A transcript on screen is this session's already: reopen it without replaying history.
    const quiet = this._context.state().messages.length > 0;
    await this._create(file ? { fresh: false, open: file, quiet } : { fresh: false, quiet });
    if (note) this._parts.notices.notice('info', note);
    return true;
  }

  /**
   * Creates a session and subscribes to it. `quiet` skips replaying its history and its warnings, for a
   * session whose transcript is already on screen.
   */
  private async _create({ fresh, open, quiet = false }: OpenHow): Promise<AgentSessionLike | undefined> {
    const { files, checkpoints, notices, review } = this._parts;
    try {
      const created = await this._factory(open ? { fresh, open } : { fresh });
      if (this.isDisposed) {
        created.session.dispose();
        return undefined;
      }
      this._cwd = created.cwd;
      this._noModel = created.noModel === true;
      files.open(created.cwd);
      checkpoints.open(created.cwd, this._options.storageDir, this._options.checkpoints === true);
      // Subscribe before anything can prompt; the listener never throws into Pi.
      this.bind(created.session);
      this._runtime = created.runtime;
      this._bindExtensions = created.bind;
      created.runtime?.setRebindSession(this._rebind);
      if (!quiet) {
        // The last run's Changes row, kept across a window reload, follows its history.
        if (this._replay(created.session)) review.showLast(created.session, () => this._session);
        if (created.warning) notices.notice('warning', created.warning);
        // No model: the view shows its welcome (from the session info), not an error.
      }
      await this._bindExtensionsTo(created.session);
      this._onDidChangeSession.fire(this.sessionInfo);
      return created.session;
    } catch (err) {
      notices.sessionFailed(err);
      return undefined;
    }
  }

  /** The runtime replaced the session: listen to the new one only, and show its branch from scratch. */
  private readonly _rebind = async (session: AgentSessionLike): Promise<void> => {
    this.bind(session);
    this.showSession(session);
    this._parts.review.showLast(session, () => this._session);
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
      this._parts.notices.notice('error', `Pi's extensions could not start: ${errorText(err)}`);
    }
  }

  /** Adds `session`'s history (and name) to the transcript; false when it has neither. */
  private _replay(session: AgentSessionLike): boolean {
    return this._parts.transcript.replay(session, (skipped) =>
      this._parts.notices.notice(
        'warning',
        `${skipped} message${skipped === 1 ? '' : 's'} of this session could not be shown (malformed) and ${skipped === 1 ? 'was' : 'were'} skipped.`,
      ),
    );
  }
}
