/**
 * One chat's webview, in the sidebar or in an editor tab: serves it, validates what it says, and feeds it snapshot
 * then batches.
 */

import * as vscode from 'vscode';
import { realScheduler } from '../shared/batcher.ts';
import { assertNever } from '../shared/exhaustive.ts';
import { commandOf, isCommandMessage } from '../shared/wire/commands.ts';
import { parseWebviewMessage } from '../shared/wire/parseWebviewMessage.ts';
import type { HostToWebview, PendingSummary, WebviewToHost } from '../shared/wire/webviewProtocol.ts';
import { Disposable, Emitter } from '../shared/disposable.ts';
import type { CodeChip } from '../shared/chips.ts';
import type { ImageAttachment } from '../shared/images.ts';
import { plainNotificationText } from '../shared/notificationText.ts';
import { builtinCommands, type BuiltinName, type SlashCommand } from '../shared/slashCommands.ts';
import { commandFromChat } from './chatRouting.ts';
import type { ComposerImageDraft } from './composerImageDraft.ts';
import type { FileReview } from './diffs.ts';
import { insertAtCursor, openLink, openSvg } from './links.ts';
import type { Logger, PiClient } from './piClient.ts';
import { SessionActions } from './sessionActions.ts';
import { ModelSetup, type ModelPrefs } from './modelSetup.ts';
import { ViewFeed } from './viewFeed.ts';
import { pageWhenHidden, type PageHost } from './hiddenPage.ts';
import { chatHtml } from './webviewHtml.ts';

/** What shows a chat: the sidebar's `WebviewView` or an editor tab's `WebviewPanel`. */
export interface ChatHost {
  readonly webview: vscode.Webview;
  readonly visible: boolean;
  title?: string;
  readonly onDidDispose: vscode.Event<void>;
}

/** An editor tab's panel says itself when it is shown or hidden. */
function isPanel(view: ChatHost): view is ChatHost & vscode.WebviewPanel {
  return 'onDidChangeViewState' in view;
}

/** The sidebar's view carries the activity-bar badge. */
function isSidebarView(view: ChatHost): view is ChatHost & vscode.WebviewView {
  return 'onDidChangeVisibility' in view;
}

export class ChatViewProvider extends Disposable implements vscode.WebviewViewProvider {
  static readonly viewType = 'piPanel.chat';

  private _view: ChatHost | undefined;
  private _viewDisposables: vscode.Disposable[] = [];
  private readonly _feed: ViewFeed;
  /** Texts to give back to the composer once a view is there to take them. */
  private _pendingRestore: string[] = [];
  private _pendingRestoreImages: ImageAttachment[] = [];
  /** The images attached in the composer: a hidden view is destroyed, and its successor gets them back. */
  private _composerImages: readonly ImageAttachment[] = [];
  /** The same images on disk, for after a window reload. */
  private readonly _imageDraft: ComposerImageDraft;
  private _pendingChips: { chip: CodeChip; prompt?: string }[] = [];
  private _ready = false;
  /** The Sessions list was asked for before the view was there. */
  private _pendingSessions = false;
  private _pending: PendingSummary | undefined;
  private readonly _extensionUri: vscode.Uri;
  private readonly _client: PiClient;
  private readonly _log: Logger;
  private readonly _review: FileReview;
  private readonly _sessions: SessionActions;
  private readonly _models: ModelSetup;

  /** This chat's sign-in and model choice (the palette's Sign In and Sign Out use it too). */
  get models(): ModelSetup {
    return this._models;
  }

  /** Where the model picker keeps favourites and recent picks. */
  set modelPrefs(prefs: ModelPrefs) {
    this._models.prefs = prefs;
  }

  /** Shows a session another chat has open (true when one has): the Sessions list does not open it twice. */
  set focusOpen(f: (file: string) => Promise<boolean>) {
    this._sessions.focusOpen = f;
  }

  /** Names the other chat that has a session open, for the Sessions list's mark. */
  set openElsewhere(f: (file: string) => string | undefined) {
    this._sessions.openElsewhere = f;
  }

