/** VS Code surfaces for Pi's extensions: a status-bar item per `setStatus` key, and dialogs mirrored as notifications while the chat is hidden. */

import * as vscode from 'vscode';
import { dialogChoices, type DialogView } from '../shared/extensionUi.ts';
import { Disposable, toDisposable } from '../shared/disposable.ts';
import { plainNotificationText } from '../shared/notificationText.ts';
import type { PiClient } from './piClient.ts';

/** Status items an extension may hold at once; more would crowd out everyone else's. */
const MAX_STATUS_ITEMS = 10;

export class ExtensionSurfaces extends Disposable {
  private readonly _status = new Map<string, vscode.StatusBarItem>();
  private readonly _client: PiClient;

  constructor(client: PiClient, isViewVisible: () => boolean, openChat: () => Promise<void>) {
    super();
    this._client = client;
    this._register(
      client.onDidExtensionUi((n) => {
        if (n.kind === 'status') this._setStatus(n.key, n.text);
      }),
    );
    this._register(
      client.onDidEmit((events) => {
        for (const ev of events) if (ev.type === 'dialogOpen' && !isViewVisible()) void this._mirror(ev.dialog, openChat);
      }),
    );
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
      item.name = `Pi extension: ${key}`;
      item.command = 'piPanel.focusChat';
      this._status.set(key, item);
    }
    // Status-bar text renders $(icon) syntax; an extension's text is shown as it is.
    item.text = text.replace(/\$\(/g, '$\u200b(');
    item.tooltip = `Pi extension status (${key})`;
    item.show();
  }

  /** The same question as a notification: its choices answer the dialog; input and editor open the chat. */
  private async _mirror(d: DialogView, openChat: () => Promise<void>): Promise<void> {
    const choices = dialogChoices(d);
    const text = plainNotificationText(`Pi is waiting for you: ${d.title}${d.message ? ` — ${d.message}` : ''}`);
    const open = 'Open Chat';
    const picked = await vscode.window.showInformationMessage(text, ...(choices.length ? choices : [open]));
    if (picked === undefined) return;
    if (picked === open && !choices.includes(open)) await openChat();
    else await this._client.answerDialog(d.id, picked);
  }
}
