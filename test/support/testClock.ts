/** A manual clock for the batcher and the controller's timers: time moves only when a test says so. */

import type { Scheduler } from '../../src/shared/batcher.ts';

export class TestClock implements Scheduler {
  private _now = 1_000_000;
  private _timers: { at: number; fn: () => void; id: number }[] = [];
  private _nextId = 1;

  now(): number {
    return this._now;
  }

  setTimer(fn: () => void, ms: number): () => void {
    const id = this._nextId++;
    this._timers.push({ at: this._now + ms, fn, id });
    return () => {
      this._timers = this._timers.filter((t) => t.id !== id);
    };
  }

  /** Moves time forward, running due timers in order. */
  advance(ms: number): void {
    const end = this._now + ms;
    for (;;) {
      this._timers.sort((a, b) => a.at - b.at || a.id - b.id);
      const next = this._timers[0];
      if (!next || next.at > end) break;
      this._timers.shift();
      this._now = next.at;
      next.fn();
    }
    this._now = end;
  }

  get pendingTimers(): number {
    return this._timers.length;
  }
}