  /** `sidebar` or `editor-N`: the page body's `data-chat-id`, by which e2e runs find the chat. */
  readonly chatId: string;
  /** An editor tab's lasting key (a UUID), kept by its page across reloads; none for the sidebar. */
  readonly chatKey: string | undefined;
  /** A worktree chat's branch: the page body's `data-worktree`; none for a chat in the workspace. */
  worktreeBranch: string | undefined;
  /** The title when no extension set one: the sidebar's "Chat", a tab's session name. */
  private readonly _baseTitle: () => string;
  /** The tab's mark (●) for news the user has not seen. */
  private _mark = false;
  private readonly _onDidFocus = this._register(new Emitter<void>());
  /** The user moved into this chat's webview. */
  readonly onDidFocus = this._onDidFocus.event;
  private readonly _onDidChangeVisible = this._register(new Emitter<void>());
  /** The sidebar's view was shown or hidden (a tab's panel says so itself). */
  readonly onDidChangeVisible = this._onDidChangeVisible.event;
  /** The activity-bar badge (the sidebar's view only): chats with news the user has not seen. */
  private _badge: vscode.ViewBadge | undefined;

  constructor(
    extensionUri: vscode.Uri,
    client: PiClient,
    log: Logger,
    review: FileReview,
    imageDraft: ComposerImageDraft,
    chatId = 'sidebar',
    baseTitle: () => string = () => vscode.l10n.t('Chat'),
    chatKey?: string,
  ) {
    super();
    this.chatId = chatId;
    this.chatKey = chatKey;
    this._baseTitle = baseTitle;
    this._review = review;
    this._imageDraft = imageDraft;
    void imageDraft.load().then((images) => {
      // Unless the user attached others meanwhile: then those are the draft.
      if (!images.length || this._composerImages.length || this.isDisposed) return;
      this._composerImages = images;
      if (this._ready) this._post({ type: 'restoreInput', texts: [], images });
    });
    this._extensionUri = extensionUri;
    this._client = client;
    this._log = log;
    this._feed = this._register(new ViewFeed(client, (msg) => this._post(msg), realScheduler));
    this._register(
      client.onDidRestoreInput(({ texts, images }) => {
        if (this._ready) this._post({ type: 'restoreInput', texts, ...(images?.length ? { images } : {}) });
        else {
          this._pendingRestore.push(...texts);
          this._pendingRestoreImages.push(...(images ?? []));
        }
      }),
    );
    this._register(client.onDidChangeSession((session) => this._post({ type: 'session', session })));
    this._register(client.onDidSetInput((text) => this._post({ type: 'setInput', text })));
    this._sessions = new SessionActions(client, (msg) => this._post(msg), log);
    this._models = this._register(new ModelSetup(client, (msg) => this._post(msg), log));
    this._register(
      client.onDidExtensionUi((n) => {
        if (n.kind === 'title' || n.kind === 'reset') this._setTitle(n.kind === 'title' ? n.title : '');
        else if (n.kind === 'editorText') this._post({ type: 'editorText', text: n.text, paste: n.paste });
        else if (n.kind === 'bound') {
          this._trackComposer = n.count > 0;
          if (this._ready) this._post({ type: 'trackComposer', on: this._trackComposer });
        }
      }),
    );
  }

  /** Runs `piPanel.<command>` for this chat: a view's buttons, drops and slash commands act on their own chat, not the focused one. */
  private async _run(command: string, ...args: unknown[]): Promise<void> {
    await vscode.commands.executeCommand(...commandFromChat(this.chatId, command, ...args));
  }

  /** Pi's slash commands (extension commands, prompt templates, skills); none when there is no session. */
  private async _piCommands(): Promise<readonly SlashCommand[]> {
    return (await this._client.call('listCommands', null))?.commands ?? [];
  }

