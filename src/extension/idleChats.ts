/** Bounded cost: the worker of a chat left idle for `piPanel.idleChatMinutes` stops; the chat's next need starts one. */

import * as vscode from 'vscode';
import { Disposable, toDisposable } from '../shared/disposable.ts';
import type { Chat, Chats } from './chats.ts';

export class IdleChats extends Disposable {
  private readonly _timers = new Map<Chat, ReturnType<typeof setTimeout>>();
  private readonly _chats: Chats;

  constructor(chats: Chats) {
    super();
    this._chats = chats;
    this._register(chats.onDidChange(() => this._update()));
    this._register(toDisposable(() => [...this._timers.values()].forEach(clearTimeout)));
  }

  private _update(): void {
    const all = this._chats.all;
    for (const [chat, timer] of this._timers) {
      if (!all.includes(chat) || chat.phase !== 'idle') {
        clearTimeout(timer);
        this._timers.delete(chat);
      }
    }
    const ms = idleMs();
    if (ms === undefined) return;
    for (const chat of all) {
      if (chat.phase !== 'idle' || this._timers.has(chat) || !chat.client.workerStarted) continue;
      this._timers.set(
        chat,
        setTimeout(() => {
          this._timers.delete(chat);
          if (this._chats.all.includes(chat)) void chat.client.stopIdle();
        }, ms),
      );
    }
  }
}

/** `piPanel.idleChatMinutes` in ms (default 15 min); 0 keeps workers running. */
function idleMs(): number | undefined {
  const v = vscode.workspace.getConfiguration('piPanel').get<number>('idleChatMinutes', 15);
  const minutes = typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 15;
  return minutes > 0 ? minutes * 60_000 : undefined;
}
