/**
 * Every Pi chat of the window: the sidebar's and those in editor tabs, each with its own worker, session and
 * view. Makes, restores (after a window reload) and closes them, and knows which one the user is in.
 */

import { vscodeToolHandlers } from './vscodeTools/vscodeToolHost.ts';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import * as vscode from 'vscode';
import { realScheduler } from '../shared/batcher.ts';
import { Disposable, Emitter, toDisposable } from '../shared/disposable.ts';
import { runPhase, type RunPhase } from '../shared/run/runState.ts';
import type { SessionStart } from '../shared/wire/workerProtocol.ts';
import type { MessageView } from '../shared/transcript/rows.ts';
import { ChatViewProvider } from './chatViewProvider.ts';
import { ComposerImageDraft } from './composerImageDraft.ts';
import { notifySetting } from './config.ts';
import { FileReview } from './diffs.ts';
import { ExtensionSurfaces } from './extensionSurfaces.ts';
import { PiClient, type Logger } from './piClient.ts';
import { PendingChanges } from './review/pendingChanges.ts';
import { TurnJournalFile } from './turnJournalFile.ts';
import { workerConfig } from './workerConfig.ts';
import type { WorktreeInfo } from './worktrees/worktreeGit.ts';
import { nameWorktreeBranch } from './worktrees/branchName.ts';
import { backgroundChats, keptChats, markBackground, type KeptChats } from './worktrees/backgroundChats.ts';

/** The editor tabs' webview type, also their serializer's. */
export const CHAT_EDITOR_TYPE = 'piPanel.chatEditor';

/** What the workspace remembers of editor chats, by key (see backgroundChats.ts). */
const KEPT_CHATS = 'piPanel.editorChats';
/** The sidebar chat's session file. */
const SIDEBAR_SESSION = 'piPanel.sidebarSession';

/** One chat: its client of a Pi worker, its view, the review of its runs' changes and its extensions' surfaces. */
export class Chat extends Disposable {
  /** `sidebar` or `editor-N`: the page body's `data-chat-id`, by which e2e runs find the chat. */
  readonly id: string;
  /** N of `editor-N`; 0 for the sidebar. */
  readonly number: number;
  readonly client: PiClient;
  readonly view: ChatViewProvider;
  readonly review: FileReview;
  /** Its runs' changes the user has not kept or undone yet. */
  readonly pending: PendingChanges;
  /** The editor tab showing the chat; none for the sidebar. */
  panel: vscode.WebviewPanel | undefined;
  /** Something happened while the user could not see the chat (finished, failed, waiting). */
  unseen = false;
  /** A worktree chat's worktree, where its Pi works; none for a chat in the workspace. Its branch is renamed after the first prompt. */
  worktree: WorktreeInfo | undefined;

  constructor(id: string, number: number, client: PiClient, view: ChatViewProvider, review: FileReview, pending: PendingChanges, worktree?: WorktreeInfo) {
    super();
    this.id = id;
    this.number = number;
    this.worktree = worktree;
    this.client = this._register(client);
    this.view = this._register(view);
    this.review = review;
    this.pending = this._register(pending);
  }

  /** How the user knows the chat: its session's name, else "Sidebar chat" or "Chat N"; a worktree chat's branch after it. */
  get label(): string {
    const name = this.client.sessionInfo.name?.trim();
    if (this.number === 0) return name ? vscode.l10n.t('Sidebar: {0}', name) : vscode.l10n.t('Sidebar chat');
    const label = name || vscode.l10n.t('Chat {0}', this.number);
    return this.worktree ? vscode.l10n.t('{0} ({1})', label, this.worktree.branch) : label;
  }

  /** Where the chat is, for "open in …": "the sidebar", else its tab's title. */
  get place(): string {
    return this.number === 0 ? vscode.l10n.t('the sidebar') : this.label;
  }

  get phase(): RunPhase {
    return runPhase(this.client.state.run);
  }

  get visible(): boolean {
    return this.view.isVisible;
  }

  /** Ties `d` to the chat's life. */
  own<T extends vscode.Disposable>(d: T): T {
    return this._register(d);
  }
}