  /** The panel's built-in slash commands: each is one of its actions. */
  private async _slash(name: BuiltinName, args: string): Promise<void> {
    const c = this._client;
    switch (name) {
      case 'new':
        return c.request({ name: 'newSession', params: null });
      case 'resume':
        return this.showSessions();
      case 'compact':
        await (args ? c.call('compactWith', { instructions: args }) : c.call('compact', null));
        return;
      case 'model':
        return this._run('selectModel');
      case 'thinking':
        if (args)
          return c
            .ask('setThinkingLevel', { level: args })
            .then(() => undefined)
            .catch((err: unknown) => void vscode.window.showErrorMessage(plainNotificationText(vscode.l10n.t('Pi: {0}', String(err)))));
        return this._run('setThinkingLevel');
      case 'name': {
        const title = args || (await vscode.window.showInputBox({ prompt: vscode.l10n.t('Name this Pi session'), value: c.state.sessionName ?? '' }));
        if (title?.trim()) await c.call('setSessionName', { name: title.trim() });
        return;
      }
      case 'export':
        return this._run('exportTranscript');
      case 'plan': {
        // A Pi extension's own `/plan` (Pi's plan-mode example) wins: the panel's toggle stays on its button and command.
        if ((await this._piCommands()).some((x) => x.name === 'plan')) return c.send(args ? `/plan ${args}` : '/plan', 'prompt');
        if (!args) return this._run('togglePlanMode');
        await c.call('setPlanMode', { on: true });
        return c.send(args, 'prompt');
      }
      case 'copy': {
        const last = [...c.state.messages].reverse().find((m) => m.role === 'assistant' && m.final);
        const text = (last?.blocks ?? [])
          .filter((b) => b?.kind === 'text')
          .map((b) => b!.text)
          .join('\n\n')
          .trim();
        if (!text) {
          void vscode.window.showInformationMessage(vscode.l10n.t('Pi: there is no answer to copy yet.'));
          return;
        }
        await vscode.env.clipboard.writeText(text);
        vscode.window.setStatusBarMessage(vscode.l10n.t('Pi: last answer copied'), 3000);
        return;
      }
      default:
        assertNever(name, 'slash command');
    }
  }

  /** Pi's extensions are bound: the view reports the composer's text for their `getEditorText()`. */
  private _trackComposer = false;

  /** An extension's `setTitle`; kept for a view created later. */
  private _title: string | undefined;
  /** The view's last picture of its rows: a view created again draws it before its script loads (hiding the view ends its page). */
  private _picture: readonly unknown[] | undefined;
  /** The picture drawn into the HTML last set: a hidden view's page is made again only for a newer one. */
  private _pictureInPage: readonly unknown[] | undefined;

  private _setTitle(title: string): void {
    this._title = title.trim() || undefined;
    this.refreshTitle();
  }

  /** Another chat opened or left a session: the Sessions list on screen updates its "open in" marks. */
  sessionsMoved(): void {
    if (this._ready) this._sessions.refreshMarks();
  }

  /** Sets the title again (the session was named, the mark changed). */
  refreshTitle(): void {
    if (this._view) this._view.title = `${this._mark ? '● ' : ''}${this._title ?? this._baseTitle()}`;
  }

  /** Sets the activity-bar badge (shown by the sidebar's view); none clears it. */
  setBadge(badge: vscode.ViewBadge | undefined): void {
    this._badge = badge;
    if (this._view && isSidebarView(this._view)) this._view.badge = badge;
  }

  /** Marks the title (●) while something happened that the user has not seen. */
  setMark(on: boolean): void {
    if (on === this._mark) return;
    this._mark = on;
    this.refreshTitle();
  }

  /** Shows the Sessions list (title-bar button, palette, `/resume`). */
  showSessions(): void {
    if (this._ready) this._post({ type: 'showMode', mode: 'sessions' });
    else this._pendingSessions = true;
  }

  get isVisible(): boolean {
    return this._view?.visible ?? false;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.attach(view);
  }

