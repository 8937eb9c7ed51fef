/** The sidebar chat view: serves the webview, validates what it says, and feeds it snapshot then batches. */

import * as vscode from 'vscode';
import { Batcher, realScheduler } from '../shared/batcher.ts';
import { assertNever, parseWebviewMessage, type HostToWebview, type WebviewToHost } from '../shared/protocol.ts';
import { Disposable } from '../shared/disposable.ts';
import { insertAtCursor, openLink } from './links.ts';
import type { Logger, PiClient } from './piClient.ts';
import { SessionActions } from './sessionActions.ts';
import { chatHtml } from './webviewHtml.ts';

export class ChatViewProvider extends Disposable implements vscode.WebviewViewProvider {
  static readonly viewType = 'piPanel.chat';

  private _view: vscode.WebviewView | undefined;
  private _viewDisposables: vscode.Disposable[] = [];
  private readonly _batcher: Batcher;
  /** Texts to give back to the composer once a view is there to take them. */
  private _pendingRestore: string[] = [];
  private _ready = false;
  /** The Sessions list was asked for before the view was there. */
  private _pendingSessions = false;
  private readonly _extensionUri: vscode.Uri;
  private readonly _controller: PiClient;
  private readonly _log: Logger;
  private readonly _sessions: SessionActions;

  constructor(extensionUri: vscode.Uri, controller: PiClient, log: Logger) {
    super();
    this._extensionUri = extensionUri;
    this._controller = controller;
    this._log = log;
    this._batcher = new Batcher((events) => this._post({ type: 'batch', events }), realScheduler);
    this._register(this._batcher);
    this._register(
      controller.onDidEmit((events) => {
        if (!this._ready) return;
        for (const ev of events) this._batcher.push(ev);
      }),
    );
    this._register(
      controller.onDidRestoreInput((texts) => {
        if (this._ready) this._post({ type: 'restoreInput', texts });
        else this._pendingRestore.push(...texts);
      }),
    );
    this._register(controller.onDidChangeSession((session) => this._post({ type: 'session', session })));
    this._register(controller.onDidSetInput((text) => this._post({ type: 'setInput', text })));
    this._sessions = new SessionActions(controller, (msg) => this._post(msg), log);
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
    this._dropView();
    this._view = view;
    const uri = (...segments: string[]) => vscode.Uri.joinPath(this._extensionUri, ...segments);
    view.webview.options = { enableScripts: true, localResourceRoots: [uri('dist', 'webview'), uri('media')] };
    view.webview.html = chatHtml(view.webview, uri);
    this._viewDisposables.push(
      view.webview.onDidReceiveMessage((raw: unknown) => this._onMessage(raw)),
      // The session outlives the view: a disposed view only drops its references.
      view.onDidDispose(() => {
        if (this._view === view) this._dropView();
      }),
    );
  }

  /** Focuses the composer (after the view is shown). */
  focusComposer(): void {
    this._post({ type: 'focusComposer' });
  }

  override dispose(): void {
    this._dropView();
    super.dispose();
  }

  private _dropView(): void {
    this._ready = false;
    this._batcher.discard();
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
    switch (msg.type) {
      case 'ready': {
        // Everything queued is already in the host state the snapshot carries.
        this._batcher.discard();
        this._post({ type: 'snapshot', state: this._controller.state, session: this._controller.sessionInfo });
        this._ready = true;
        if (this._pendingSessions) {
          this._pendingSessions = false;
          this._post({ type: 'showMode', mode: 'sessions' });
        }
        if (this._pendingRestore.length) {
          this._post({ type: 'restoreInput', texts: this._pendingRestore });
          this._pendingRestore = [];
        }
        // Opening the view may load Pi, so history shows without waiting for a prompt.
        setTimeout(() => void this._controller.ensureSession(), 0);
        return;
      }
      case 'send':
        return this._controller.send(msg.text, msg.mode);
      case 'cancel':
        return this._controller.cancel();
      case 'newSession':
        return this._controller.newSession();
      case 'forceIdle':
        return this._controller.forceIdle();
      case 'openLink':
        return openLink(msg.href, this._controller.sessionInfo.cwd, this._log);
      case 'showLog':
        await vscode.commands.executeCommand('piPanel.showLog');
        return;
      case 'retryLast':
        return this._controller.retryLast();
      case 'runCommand':
        await vscode.commands.executeCommand(`piPanel.${msg.command}`);
        return;
      case 'insertCode':
        return insertAtCursor(msg.text);
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
      case 'editResend':
        return this._controller.editResend(msg.fromEnd, msg.text);
      case 'forkHere':
        return this._controller.forkHere(msg.fromEnd, msg.text);
      case 'showTree':
        return this._sessions.showTree();
      case 'navigateTree':
        await this._controller.navigateTree(msg.entryId);
        return this._sessions.showTree();
      default:
        assertNever(msg, 'webview message');
    }
  }
}
