/** VS Code surfaces for Pi's extensions: a status-bar item per `setStatus` key, and dialogs mirrored as notifications while the chat is hidden. */

import * as vscode from 'vscode';
import { Disposable, toDisposable } from '../shared/disposable.ts';
import { DialogMirror } from './dialogMirror.ts';
import type { PiClient } from './piClient.ts';

/** Status items an extension may hold at once; more would crowd out everyone else's. */
const MAX_STATUS_ITEMS = 10;

export class ExtensionSurfaces extends Disposable {
  private readonly _status = new Map<string, vscode.StatusBarItem>();
  /** The same question as a notification that says Pi waits and opens the chat; it never answers. */
  private readonly _mirror: DialogMirror;

  /** `onDidChangeSight` fires when the chat may have gone out of sight (or come back). */
  constructor(client: PiClient, isViewVisible: () => boolean, openChat: () => Promise<void>, onDidChangeSight: vscode.Event<void>) {
    super();
    this._mirror = new DialogMirror({
      show: (text, buttons) => vscode.window.showInformationMessage(text, ...buttons),
      openChat,
      // Gone by itself after five seconds.
      say: (text) => void vscode.window.setStatusBarMessage(text, 5000),
    });
    this._register(
      client.onDidExtensionUi((n) => {
        if (n.kind === 'status') this._setStatus(n.key, n.text);
        else if (n.kind === 'reset') {
          for (const item of this._status.values()) item.dispose();
          this._status.clear();
        }
      }),
    );
    this._register(
      client.onDidEmit((events) => {
        for (const ev of events) {
          if (ev.type === 'dialogOpen') this._mirror.opened(ev.dialog, isViewVisible());
          else if (ev.type === 'dialogClose') this._mirror.closed(ev.id, ev.outcome);
        }
      }),
    );
    // The view's hiding reaches the host on its own path: a question that opened just before it did is announced then.
    this._register(onDidChangeSight(() => this._mirror.sightChanged(isViewVisible())));
    this._register(
      toDisposable(() => {
        for (const item of this._status.values()) item.dispose();
        this._status.clear();
      }),
    );
  }

  private _setStatus(key: string, text: string | undefined): void {
    let item = this._status.get(key);
    if (!text) {
      item?.dispose();
      this._status.delete(key);
      return;
    }
    if (!item) {
      if (this._status.size >= MAX_STATUS_ITEMS) return;
      item = vscode.window.createStatusBarItem(`piPanel.extension.${key}`, vscode.StatusBarAlignment.Left, 97);
      item.name = vscode.l10n.t('Pi extension: {0}', key);
      item.command = 'piPanel.focusChat';
      this._status.set(key, item);
    }
    // Status-bar text renders $(icon) syntax; an extension's text is shown as it is.
    item.text = text.replace(/\$\(/g, '$\u200b(');
    item.tooltip = vscode.l10n.t('Pi extension status ({0})', key);
    item.show();
  }
}
