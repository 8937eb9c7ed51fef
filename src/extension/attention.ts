/**
 * News from chats out of sight: a run that finished or failed, or a question waiting. Marks the chat's tab (●),
 * counts such chats on the Pi activity-bar icon, and (per `piPanel.notify`) says so in a notification whose
 * only button is Open Chat: an answer is given in the chat's card, where the whole question shows. A question
 * in a chat out of sight is the dialog mirror's to announce (ExtensionSurfaces), once.
 */

import * as vscode from 'vscode';
import { Disposable } from '../shared/disposable.ts';
import { chatNews, type ChatNews } from '../shared/run/chatSummary.ts';
import type { RunPhase } from '../shared/run/runState.ts';
import { plainNotificationText } from '../shared/notificationText.ts';
import type { Chat, Chats } from './chats.ts';
import { notifySetting } from './config.ts';

export class Attention extends Disposable {
  private readonly _chats: Chats;
  private readonly _phases = new Map<Chat, RunPhase>();

  constructor(chats: Chats) {
    super();
    this._chats = chats;
    this._register(chats.onDidChange(() => this._update()));
    this._register(vscode.window.onDidChangeWindowState(() => this._update()));
  }

  private _update(): void {
    const all = this._chats.all;
    for (const chat of [...this._phases.keys()]) if (!all.includes(chat)) this._phases.delete(chat);
    for (const chat of all) {
      const phase = chat.phase;
      const before = this._phases.get(chat) ?? 'idle';
      this._phases.set(chat, phase);
      if (chat.visible) chat.unseen = false;
      const news = before === phase ? undefined : chatNews(before, phase, chat.client.state.run.outcome);
      if (!news) continue;
      if (!chat.visible) chat.unseen = true;
      this._notify(chat, news);
    }
    for (const chat of all) if (chat.panel) chat.view.setMark(chat.unseen);
    const unseen = all.filter((c) => c.unseen);
    this._chats.sidebar.view.setBadge(
      unseen.length ? { value: unseen.length, tooltip: vscode.l10n.t('Pi chats with news: {0}', unseen.map((c) => c.label).join(', ')) } : undefined,
    );
  }

  private _notify(chat: Chat, news: ChatNews): void {
    const setting = notifySetting();
    if (setting === 'off') return;
    if (setting !== 'always' && chat.visible && vscode.window.state.focused) return;
    // A question in a chat out of sight is announced by its dialog's own notification (ExtensionSurfaces).
    if (news === 'waiting' && !chat.visible) return;
    // The chat's name is the session's: plain text, never a link.
    const name = plainNotificationText(chat.label);
    const text =
      news === 'waiting'
        ? vscode.l10n.t('Pi is waiting for you in "{0}". Answer in the chat.', name)
        : news === 'failed'
          ? vscode.l10n.t('Pi: the run in "{0}" failed.', name)
          : vscode.l10n.t('Pi: the run in "{0}" finished.', name);
    const openChat = vscode.l10n.t('Open Chat');
    const show = news === 'failed' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    void show(text, openChat).then((choice) => {
      if (choice === openChat && this._chats.all.includes(chat)) void this._chats.reveal(chat);
    });
  }
}