  /** Shows the chat in `view` (the sidebar's, or an editor tab's); the one it had before is dropped. */
  attach(view: ChatHost): void {
    this._dropView();
    this._view = view;
    const uri = (...segments: string[]) => vscode.Uri.joinPath(this._extensionUri, ...segments);
    view.webview.options = { enableScripts: true, localResourceRoots: [uri('dist', 'webview'), uri('media')] };
    const page = (): string => {
      this._pictureInPage = this._picture;
      return chatHtml(
        view.webview,
        uri,
        { language: vscode.env.language, bundle: vscode.l10n.bundle },
        this.chatId,
        this.chatKey,
        this.worktreeBranch,
        this._picture,
      );
    };
    view.webview.html = page();
    if (this._title || this._mark || this.chatId !== 'sidebar') this.refreshTitle();
    if (isSidebarView(view)) {
      view.badge = this._badge;
      this._viewDisposables.push(view.onDidChangeVisibility(() => this._onDidChangeVisible.fire()));
    }
    // Shown again, the view's page is made from the HTML last set: it should hold the picture the view saved last.
    const shownOrHidden = isSidebarView(view) ? view.onDidChangeVisibility : isPanel(view) ? view.onDidChangeViewState : undefined;
    if (shownOrHidden) {
      const host: PageHost = {
        webview: view.webview,
        onDidChangeVisibility: (f) => shownOrHidden(() => f()),
        get visible() {
          return view.visible;
        },
      };
      this._viewDisposables.push(pageWhenHidden(host, () => (this._picture === this._pictureInPage ? undefined : page())));
    }
    this._viewDisposables.push(
      view.webview.onDidReceiveMessage((raw: unknown) => this._onMessage(raw)),
      // The session outlives the view: a disposed view only drops its references.
      view.onDidDispose(() => {
        if (this._view === view) this._dropView();
      }),
    );
  }

  /**
   * A worktree chat's branch was renamed (after its first prompt): the tab's title says it now; the page's body
   * and strip carry it from the next time the page is made (drawing the page again at once lost a hidden tab's transcript).
   */
  setWorktreeBranch(branch: string): void {
    this.worktreeBranch = branch;
    this.refreshTitle();
    // A view made later has it in its page; the one shown now is told.
    if (this._ready) this._post({ type: 'worktreeBranch', branch });
  }

  /** Puts a chip in the composer (and `prompt` into an empty composer); held until a view is there to take it. */
  addChip(chip: CodeChip, prompt?: string): void {
    const msg = { type: 'addChip', chip, ...(prompt ? { prompt } : {}) } as const;
    if (this._ready) this._post(msg);
    else this._pendingChips.push(msg);
  }

  /** The chat's pending changes, for its Changes rows; sent again to a re-created view. */
  showPending(pending: PendingSummary): void {
    this._pending = pending;
    if (this._ready) this._post({ type: 'reviewPending', pending });
  }

  /** Focuses the composer (after the view is shown). */
  /** Pi: Find in Chat: opens the view's find box, searching for `text` if given. */
  openFind(text?: string): void {
    this._post({ type: 'openFind', ...(text ? { text } : {}) });
  }

  focusComposer(): void {
    this._post({ type: 'focusComposer' });
  }

  override dispose(): void {
    this._dropView();
    super.dispose();
  }

  private _dropView(): void {
    this._ready = false;
    this._feed.close();
    for (const d of this._viewDisposables) d.dispose();
    this._viewDisposables = [];
    this._view = undefined;
  }

  /** One funnel to the webview; never awaited, a no-op without a view. */
  private _post(msg: HostToWebview): void {
    const view = this._view;
    if (!view || this.isDisposed) return;
    view.webview.postMessage(msg).then(undefined, (err: unknown) => this._log.warn(`postMessage failed: ${String(err)}`));
  }

  private _onMessage(raw: unknown): void {
    const parsed = parseWebviewMessage(raw);
    if (!parsed.ok) {
      this._log.warn(`Dropped a malformed message from the chat view: ${parsed.reason}`);
      return;
    }
    this._handle(parsed.msg).catch((err: unknown) => this._log.error(`Handling "${parsed.msg.type}" failed: ${String(err)}`));
  }

