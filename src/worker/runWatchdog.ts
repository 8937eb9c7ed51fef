/** The two timers that watch a run: a cancel Pi has not confirmed in time, and a model that went silent. */

import { t } from '../shared/l10n.ts';
import type { Scheduler } from '../shared/batcher.ts';
import type { WireEvent } from '../shared/wire/events.ts';
import type { TranscriptState } from '../shared/transcript/rows.ts';
import type { ControllerOptions } from './agentSession.ts';

/** What the watchdog reads and writes of the session's transcript. */
export interface WatchedRun {
  state(): TranscriptState;
  apply(events: readonly WireEvent[]): void;
}

/** Watches one session's runs; its timers run on the given clock (a `TestClock` in unit tests). */
export class RunWatchdog {
  private readonly _settle: PendingTimer;
  private readonly _silence: PendingTimer;
  private _lastEventAt = 0;
  private readonly _run: WatchedRun;
  private readonly _clock: Scheduler;
  private readonly _options: ControllerOptions;

  constructor(run: WatchedRun, clock: Scheduler, options: ControllerOptions) {
    this._run = run;
    this._clock = clock;
    this._options = options;
    this._settle = new PendingTimer(clock);
    this._silence = new PendingTimer(clock);
  }

  /** Notes that Pi was heard from now, and returns that time. */
  heard(): number {
    this._lastEventAt = this._clock.now();
    return this._lastEventAt;
  }

  /** After a cancel: says so when `agent_settled` has not come within the settle timeout. */
  armSettle(): void {
    this._settle.set(() => {
      const run = this._run.state().run;
      if (!run.active && !run.compaction) return;
      const secs = Math.round(this._options.settleTimeoutMs / 1000);
      this._run.apply([
        {
          type: 'noticeMessage',
          level: 'warning',
          text: t('Pi has not confirmed the cancel after {0} s. You can force the panel back to idle; the saved conversation is kept.', secs),
          code: 'settleTimeout',
        },
      ]);
    }, this._options.settleTimeoutMs);
  }

  clearSettle(): void {
    this._settle.clear();
  }

  /** (Re)starts the no-response timer while a run is active; reports a stall when it runs out. */
  armSilence(): void {
    this._silence.clear();
    if (!this._options.noResponseMs || !this._run.state().run.active) return;
    this._silence.set(() => {
      const state = this._run.state();
      if (!state.run.active) return;
      // A tool may legitimately run quietly for a long time (a build, `sleep 60`), and a dialog waits for the
      // user, not for Pi: only a silent model is stalled.
      if (state.run.dialogs || Object.values(state.tools).some((t) => t.status === 'running')) this.armSilence();
      else this._run.apply([{ type: 'stalled', at: this._clock.now(), since: this._lastEventAt }]);
    }, this._options.noResponseMs);
  }

  /** Both timers off: the session they watched is going or being shown afresh. */
  clear(): void {
    this._settle.clear();
    this._silence.clear();
  }
}

/** One timer at most: setting it again replaces the pending one. */
class PendingTimer {
  private _cancel: (() => void) | undefined;
  private readonly _clock: Scheduler;

  constructor(clock: Scheduler) {
    this._clock = clock;
  }

  set(fn: () => void, ms: number): void {
    this.clear();
    this._cancel = this._clock.setTimer(() => {
      this._cancel = undefined;
      fn();
    }, ms);
  }

  clear(): void {
    this._cancel?.();
    this._cancel = undefined;
  }
}
