/**
 * Moves between sessions and within one session's tree: new, resume, import, fork, edit-and-resend, tree
 * navigation and naming. Replacements go through Pi's session runtime, which hands the new session back to
 * the owner's single rebind path.
 */

import type { TreeNodeView } from '../shared/sessions.ts';
import type { CommandHandlers } from '../shared/wire/commands.ts';
import { errorText, type AgentSessionLike, type NavigateTreeOptions } from './agentSession.ts';
import { importLeavingNoCopy, type PendingImport } from './sessionFiles.ts';
import type { SessionContext } from './sessionContext.ts';
import type { SessionLifecycle } from './sessionLifecycle.ts';
import type { SessionNotices } from './sessionNotices.ts';
import {
  exchangeEndId,
  treeView,
  userEntryId,
  type ForkOptions,
  type NewSessionOptions,
  type SessionRuntimeLike,
  type SessionTree,
  type SwitchSessionOptions,
} from './sessionRuntime.ts';

/** What branching needs of the session's owner: its session context and lifecycle, and two things of its own. */
export interface BranchTarget extends SessionContext {
  /** Opening, switching and closing the session: replacements without a runtime, and taking one up. */
  readonly lifecycle: SessionLifecycle;
  /** Cancels an active run and waits (within the settle timeout) for it to settle. */
  cancelAndWait(): Promise<void>;
  /** The composer's text becomes `text`. */
  setInput(text: string): void;
}

/** Session replacements and tree moves of one session owner (`SessionController`). */
export class Branching {
  private readonly _target: BranchTarget;
  private readonly _notices: SessionNotices;
  private readonly _pendingImport: PendingImport | undefined;
  /** Tree moves under way ("Edit and resend", `/tree`), each settled whatever its outcome. */
  private readonly _moves = new Set<Promise<void>>();

  /** The commands of the table (`COMMANDS`) this part answers. */
  readonly commands: CommandHandlers<'editResend' | 'forkHere' | 'newSession' | 'navigateTree' | 'resumeSession' | 'importSession' | 'sessionTree'> = {
    newSession: () => this.newSession(),
    editResend: ({ entryId }) => this.editResend(entryId),
    forkHere: ({ entryId }) => this.forkHere(entryId),
    navigateTree: ({ entryId }) => this.navigateTree(entryId),
    resumeSession: ({ file }) => this.resumeSession(file),
    importSession: ({ file }) => this.importSession(file),
    sessionTree: async () => {
      await this._target.ensureSession();
      return { nodes: this.tree() };
    },
  };

  /** `pendingImport`: where an import is recorded until it has finished, so a worker dying during it leaves no copy. */
  constructor(target: BranchTarget, notices: SessionNotices, pendingImport?: PendingImport) {
    this._target = target;
    this._notices = notices;
    this._pendingImport = pendingImport;
  }

  /**
   * Starts an empty session for the workspace (the old one stays on disk). A Pi extension's `ctx.newSession`
   * options (parent file, setup, `withSession`) go to Pi's runtime as they are.
   */
  async newSession(options?: NewSessionOptions): Promise<void> {
    if (await this._withRuntime()) await this._replace('start a new session', (rt) => rt.newSession(options));
    else await this._target.lifecycle.switchSession({ fresh: true });
  }

  /** Switches to a saved session file and shows its history (a Pi extension's `withSession` runs in it). */
  async resumeSession(file: string, options?: SwitchSessionOptions): Promise<void> {
    if (file === this._target.lifecycle.session?.sessionFile) return;
    // A session file names its own folder; it runs in this workspace, with this workspace's trust.
    if (await this._withRuntime()) await this._replace('open the session', (rt) => rt.switchSession(file, { ...options, ...this._inWorkspace() }));
    else await this._target.lifecycle.switchSession({ fresh: false, open: file });
  }

  /** Copies a session file (JSONL) into the workspace's sessions and opens it. */
  async importSession(file: string): Promise<void> {
    const session = await this._withRuntime();
    if (!session) return this._notices.unsupported('Import');
    // A failed import leaves no copy behind in the session folder, also when the worker dies before it finished.
    const dir = session.sessionManager?.getSessionDir();
    await this._replace('import the session', (rt) =>
      importLeavingNoCopy(dir, file, () => rt.importFromJsonl(file, this._inWorkspace().cwdOverride), this._pendingImport),
    );
  }

  /** Pi's `cwdOverride` for a session opened from a file: the workspace, whatever folder the file's header names. */
  private _inWorkspace(): { cwdOverride?: string } {
    const cwd = this._target.lifecycle.cwd;
    return cwd ? { cwdOverride: cwd } : {};
  }

  /**
   * "Fork from here": a new session file holding the conversation up to the end of the exchange that the
   * user message of session entry `entryId` starts. The original file is untouched.
   */
  async forkHere(entryId: string): Promise<void> {
    const session = await this._withRuntime();
    const tree = treeOf(session);
    const id = tree ? userEntryId(tree, entryId) : undefined;
    if (!tree || !id) return this._notices.unsupported('Fork');
    const at = exchangeEndId(tree, id);
    await this._replace('fork the session', (rt) => rt.fork(at, { position: 'at' }));
  }

