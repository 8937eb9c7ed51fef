/**
 * The main thread's copy of the worker's transcript, reduced from the same events: what a re-created view
 * starts from. A replayed history arrives as a snapshot of its newest rows; the older ones are fetched from
 * the worker a page per request, each applied in a step of its own.
 */

import type { Scheduler } from '../shared/batcher.ts';
import { Disposable, Emitter } from '../shared/disposable.ts';
import type { NoticeCode, NoticeLevel, WireEvent } from '../shared/wire/events.ts';
import { earlierPage, MAX_PAGE_ROWS, prependRows, type EarlierPage } from '../shared/transcript/paging.ts';
import { firstRowId } from '../shared/transcript/rowStore.ts';
import { initialTranscript, reduceOne } from '../shared/transcript/reduce.ts';
import { type TranscriptState } from '../shared/transcript/rows.ts';
import type { Logger } from '../shared/wire/workerProtocol.ts';
import { errorText } from './workerRequests.ts';
import { t } from '../shared/l10n.ts';

/** Where the rows before a snapshot come from: the worker that sent it, while it still runs. */
export interface EarlierRows {
  /** Whether that worker is still the current one. */
  live(): boolean;
  /** Up to `count` rows before the row `before`; none when the worker has no such row. */
  fetch(before: number, count: number): Promise<EarlierPage | undefined>;
}

/** Why the worker went, as the transcript shows it. */
export interface WorkerGone {
  /** What happened, in one sentence. */
  readonly message: string;
  /** It failed (rather than being restarted on purpose): the transcript says so. */
  readonly fault: boolean;
  /** Prompts it had not finished. */
  readonly sending: number;
}

/** One chat's transcript on the main thread, reduced with the worker's own reducer. */
export class TranscriptMirror extends Disposable {
  private _state: TranscriptState = initialTranscript;
  /**
   * Rows of a replayed history the worker holds before the first row of `_state`: they are fetched a page at
   * a time after its snapshot, so no single step blocks this thread for long.
   */
  private _earlier = 0;
  /** Bumped whenever the transcript is replaced (a snapshot, a reset): a page fetched for an older one is dropped. */
  private _transcript = 0;
  private readonly _log: Logger;
  private readonly _clock: Scheduler;

  private readonly _onDidEmit = this._register(new Emitter<readonly WireEvent[]>());
  /** Wire events, in order, right after the host store applied them. */
  readonly onDidEmit = this._onDidEmit.event;
  private readonly _onDidReplace = this._register(new Emitter<void>());
  /** The transcript was replaced by a snapshot (a replayed history): a view starts again from `state`. */
  readonly onDidReplace = this._onDidReplace.event;
  /** Rows of a replayed history arrived, or no more will (`pendingEarlier` changed). */
  private readonly _onDidFetchEarlier = this._register(new Emitter<void>());

  constructor(log: Logger, clock: Scheduler) {
    super();
    this._log = log;
    this._clock = clock;
  }

  get state(): TranscriptState {
    return this._state;
  }

  /** Rows before the first one `state` holds that are still in the worker (on their way here). */
  get pendingEarlier(): number {
    return this._earlier;
  }

  get isActive(): boolean {
    const r = this._state.run;
    return r.active || r.compaction !== undefined;
  }

  /**
   * Up to `count` rows just before the row `before`, and how many rows precede them; waits for rows of a
   * replayed history still on their way. Undefined when there is no such row (the transcript was replaced).
   */
  async earlierPage(before: number, count: number): Promise<EarlierPage | undefined> {
    for (;;) {
      const page = earlierPage(this._state, before, count);
      if (!page) return undefined;
      if (page.messages.length === count || this._earlier === 0) return { ...page, earlier: page.earlier + this._earlier };
      await new Promise<void>((resolve) => {
        const sub = this._onDidFetchEarlier.event(() => {
          sub.dispose();
          resolve();
        });
      });
    }
  }

  apply(events: readonly WireEvent[]): void {
    let s = this._state;
    for (const ev of events) s = reduceOne(s, ev);
    this._state = s;
    if (this._earlier && events.some((ev) => ev.type === 'reset')) this._setEarlier(0);
    this._onDidEmit.fire(events);
  }

  notice(level: NoticeLevel, text: string, code: NoticeCode = 'workerStopped'): void {
    this.apply([{ type: 'noticeMessage', level, text, code }]);
  }

  /** Shows or ends "starting" (prompts wait for the session to open). */
  starting(on: boolean): void {
    this.apply([{ type: 'starting', on, at: this._clock.now() }]);
  }

  /**
   * The worker replayed a history: its newest rows replace the transcript, the `earlier` ones follow a page at
   * a time from `rows`. `starting`: prompts still wait for the session here, not in the worker.
   */
  adopt(state: TranscriptState, earlier: number, starting: boolean, rows: EarlierRows): void {
    this._state = starting && !state.run.starting ? reduceOne(state, { type: 'starting', on: true, at: this._clock.now() }) : state;
    this._setEarlier(earlier);
    this._onDidReplace.fire();
    if (earlier > 0) void this._fetchEarlier(rows, this._transcript);
  }

  /**
   * The worker is gone: the transcript stays, its dialogs and `!` command end, a run in progress is marked
   * failed. The next worker resumes quietly, without the history: rows not fetched yet are out of reach.
   */
  workerGone(gone: WorkerGone): void {
    if (this._earlier) this._setEarlier(0);
    const events: WireEvent[] = [];
    const now = this._clock.now();
    // Dialogs of the old worker can never be answered now.
    for (const d of this._state.ui?.dialogs ?? []) events.push({ type: 'dialogClose', id: d.id, outcome: 'worker stopped' });
    // A `!` command went with it (its process was killed): its row ends, cancelled, with the output it had.
    const shell = this._state.ui?.shell;
    if (shell) events.push({ type: 'bashEnd', id: shell.id, command: shell.command, output: shell.output, cancelled: true, excluded: shell.excluded });
    if (this.isActive || gone.sending > 0) events.push({ type: 'settled', aborted: false, at: now, error: gone.message });
    if (gone.fault) {
      events.push({
        type: 'noticeMessage',
        level: 'error',
        text: t('{0} The conversation is kept; your next prompt resumes it. Restart starts Pi again now.', gone.message),
        code: 'workerStopped',
      });
    }
    if (this._state.run.starting) events.push({ type: 'starting', on: false, at: now });
    if (events.length) this.apply(events);
  }

  private _setEarlier(n: number): void {
    this._earlier = n;
    this._transcript++;
    this._onDidFetchEarlier.fire();
  }

  /**
   * Fetches the rows the worker holds before ours, newest page first, one page per request: each page is
   * structured-cloned and prepended in a step of its own, between whatever else this thread has to do.
   */
  private async _fetchEarlier(rows: EarlierRows, transcript: number): Promise<void> {
    while (this._earlier > 0 && this._transcript === transcript && rows.live()) {
      const before = firstRowId(this._state);
      let page: EarlierPage | undefined;
      try {
        if (before !== undefined) page = await rows.fetch(before, MAX_PAGE_ROWS);
      } catch (err) {
        if (rows.live()) this._log.warn(`Fetching earlier rows from the worker failed: ${errorText(err)}`);
      }
      if (this._transcript !== transcript) return;
      const state = page && prependRows(this._state, page.messages, page.tools);
      if (!page || !state || state === this._state) {
        // Out of reach (the worker stopped or moved on) or not ours: the view shows what is here.
        this._setEarlier(0);
        return;
      }
      this._state = state;
      this._earlier = page.earlier;
      this._onDidFetchEarlier.fire();
    }
  }
}
