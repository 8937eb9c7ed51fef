/** The sidebar chat view: serves the webview, validates what it says, and feeds it snapshot then batches. */

import * as vscode from 'vscode';
import { Batcher, realScheduler } from '../shared/batcher.ts';
import { assertNever, parseWebviewMessage, type HostToWebview, type WebviewToHost } from '../shared/protocol.ts';
import { Disposable } from '../shared/disposable.ts';
import { earlierPage } from '../shared/transcript.ts';
import { insertAtCursor, openLink } from './links.ts';
import type { Logger, PiClient } from './piClient.ts';
import { frameMessage, snapshotMessage } from './viewFeed.ts';
import { chatHtml } from './webviewHtml.ts';

export class ChatViewProvider extends Disposable implements vscode.WebviewViewProvider {
  static readonly viewType = 'piPanel.chat';

  private _view: vscode.WebviewView | undefined;
  private _viewDisposables: vscode.Disposable[] = [];
  private readonly _batcher: Batcher;
  /** Texts to give back to the composer once a view is there to take them. */
  private _pendingRestore: string[] = [];
  private _ready = false;
  private readonly _extensionUri: vscode.Uri;
  private readonly _controller: PiClient;
  private readonly _log: Logger;

  constructor(extensionUri: vscode.Uri, controller: PiClient, log: Logger) {
    super();
    this._extensionUri = extensionUri;
    this._controller = controller;
    this._log = log;
    this._batcher = new Batcher((events) => this._post(frameMessage(controller.state, controller.sessionInfo, events)), realScheduler);
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
        this._post(snapshotMessage(this._controller.state, this._controller.sessionInfo));
        this._ready = true;
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
      case 'loadEarlier': {
        // No such row any more (a reset since the view asked): the view already has the new transcript.
        const page = earlierPage(this._controller.state, msg.before, msg.count);
        if (page) this._post({ type: 'earlier', before: msg.before, ...page });
        return;
      }
      default:
        assertNever(msg, 'webview message');
    }
  }
}