  /**
   * A Pi extension's `ctx.fork(entryId)`: a new session file with the branch up to that entry (`position:
   * 'before'`, Pi's default, leaves the entry itself out; a user message's text then goes to the composer).
   * The extension's `withSession` runs in the new session, as Pi's runtime does it.
   */
  async forkAt(entryId: string, options?: ForkOptions): Promise<void> {
    if (!(await this._withRuntime())) return this._notices.unsupported('Fork');
    let selected: string | undefined;
    await this._replace('fork the session', async (rt) => {
      const result = await rt.fork(entryId, options);
      selected = result.cancelled ? undefined : result.selectedText;
      return result;
    });
    if (selected !== undefined) this._target.setInput(selected);
  }

  /**
   * "Edit and resend": moves the session's leaf to just before the user message of session entry `entryId` (a
   * new branch in the same file; the old one stays in the tree) and puts its text in the composer.
   */
  editResend(entryId: string): Promise<void> {
    return this._moving(async () => {
      const session = await this._target.ensureSession();
      const tree = treeOf(session);
      const id = tree ? userEntryId(tree, entryId) : undefined;
      if (!id) return this._notices.unsupported('Edit and resend');
      await this.navigateTree(id);
    });
  }

  /**
   * Moves to an entry of the session's tree (`/tree`, or a Pi extension's `ctx.navigateTree` with its
   * options: a summary of the branch left, a label); a user message's text goes to the composer.
   */
  navigateTree(entryId: string, options?: NavigateTreeOptions): Promise<void> {
    return this._moving(async () => {
      const target = this._target;
      const session = await target.ensureSession();
      if (!session?.navigateTree) return this._notices.unsupported('Moving in the session tree');
      await target.cancelAndWait();
      try {
        const result = await session.navigateTree(entryId, options);
        if (result.cancelled) return;
        if (session !== target.session()) return;
        target.lifecycle.showSession(session);
        if (result.editorText !== undefined) target.setInput(result.editorText);
      } catch (err) {
        this._notices.notice('warning', `Could not move in the session tree: ${errorText(err)}`);
      }
    });
  }

  /**
   * Resolves once the tree moves under way have ended. A prompt the user sent after "Edit and resend" (the
   * host sends them in that order) waits for it: sent earlier, it would run on the old branch, and the move
   * would then cancel it.
   */
  async settled(): Promise<void> {
    while (this._moves.size) await Promise.all(this._moves);
  }

  /** The open session's tree, for the view's tree mode. */
  tree(): TreeNodeView[] {
    const tree = treeOf(this._target.session());
    return tree ? treeView(tree) : [];
  }

  /** Names the open session (`/name`); the header and the list show it. */
  async rename(name: string): Promise<void> {
    const session = await this._target.ensureSession();
    if (!session?.setSessionName) return this._notices.unsupported('Naming a session');
    session.setSessionName(name.trim());
    this._target.lifecycle.sessionChanged();
  }

  /** Runs a tree move, counted among those `settled()` waits for from its first step. */
  private _moving(move: () => Promise<void>): Promise<void> {
    const running = move();
    const ended = running.then(
      () => undefined,
      () => undefined,
    );
    this._moves.add(ended);
    void ended.then(() => this._moves.delete(ended));
    return running;
  }

  /** The session once it is open, when it has a runtime; undefined otherwise (a test's plain session). */
  private async _withRuntime(): Promise<AgentSessionLike | undefined> {
    const session = await this._target.ensureSession();
    return this._target.lifecycle.runtime ? session : undefined;
  }

  /**
   * Replaces the session through the runtime. A run is cancelled first; then the old session is no longer
   * listened to, so nothing it emits while the runtime tears it down (its abort, its shutdown) reaches the
   * view. The runtime hands the new session to the owner's rebind, the only place a replacement is taken up.
   */
  private async _replace(what: string, op: (rt: SessionRuntimeLike<AgentSessionLike>) => Promise<{ cancelled: boolean }>): Promise<void> {
    const target = this._target;
    const runtime = target.lifecycle.runtime;
    if (!runtime) return;
    await target.cancelAndWait();
    const before = target.session();
    const file = before?.sessionFile;
    target.lifecycle.detach();
    try {
      const result = await op(runtime);
      // A Pi extension vetoed it (session_before_switch / _fork): the old session is still the one.
      if (result.cancelled && runtime.session === before && before) target.lifecycle.bind(before);
    } catch (err) {
      this._notices.replaceFailed(what, err);
      if (target.lifecycle.runtime !== runtime) return;
      // The runtime may have torn the old session down before failing: open its file again from disk.
      await target.lifecycle.reopenFrom(file);
    }
  }
}

/** The session's entries, when it has a session manager (Pi's sessions do; a test's plain one may not). */
function treeOf(session: AgentSessionLike | undefined): SessionTree | undefined {
  const sessionManager = session?.sessionManager;
  return sessionManager ? { sessionManager } : undefined;
}