/** What every chat shares: the extension's folders, the log and the way to start a worker. */
export interface ChatsContext {
  readonly extensionUri: vscode.Uri;
  /** Workspace storage (or global, without a folder): journals, image drafts, per-chat worker storage. */
  readonly storage: vscode.Uri;
  /** The workspace's own storage folder, when a folder is open (the sidebar worker's, as before). */
  readonly storageDir: string | undefined;
  readonly workspaceState: vscode.Memento;
  /** The model picker's favourites and recent picks, shared by every chat. */
  readonly globalState?: vscode.Memento;
  readonly log: Logger & vscode.LogOutputChannel;
}

export class Chats extends Disposable implements vscode.WebviewPanelSerializer {
  readonly sidebar: Chat;
  private readonly _editors: Chat[] = [];
  private _opened = 0;
  /** Each editor chat's lasting key (its files, its kept state). */
  private readonly _keys = new Map<Chat, string>();
  /** Chats being closed on purpose (Discard): their tab's closing ends them even while they run. */
  private readonly _ending = new Set<Chat>();
  /** The window is closing or reloading: tabs that go now come back, so what they showed is kept. */
  private _closing = false;
  /** The chat the user was last in; none once a text editor took the focus. */
  private _focused: Chat | undefined;
  private readonly _ctx: ChatsContext;
  private readonly _onDidChange = this._register(new Emitter<void>());
  /** A chat was added or closed, or its run or title changed. */
  readonly onDidChange = this._onDidChange.event;
  private readonly _onDidFocus = this._register(new Emitter<Chat>());
  /** The user put the focus in a chat's view. */
  readonly onDidFocus = this._onDidFocus.event;
  private readonly _onDidAdd = this._register(new Emitter<Chat>());
  readonly onDidAdd = this._onDidAdd.event;

  /** Which chat has which session, and what it is called: when it changes, the Sessions lists' marks follow. */
  private _placed = '';

