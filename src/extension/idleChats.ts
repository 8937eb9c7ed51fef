/**
 * Bounded cost: the worker of a chat left idle for `piPanel.idleChatMinutes` stops; the chat's next need starts
 * one. Loading Pi in a new worker takes a second or more, so a chat whose worker stopped gets one back as soon as
 * the user comes back to it (its view shown again, or focused), before they have typed what they will send.
 */

import { Disposable, toDisposable, type IDisposable } from '../shared/disposable.ts';
import type { RunPhase } from '../shared/run/runState.ts';

/** What the policy needs of a chat. */
export interface IdleChat {
  readonly phase: RunPhase;
  readonly visible: boolean;
  readonly client: {
    readonly workerStarted: boolean;
    /** Stops the worker when idle; false when it did not (busy, none). */
    stopIdle(): Promise<boolean>;
    /** Starts the worker and opens the session. */
    ensureSession(): Promise<boolean>;
  };
}

/** What the policy needs of the chats. */
export interface IdleChatsHost<C extends IdleChat> {
  readonly all: readonly C[];
  /** A chat was added or closed, or its run or visibility changed. */
  onDidChange(listener: () => void): IDisposable;
  /** The user put the focus in a chat. */
  onDidFocus(listener: (chat: C) => void): IDisposable;
}

/** Timers as the policy uses them (tests drive their own). */
export interface IdleTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: IdleTimers = { set: (fn, ms) => setTimeout(fn, ms), clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>) };

export class IdleChats<C extends IdleChat> extends Disposable {
  private readonly _timers = new Map<C, unknown>();
  /** Chats whose worker this stopped: shown again or focused, they get one back. */
  private readonly _stopped = new Set<C>();
  /** Whether each chat's view showed at the last change. */
  private readonly _shown = new Map<C, boolean>();
  private readonly _chats: IdleChatsHost<C>;
  private readonly _idleMs: () => number | undefined;
  private readonly _clock: IdleTimers;

  /** `idleMs`: the idle time after which a worker stops (`piPanel.idleChatMinutes`); undefined keeps workers running. */
  constructor(chats: IdleChatsHost<C>, idleMs: () => number | undefined, timers: IdleTimers = realTimers) {
    super();
    this._chats = chats;
    this._idleMs = idleMs;
    this._clock = timers;
    this._register(chats.onDidChange(() => this._update()));
    this._register(chats.onDidFocus((chat) => this._warm(chat)));
    this._register(toDisposable(() => [...this._timers.values()].forEach((t) => this._clock.clear(t))));
  }

  private _update(): void {
    const all = this._chats.all;
    for (const chat of [...this._shown.keys()]) {
      if (all.includes(chat)) continue;
      this._shown.delete(chat);
      this._stopped.delete(chat);
    }
    for (const chat of all) {
      const shown = chat.visible;
      const was = this._shown.get(chat) ?? shown;
      this._shown.set(chat, shown);
      if (shown && !was) this._warm(chat);
    }
    for (const [chat, timer] of this._timers) {
      if (!all.includes(chat) || chat.phase !== 'idle') {
        this._clock.clear(timer);
        this._timers.delete(chat);
      }
    }
    const ms = this._idleMs();
    if (ms === undefined) return;
    for (const chat of all) {
      if (chat.phase !== 'idle' || this._timers.has(chat) || !chat.client.workerStarted) continue;
      this._timers.set(
        chat,
        this._clock.set(() => {
          this._timers.delete(chat);
          if (!this._chats.all.includes(chat)) return;
          void chat.client.stopIdle().then((stopped) => {
            if (stopped) this._stopped.add(chat);
          });
        }, ms),
      );
    }
  }

  /** The user came back to `chat`: a worker this stopped starts again now, not when they send. */
  private _warm(chat: C): void {
    if (!this._stopped.delete(chat) || chat.client.workerStarted || !this._chats.all.includes(chat)) return;
    void chat.client.ensureSession();
  }
}