  private async _handle(msg: WebviewToHost): Promise<void> {
    // Most requests pass through untouched: the worker answers them, as their table says.
    if (isCommandMessage(msg)) {
      await this._client.request(commandOf(msg));
      // The tree view shows where the session is after a move in it.
      if (msg.type === 'navigateTree') await this._sessions.showTree();
      return;
    }
    switch (msg.type) {
      case 'ready': {
        this._feed.open();
        this._ready = true;
        for (const pending of this._pendingChips.splice(0)) this._post({ type: 'addChip', ...pending });
        if (this._trackComposer) this._post({ type: 'trackComposer', on: true });
        if (this._pending) this._post({ type: 'reviewPending', pending: this._pending });
        if (this._pendingSessions) {
          this._pendingSessions = false;
          this._post({ type: 'showMode', mode: 'sessions' });
        }
        if (this._composerImages.length) this._post({ type: 'restoreInput', texts: [], images: this._composerImages });
        if (this._pendingRestore.length) {
          const images = this._pendingRestoreImages;
          this._post({ type: 'restoreInput', texts: this._pendingRestore, ...(images.length ? { images } : {}) });
          this._pendingRestore = [];
          this._pendingRestoreImages = [];
        }
        // Opening the view may load Pi, so history shows without waiting for a prompt.
        setTimeout(() => void this._client.ensureSession(), 0);
        return;
      }
      case 'send':
        return this._client.send(msg.text, msg.mode, msg.images);
      case 'cancel':
        return this._client.cancel();
      case 'forceIdle':
        return this._client.worker.forceIdle();
      case 'openLink':
        return openLink(msg.href, this._review.root, this._log);
      case 'showLog':
        await vscode.commands.executeCommand('piPanel.showLog');
        return;
      case 'focused':
        this._onDidFocus.fire();
        return;
      case 'continueInterrupted':
        return this._client.continueInterrupted();
      case 'runCommand':
        // The header's model button opens the view's own picker; the palette's Select Model keeps its quick pick.
        return msg.command === 'selectModel' ? this._models.showPicker() : this._run(msg.command);
      case 'insertCode':
        return insertAtCursor(msg.text);
      case 'openSvg':
        return openSvg(msg.svg);
      case 'openFile':
        return this._review.openFile(msg.path, msg.line, msg.firstChange === true);
      case 'openDiff':
        return this._review.openDiff(msg.path, msg.runId);
      case 'undo':
        return this._review.undo(msg.path, msg.runId);
      case 'pickFile':
        return this._run('addFile');
      case 'dropUris':
        return this._run('addDropped', msg.uris);
      case 'composerImages':
        this._composerImages = msg.images;
        return this._imageDraft.save(msg.images);
      case 'listCommands': {
        const own = await this._piCommands();
        // Pi's `/plan` of an extension replaces the panel's in the menu, as it does when sent.
        const builtins = own.some((x) => x.name === 'plan') ? builtinCommands().filter((x) => x.name !== 'plan') : builtinCommands();
        const commands = [...builtins, ...own];
        this._post({ type: 'commands', commands });
        return;
      }
      case 'slash':
        return this._slash(msg.name, msg.args);
      case 'listSessions':
        return this._sessions.list(msg.query, msg.offset);
      case 'openSession':
        return this._sessions.open(msg.file);
      case 'renameSession':
        await this._sessions.rename(msg.file, msg.name);
        return this._sessions.refresh();
      case 'deleteSession':
        if (await this._sessions.delete(msg.file)) await this._sessions.refresh();
        return;
      case 'showTree':
        return this._sessions.showTree();
      case 'loadEarlier':
        return this._feed.loadEarlier(msg.before, msg.count);
      case 'loadAround':
        return this._feed.loadAround(msg.id, msg.count);
      case 'savedPicture':
        this._picture = msg.rows;
        return;
      case 'find': {
        const found = await this._client.find(msg.query);
        return this._post({ type: 'found', seq: msg.seq, ...found });
      }
      case 'signIn':
        return this._models.signIn(msg.provider, msg.method);
      case 'pickModel':
        return this._models.pick(msg.model, msg.scope);
      case 'favouriteModel':
        return this._models.favourite(msg.model, msg.on);
      case 'signOut':
        return this._models.signOut(msg.provider);
      default:
        assertNever(msg, 'webview message');
    }
  }
}