  constructor(ctx: ChatsContext) {
    super();
    this._ctx = ctx;
    // The sidebar reopens its own session: with tabs open, the most recent one may be a tab's.
    const own = ctx.workspaceState.get<unknown>(SIDEBAR_SESSION);
    this.sidebar = this._register(this._make('sidebar', 0, undefined, typeof own === 'string' && fs.existsSync(own) ? { open: own } : {}));
    const sidebarClient = this.sidebar.client;
    this._register(
      this.onDidChange(() => {
        const placed = JSON.stringify(this.all.map((c) => [c.client.sessionFile, c.place]));
        if (placed === this._placed) return;
        this._placed = placed;
        for (const c of this.all) c.view.sessionsMoved();
      }),
    );
    this._register(
      sidebarClient.onDidChangeSession(() => {
        const file = sidebarClient.sessionFile;
        if (file && file !== ctx.workspaceState.get(SIDEBAR_SESSION)) void ctx.workspaceState.update(SIDEBAR_SESSION, file);
        this._onDidChange.fire();
      }),
    );
    this._register(
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        if (editor) this._focused = undefined;
      }),
    );
    this._register(
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (e.kind === vscode.TextEditorSelectionChangeKind.Mouse || e.kind === vscode.TextEditorSelectionChangeKind.Keyboard) this._focused = undefined;
      }),
    );
    this._register(toDisposable(() => this._editors.splice(0).forEach((c) => c.dispose())));
  }

  /** The sidebar, then the tabs in opening order. */
  get all(): readonly Chat[] {
    return [this.sidebar, ...this._editors];
  }

  /** The chat the user is in: the one whose view last had focus, unless a text editor took it since. */
  get focused(): Chat | undefined {
    return this._focused;
  }

  /** Chats whose run is not idle. */
  get running(): readonly Chat[] {
    return this.all.filter((c) => c.phase !== 'idle');
  }

  byId(id: string): Chat | undefined {
    return this.all.find((c) => c.id === id);
  }

  /** The chat with that session open, if any. */
  withSession(file: string): Chat | undefined {
    return this.all.find((c) => c.client.sessionFile === file);
  }

  /** Shows the chat and puts the cursor in its composer. */
  async reveal(chat: Chat): Promise<void> {
    const key = this._keys.get(chat);
    if (chat.panel) chat.panel.reveal();
    else if (key !== undefined) {
      // A worktree chat whose tab was closed while it ran: a new tab shows it again.
      this._show(chat, vscode.window.createWebviewPanel(CHAT_EDITOR_TYPE, chat.label, vscode.ViewColumn.Active, {}), key);
      // Its tab is back, and VS Code restores a tab after a reload.
      this._mark(key, false);
      this._onDidChange.fire();
    } else await vscode.commands.executeCommand(`${ChatViewProvider.viewType}.focus`);
    chat.view.focusComposer();
    this._focused = chat;
  }

  /**
   * Opens a chat in an editor tab: `sessionFile` opens that saved session (focusing the chat that has it open
   * already), none an empty one; `worktree`: the chat's Pi works there. Undefined when `piPanel.maxChats` chats are open.
   */
  async open(sessionFile?: string, worktree?: WorktreeInfo): Promise<Chat | undefined> {
    const open = sessionFile ? this.withSession(sessionFile) : undefined;
    if (open) {
      await this.reveal(open);
      return open;
    }
    const max = maxChats();
    if (this.all.length >= max) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Pi: {0} chats are open, the most piPanel.maxChats allows. Close one first.', max));
      return undefined;
    }
    const key = randomUUID();
    const panel = vscode.window.createWebviewPanel(CHAT_EDITOR_TYPE, vscode.l10n.t('Pi Chat'), vscode.ViewColumn.Active, {});
    const chat = this._adopt(panel, key, sessionFile ? { open: sessionFile } : { fresh: true }, worktree);
    if (worktree) this._keep(key, undefined, worktree);
    this._focused = chat;
    chat.view.focusComposer();
    return chat;
  }

  /** A tab VS Code brings back after a window reload: the same chat key, so the same session. */
  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    const saved = typeof state === 'object' && state !== null ? (state as { chatKey?: unknown }).chatKey : undefined;
    const key = typeof saved === 'string' && /^[\w-]{1,64}$/.test(saved) ? saved : randomUUID();
    const kept = this._kept()[key];
    const sessionFile = kept?.sessionFile;
    const worktree = kept?.worktree;
    if (worktree && !fs.existsSync(worktree.path)) {
      this._worktreeGone(key, worktree);
      panel.dispose();
      return;
    }
    this._adopt(panel, key, sessionFile ? { open: sessionFile } : { fresh: true }, worktree);
  }

  /**
   * Brings back, without a tab, the worktree chats whose tab was closed while they ran (VS Code restores only
   * tabs): Pi: Show Chats lists them with their branch and session and opens them again. Called once the
   * listeners of onDidAdd are in place.
   */
  restoreBackground(): void {
    const { restore, gone } = backgroundChats(this._kept(), (p) => fs.existsSync(p));
    for (const { key, worktree } of gone) this._worktreeGone(key, worktree);
    for (const { key, sessionFile, worktree } of restore) {
      if (this.all.length >= maxChats()) break;
      this._adopt(undefined, key, sessionFile ? { open: sessionFile } : { fresh: true }, worktree);
    }
  }

  /** A worktree chat whose folder is gone closes with a message: its Pi cannot work anywhere else, never in the workspace. */
  private _worktreeGone(key: string, worktree: WorktreeInfo): void {
    void vscode.window.showWarningMessage(
      vscode.l10n.t(
        'Pi: the worktree of {0} ({1}) is gone (deleted by hand?), so its chat was closed. Pi: Clean Up Worktrees removes its branch.',
        worktree.branch,
        worktree.path,
      ),
    );
    this._forget(key);
  }

  /** Ends an editor tab's chat, also one running without its tab (its worker stops, its session stays). */
  close(chat: Chat): void {
    this._ending.add(chat);
    if (chat.panel) chat.panel.dispose();
    else {
      const key = this._keys.get(chat);
      if (key !== undefined) this._forget(key);
      this._end(chat);
    }
  }

  /** Stops the worker of every chat (window reload or close), each keeping its turn. */
  async shutdown(): Promise<void> {
    this._closing = true;
    await Promise.all(this.all.map((c) => c.client.shutdown()));
  }

  /** Makes the chat `key` and shows it in `panel`; none: it runs in the background until Show Chats opens it. */
  private _adopt(panel: vscode.WebviewPanel | undefined, key: string, first: SessionStart, worktree?: WorktreeInfo): Chat {
    const number = ++this._opened;
    const chat = this._make(`editor-${number}`, number, key, first, worktree);
    this._keys.set(chat, key);
    this._editors.push(chat);
    // Only a chat's first prompt names its branch: one that comes back with its session keeps the name it has.
    if (worktree && first.fresh) this._nameBranch(chat, key);
    chat.own(
      chat.client.onDidChangeSession(() => {
        this._keep(key, chat.client.sessionFile, chat.worktree);
        chat.view.refreshTitle();
        this._onDidChange.fire();
      }),
    );
    if (panel) this._show(chat, panel, key);
    this._onDidAdd.fire(chat);
    this._onDidChange.fire();
    return chat;
  }

  /**
   * The worktree is made before there is a prompt, on `pi/<n>`: the chat's first prompt names its branch
   * (`pi/fix-login-bug`), and its tab and header follow.
   */
  private _nameBranch(chat: Chat, key: string): void {
    const first = chat.own(
      chat.client.onDidEmit((events) => {
        // The worker sends the prompt's row (a new row carries its whole text).
        const prompt = events.map((e) => (e.type === 'row' ? (e.row as MessageView) : undefined)).find((row) => row?.role === 'user');
        const info = chat.worktree;
        if (!prompt || !info) return;
        first.dispose();
        void nameWorktreeBranch(info, prompt.blocks[0]?.text ?? '').then(
          (named) => {
            if (named.branch === info.branch || !this._editors.includes(chat)) return;
            this._ctx.log.info(`Worktree chat: ${info.branch} is now ${named.branch}.`);
            chat.worktree = named;
            this._keep(key, chat.client.sessionFile, named);
            chat.view.setWorktreeBranch(named.branch);
            this._onDidChange.fire();
          },
          (err: unknown) => this._ctx.log.warn(`Could not name the branch ${info.branch}: ${err instanceof Error ? err.message : String(err)}`),
        );
      }),
    );
  }

  /** Shows `chat` in the tab `panel`; closing the tab ends the chat, but for a worktree chat that is running. */
  private _show(chat: Chat, panel: vscode.WebviewPanel, key: string): void {
    chat.panel = panel;
    panel.iconPath = vscode.Uri.joinPath(this._ctx.extensionUri, 'media', 'pi.svg');
    chat.view.attach(panel);
    const viewState = panel.onDidChangeViewState(() => {
      if (panel.active) this._focused = chat;
      this._onDidChange.fire();
    });
    panel.onDidDispose(() => {
      viewState.dispose();
      if (chat.panel === panel) chat.panel = undefined;
      if (this._focused === chat) this._focused = undefined;
      // A worktree chat's run cannot collide with anyone's: it goes on without its tab (Pi: Show Chats opens it again).
      if (!this._closing && !this._ending.has(chat) && chat.worktree && chat.phase !== 'idle') {
        // No tab comes back after a reload: the chat is marked so that the panel brings it back itself.
        this._mark(key, true);
        this._onDidChange.fire();
        return;
      }
      if (!this._closing) this._forget(key);
      this._end(chat);
    });
  }

  /** Closing the tab ends its chat: the run stops (kept in its session) and the worker with it. */
  private _end(chat: Chat): void {
    const i = this._editors.indexOf(chat);
    if (i >= 0) this._editors.splice(i, 1);
    this._keys.delete(chat);
    this._ending.delete(chat);
    void chat.client.shutdown().finally(() => chat.dispose());
    this._onDidChange.fire();
  }

  /** A chat with its own worker; `key` names its files (none: the sidebar's, as they always were). */
  private _make(id: string, number: number, key: string | undefined, first: SessionStart, worktree?: WorktreeInfo): Chat {
    const { log, storage, extensionUri } = this._ctx;
    const distDir = vscode.Uri.joinPath(extensionUri, 'dist').fsPath;
    const storageDir = key ? vscode.Uri.joinPath(storage, 'chats', key).fsPath : this._ctx.storageDir;
    const file = (name: string) => (key ? vscode.Uri.joinPath(storage, 'chats', key, name) : vscode.Uri.joinPath(storage, name)).fsPath;
    // Pi runs in a worker thread started when the view first opens: loading it, its tools and its extensions
    // never block or take down the extension host that every extension shares, nor another chat.
    const client = new PiClient(
      (data) =>
        new Worker(path.join(distDir, 'worker.js'), {
          name: key ? `Pi ${id}` : 'Pi', // l10n-ignore: the thread's name, for debuggers
          workerData: { ...data, l10n: { language: vscode.env.language, bundle: vscode.l10n.bundle ?? {} } },
        }),
      () => workerConfig(storageDir, worktree?.path),
      log,
      realScheduler,
      { requestTimeoutMs: 10_000, pingMs: 2_000, hangMs: 10_000, hostRequests: vscodeToolHandlers(() => workerConfig(storageDir).cwd, log) },
      new TurnJournalFile(file('turn-journal.json'), log),
      first,
    );
    // A worktree chat's files, diffs and links are its worktree's.
    const review = new FileReview(client, log, () => worktree?.path ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? client.sessionInfo.cwd, id);
    const imageDraft = new ComposerImageDraft(file('composer-images'), log);
    // The title names the chat, which does not exist yet while its view is made.
    const made: { chat?: Chat } = {};
    const view = new ChatViewProvider(extensionUri, client, log, review, imageDraft, id, () => made.chat?.label ?? vscode.l10n.t('Chat'), key);
    view.worktreeBranch = worktree?.branch;
    if (this._ctx.globalState) view.modelPrefs = this._ctx.globalState;
    // A worktree chat's files are the worktree's: its pending changes are named from there.
    const root = () => worktree?.path ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? client.sessionInfo.cwd;
    const pending = new PendingChanges(
      key ?? 'sidebar',
      {
        fileBefore: async (p, runId) => (await client.call('fileBefore', { path: p, runId }))?.before,
        undoFile: (p, runId) => client.call('undo', { path: p, ...(runId ? { runId } : {}) }),
        busy: () => made.chat?.phase !== 'idle',
      },
      this._ctx.workspaceState,
      root,
      log,
    );
    const chat = (made.chat = new Chat(id, number, client, view, review, pending, worktree));
    const self = chat;
    // A run's Changes row makes its hunks pending; while it runs, its writes reloading open files are not the user's edits.
    chat.own(
      client.onDidEmit((events) => {
        if (self.phase !== 'idle') pending.runStarted();
        for (const e of events) {
          // The worker sends a run's Changes row (new, or updated by an Undo) whole.
          const row = e.type === 'row' ? (e.row as MessageView) : undefined;
          if (row?.role === 'changes') void pending.addRun(row.runId, row.files);
        }
      }),
    );
    chat.own(pending.onDidChange(() => view.showPending(pending.summary())));
    view.showPending(pending.summary());
    // Its dialogs are announced while out of sight, unless the user turned notifications off.
    chat.own(
      new ExtensionSurfaces(
        client,
        () => self.visible || notifySetting() === 'off',
        () => this.reveal(self),
        this.onDidChange,
      ),
    );
    view.focusOpen = async (sessionFile) => {
      const other = this.withSession(sessionFile);
      if (!other || other === self) return false;
      await this.reveal(other);
      return true;
    };
    view.openElsewhere = (sessionFile) => {
      const other = this.withSession(sessionFile);
      return other && other !== self ? other.place : undefined;
    };
    chat.own(
      view.onDidFocus(() => {
        this._focused = self;
        this._onDidFocus.fire(self);
      }),
    );
    chat.own(view.onDidChangeVisible(() => this._onDidChange.fire()));
    chat.own(client.onDidEmit(() => this._onDidChange.fire()));
    chat.own(client.onDidReplace(() => this._onDidChange.fire()));
    return chat;
  }

  private _kept(): KeptChats {
    return keptChats(this._ctx.workspaceState.get<unknown>(KEPT_CHATS));
  }

  private _keep(key: string, sessionFile: string | undefined, worktree?: WorktreeInfo): void {
    const kept = this._kept()[key];
    if (kept && kept.sessionFile === sessionFile && kept.worktree?.path === worktree?.path && kept.worktree?.branch === worktree?.branch) return;
    void this._ctx.workspaceState.update(KEPT_CHATS, {
      ...this._kept(),
      [key]: { ...(sessionFile ? { sessionFile } : {}), ...(worktree ? { worktree } : {}), ...(kept?.background ? { background: true } : {}) },
    });
  }

  private _mark(key: string, background: boolean): void {
    const kept = this._kept();
    if (Boolean(kept[key]?.background) !== background) void this._ctx.workspaceState.update(KEPT_CHATS, markBackground(kept, key, background));
  }

  private _forget(key: string): void {
    const { [key]: _gone, ...rest } = this._kept();
    void this._ctx.workspaceState.update(KEPT_CHATS, rest);
  }
}

/** `piPanel.maxChats` (default 8, at least 1). */
function maxChats(): number {
  const v = vscode.workspace.getConfiguration('piPanel').get<number>('maxChats', 8);
  return typeof v === 'number' && Number.isFinite(v) && v >= 1 ? Math.floor(v) : 8;
}
