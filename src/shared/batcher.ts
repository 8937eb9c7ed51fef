/**
 * Frame batching for the wire: events queue up and leave in one `post` per frame at most, in order,
 * with adjacent deltas of the same block merged and a tool's older output snapshot replaced by its newest.
 */

import type { WireEvent } from './wire/events.ts';
import { mergedPatches, patchedRow, rowOf, wireRow } from './transcript/applyChanges.ts';

/** ~60 frames a second. */
export const FRAME_MS = 16;

/** The clock and timer the batcher runs on; the host passes real ones, tests a `TestClock`. */
export interface Scheduler {
  now(): number;
  /** Runs `fn` once after `ms`; returns a function that cancels it. */
  setTimer(fn: () => void, ms: number): () => void;
}

export class Batcher {
  private _queue: WireEvent[] = [];
  private _cancelTimer: (() => void) | undefined;
  private _lastFlush = Number.NEGATIVE_INFINITY;
  private _disposed = false;
  private readonly _post: (events: WireEvent[]) => void;
  private readonly _scheduler: Scheduler;
  private readonly _frameMs: number;

  constructor(post: (events: WireEvent[]) => void, scheduler: Scheduler, frameMs = FRAME_MS) {
    this._post = post;
    this._scheduler = scheduler;
    this._frameMs = frameMs;
  }

  push(ev: WireEvent): void {
    if (this._disposed) return;
    if (!this._coalesce(ev)) this._queue.push(ev);
    this._schedule();
  }

  /**
   * Queues a batch that was already gathered per frame (the worker's, on the main thread). When nothing is
   * waiting and a frame has passed since the last post, it goes now: the receiver does not wait for a timer,
   * which would add a delay to every frame that carries over to the next one (each post moves the frame the
   * next one may go in). Still one post per frame at most.
   */
  pushBatch(events: readonly WireEvent[]): void {
    if (this._disposed || !events.length) return;
    for (const ev of events) if (!this._coalesce(ev)) this._queue.push(ev);
    if (!this._cancelTimer && this._scheduler.now() - this._lastFlush >= this._frameMs) this.flush();
    else this._schedule();
  }

  /** Sends whatever is queued now (before a snapshot, or on dispose). */
  flush(): void {
    this._cancelTimer?.();
    this._cancelTimer = undefined;
    if (!this._queue.length) return;
    const events = this._queue;
    this._queue = [];
    this._lastFlush = this._scheduler.now();
    this._post(events);
  }

  /** Drops what is queued without sending it (the receiver is about to get a snapshot that includes it). */
  discard(): void {
    this._cancelTimer?.();
    this._cancelTimer = undefined;
    this._queue = [];
  }

  get pending(): number {
    return this._queue.length;
  }

  dispose(): void {
    this.discard();
    this._disposed = true;
  }

  private _schedule(): void {
    if (this._cancelTimer) return;
    const wait = Math.max(0, this._lastFlush + this._frameMs - this._scheduler.now());
    this._cancelTimer = this._scheduler.setTimer(() => {
      this._cancelTimer = undefined;
      this.flush();
    }, wait);
  }

  /** Merges `ev` into the queue when that changes nothing the receiver would see. */
  private _coalesce(ev: WireEvent): boolean {
    const last = this._queue[this._queue.length - 1];
    if (ev.type === 'delta' && last?.type === 'delta' && last.index === ev.index) {
      this._queue[this._queue.length - 1] = { type: 'delta', index: ev.index, text: last.text + ev.text };
      return true;
    }
    if (ev.type === 'patch' && last?.type === 'patch' && last.id === ev.id) {
      const merged = mergedPatches(last, ev);
      if (merged) this._queue[this._queue.length - 1] = merged;
      return merged !== undefined;
    }
    if (ev.type === 'patch' && last?.type === 'row' && last.id === ev.id) {
      // A row still queued takes the patch right behind it (a reply that starts, its first block and words):
      // one change. Not when the patch adds to text the row leaves out (the receiver's).
      const touchesText = ev.text || (ev.block !== undefined && 'text' in ev.block);
      if (touchesText && last.same?.includes(ev.index ?? 0)) return false;
      this._queue[this._queue.length - 1] = { ...last, row: wireRow(patchedRow(rowOf(last), ev)) };
      return true;
    }
    if (ev.type === 'row' && last?.type === 'patch' && last.id === ev.id && !ev.same?.length) {
      // The whole row says all the patch did.
      this._queue[this._queue.length - 1] = ev;
      return true;
    }
    if (ev.type === 'row' && last?.type === 'row' && last.id === ev.id) {
      // A newer version of the same row right behind the older (a block and the reply ending): only it goes,
      // with the text it leaves out (`same`) taken from the older where the receiver would not hold it yet.
      this._queue[this._queue.length - 1] = mergedRows(last, ev);
      return true;
    }
    if (ev.type === 'cards' && ev.cards.length === 1) {
      // A running card's newer output replaces an older queued one of the same call, as toolUpdate's does.
      for (let i = this._queue.length - 1; i >= 0; i--) {
        const q = this._queue[i]!;
        if (q.type === 'cards' && q.cards.length === 1) {
          if (q.cards[0]!.toolCallId === ev.cards[0]!.toolCallId) {
            this._queue.splice(i, 1);
            this._queue.push(ev);
            return true;
          }
          continue;
        }
        if (q.type === 'patch' || q.type === 'delta') continue;
        break;
      }
    }
    if (ev.type === 'toolUpdate') {
      // Output updates are snapshots: a newer one replaces an older queued one of the same call, as long
      // as nothing else about that call sits between them. Updates of parallel calls interleave.
      for (let i = this._queue.length - 1; i >= 0; i--) {
        const q = this._queue[i]!;
        if (q.type === 'toolUpdate') {
          if (q.toolCallId === ev.toolCallId) {
            this._queue[i] = ev;
            return true;
          }
          continue;
        }
        if (q.type === 'delta') continue;
        break;
      }
    }
    return false;
  }
}

type RowChange = Extract<WireEvent, { readonly type: 'row' }>;

/** `newer` applied after `older` (both of one row), as one change. */
function mergedRows(older: RowChange, newer: RowChange): RowChange {
  const same = newer.same ?? [];
  if (!same.length) return newer;
  const kept = same.filter((i) => older.same?.includes(i));
  const from = older.row as unknown as { readonly blocks?: readonly ({ readonly text?: string } | undefined)[] };
  const row = newer.row as unknown as { readonly blocks: readonly ({ readonly text?: string } | undefined)[] };
  const blocks = row.blocks.map((b, i) => (b && same.includes(i) && !kept.includes(i) ? { ...b, text: from.blocks?.[i]?.text ?? '' } : b));
  const merged = { ...newer, row: { ...newer.row, blocks } as unknown as RowChange['row'] };
  return kept.length ? { ...merged, same: kept } : { type: 'row', id: newer.id, rev: newer.rev, row: merged.row };
}

/** The real clock, for the host and the webview. */
export const realScheduler: Scheduler = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};
