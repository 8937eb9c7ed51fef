/**
 * The main thread's page cache of the worker's transcript, by row id: it applies the changes the worker
 * computed (applyChanges.ts) and reduces nothing; its own rows (notices) take ids of their own. What a
 * re-created view starts from. It keeps a window of the newest rows; older ones stay in the worker (a replayed
 * history arrives as a snapshot of its newest rows, a long session lets its oldest go) and are fetched from it
 * a page per request when the view pages back.
 */

import type { Scheduler } from '../shared/batcher.ts';
import { Disposable, Emitter } from '../shared/disposable.ts';
import type { NoticeCode, NoticeLevel, WireEvent } from '../shared/wire/events.ts';
import { pageBefore, recentPart, type EarlierPage } from '../shared/transcript/paging.ts';
import { firstRowId, hostRowAfter, hostRowId, initialTranscript, openMessage, rowAt, rowCount, toolCard } from '../shared/transcript/rowStore.ts';
import { applyChange } from '../shared/transcript/applyChanges.ts';
import { type MessageView, type ToolCardView, type TranscriptState } from '../shared/transcript/rows.ts';
import type { Logger } from '../shared/wire/workerProtocol.ts';
import { errorText } from './workerRequests.ts';
import { t } from '../shared/l10n.ts';

/** Rows the main thread keeps: the newest ones, a view's snapshot and the largest page it may ask for among them. */
export const HOST_WINDOW_ROWS = 1000;
/** Rows past the window before the oldest go (so they go a batch at a time, not one per row). */
const TRIM_SLACK_ROWS = 250;
/** Rows only this thread shows (notices) it keeps once they left the window: the worker has no copy. */
const MAX_LOCAL_ROWS = 500;

/** Where the rows before the window come from: one worker, while it runs. */
export interface EarlierRows {
  /** Whether that worker is still the current one. */
  live(): boolean;
  /** Up to `count` of its rows with ids below `before` (always a page, maybe empty). */
  fetch(before: number, count: number): Promise<EarlierPage | undefined>;
}

/** The mirror's window size (tests make it small). */
export interface MirrorOptions {
  readonly windowRows?: number;
  readonly slackRows?: number;
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

/** One chat's transcript on the main thread, as the worker's changes leave it, its newest rows only. */
export class TranscriptMirror extends Disposable {
  private _state: TranscriptState = initialTranscript;
  /** Rows before the first one of `_state` that `_source` holds (and `_local`, for those this thread made). */
  private _earlier = 0;
  /**
   * The worker that numbers rows as `_state` does (its id = ours − `_base`), so ours before the window can be
   * fetched from it; undefined when none does yet (a new worker that resumed quietly and sent nothing).
   */
  private _source: EarlierRows | undefined;
  private _base = 0;
  /** Rows with ids below this came from an earlier worker: once out of the window they are out of reach. */
  private _reach = 0;
  /** Whether `_state` is as it started: the first worker numbers its rows as we do. */
  private _pristine = true;
  /** Rows of this thread's own (ids between the worker's) that left the window, oldest first. */
  private _local: MessageView[] = [];
  /** Bumped whenever the transcript is replaced (a snapshot, a reset) or its older rows go out of reach. */
  private _transcript = 0;
  private readonly _log: Logger;
  private readonly _clock: Scheduler;
  private readonly _windowRows: number;
  private readonly _slackRows: number;

  private readonly _onDidEmit = this._register(new Emitter<readonly WireEvent[]>());
  /** Wire events, in order, right after the host store applied them. */
  readonly onDidEmit = this._onDidEmit.event;
  private readonly _onDidReplace = this._register(new Emitter<void>());
  /** The transcript was replaced by a snapshot (a replayed history): a view starts again from `state`. */
  readonly onDidReplace = this._onDidReplace.event;

  constructor(log: Logger, clock: Scheduler, options: MirrorOptions = {}) {
    super();
    this._log = log;
    this._clock = clock;
    this._windowRows = options.windowRows ?? HOST_WINDOW_ROWS;
    this._slackRows = options.slackRows ?? TRIM_SLACK_ROWS;
  }

  get state(): TranscriptState {
    return this._state;
  }

  /** Rows before the first one `state` holds that can still be paged in (from the worker). */
  get pendingEarlier(): number {
    return this._earlier;
  }

  get isActive(): boolean {
    const r = this._state.run;
    return r.active || r.compaction !== undefined;
  }

  /**
   * Up to `count` rows with ids below `before` (the view's first row, or one past the rows it reads), and how
   * many rows precede them: from the window, and for what lies before it from the worker. Undefined when
   * there is none to give (no rows, or the worker cannot be asked).
   */
  async earlierPage(before: number, count: number): Promise<EarlierPage | undefined> {
    const first = firstRowId(this._state);
    let here: EarlierPage | undefined;
    if (first !== undefined && before > first) {
      here = pageBefore(this._state, before, count);
      if (here.messages.length === count || this._earlier === 0) return { ...here, earlier: here.earlier + this._earlier };
    } else if (first === undefined || this._earlier === 0) return undefined;
    // What lies before the window comes from the worker.
    const transcript = this._transcript;
    const older = await this._fetchBefore(here ? first! : before, count - (here?.messages.length ?? 0));
    if (this._transcript !== transcript) return undefined;
    if (!older) return here && { ...here, earlier: here.earlier + this._earlier };
    if (!here) return older;
    return { messages: [...older.messages, ...here.messages], tools: { ...older.tools, ...here.tools }, earlier: older.earlier };
  }

  /**
   * Applies the changes `from` (the worker that computed them) sent, with the events beside them; none for
   * this thread's own (`notice`, `starting`, `workerGone`), whose rows take ids of this thread's own (see
   * `hostRowId`). The view is sent them with the ids their rows took here.
   */
  apply(events: readonly WireEvent[], from?: EarlierRows): void {
    // The first worker starts from nothing, as we did; a later one resumed quietly and numbers from 1.
    if (from && from !== this._source) {
      if (this._pristine) this._source = from;
      else this._follow(from);
    }
    const out = from && this._base ? events.map((ev) => moved(ev, this._base)) : events;
    let s = this._state;
    for (const ev of out) s = applyChange(s, ev);
    this._state = s;
    if (from) {
      if (events.some((ev) => ev.type === 'reset')) this._restart(from);
      this._pristine = false;
      this._trim();
    }
    this._onDidEmit.fire(out);
  }

  notice(level: NoticeLevel, text: string, code: NoticeCode = 'workerStopped'): void {
    // The worker never sees this row: it takes an id of this thread's own.
    this.apply([noticeRow(hostRowId(this._state), level, text, code)]);
  }

  /** Shows or ends "starting" (prompts wait for the session to open): an event of this thread's, which every side's run state steps. */
  starting(on: boolean): void {
    this.apply([{ type: 'starting', on, at: this._clock.now() }]);
  }

  /**
   * The worker replayed a history: its newest rows replace the transcript, the `earlier` ones stay in it
   * (`rows`) until the view asks for them. `starting`: prompts still wait for the session here, not in the worker.
   */
  adopt(state: TranscriptState, earlier: number, starting: boolean, rows: EarlierRows): void {
    this._state = starting && !state.run.starting ? applyChange(state, { type: 'starting', on: true, at: this._clock.now() }) : state;
    this._restart(rows);
    this._pristine = false;
    this._earlier = earlier;
    this._onDidReplace.fire();
  }

  /**
   * The worker is gone: the transcript stays, its dialogs and `!` command end, a run in progress is marked
   * failed. The next worker resumes quietly, without the history: rows before the window are out of reach.
   */
  workerGone(gone: WorkerGone): void {
    this._loseEarlier();
    this._source = undefined;
    this._pristine = false;
    const now = this._clock.now();
    const state = this._state;
    // Events of this thread's: each side's run state steps them (applyChanges.ts), as it steps the worker's.
    const events: WireEvent[] = [];
    // Dialogs of the old worker can never be answered now.
    for (const d of state.ui?.dialogs ?? []) events.push({ type: 'dialogClose', id: d.id, outcome: 'worker stopped' });
    // A `!` command went with it (its process was killed): its row ends, cancelled, with the output it had.
    const shell = state.ui?.shell;
    let next = hostRowId(state);
    if (shell) {
      events.push({ type: 'bashEnd', id: shell.id, command: shell.command, output: shell.output, cancelled: true, excluded: shell.excluded });
      events.push(shellRow(next, shell.command, shell.output, shell.excluded));
      next = hostRowAfter(next);
    }
    if (this.isActive || gone.sending > 0) {
      events.push({ type: 'settled', aborted: false, at: now, error: gone.message });
      events.push(...closedReply(state, now));
    }
    if (gone.fault) {
      events.push(
        noticeRow(next, 'error', t('{0} The conversation is kept; your next prompt resumes it. Restart starts Pi again now.', gone.message), 'workerStopped'),
      );
    }
    if (state.run.starting) events.push({ type: 'starting', on: false, at: now });
    const ui = state.ui && (state.ui.dialogs.length || shell) ? { ...state.ui, dialogs: [], shell: undefined } : state.ui;
    if (ui !== state.ui) events.push({ type: 'state', set: { ui } });
    if (events.length) this.apply(events);
  }

  /** A new transcript numbered by `from` as ours is: nothing before it. */
  private _restart(from: EarlierRows): void {
    this._loseEarlier();
    this._source = from;
    this._base = 0;
    this._reach = 0;
  }

  /**
   * A worker that resumed quietly (after a fault or a Restart) sends its first events: it numbers its rows
   * from 1, ours go on from `nextId` (its ids moved on by `_base`), and the rows of the worker before it are
   * only what the window holds.
   */
  private _follow(from: EarlierRows): void {
    this._loseEarlier();
    this._source = from;
    this._base = this._state.nextId - 1;
    this._reach = this._state.nextId;
  }

  private _loseEarlier(): void {
    this._earlier = 0;
    this._local = [];
    this._transcript++;
  }

  /** Lets the oldest rows go once the window is full (the worker keeps them; see `earlierPage`). */
  private _trim(): void {
    if (rowCount(this._state) <= this._windowRows + this._slackRows) return;
    const { state, earlier: cut } = recentPart(this._state, this._windowRows);
    if (!cut) return;
    for (let i = 0; i < cut; i++) {
      const m = rowAt(this._state, i)!;
      // A row of an earlier worker is out of reach once it goes; one of our own is kept aside (few, small).
      if (m.id < this._reach) continue;
      if (!Number.isInteger(m.id)) this._local.push(m);
      this._earlier++;
    }
    if (this._local.length > MAX_LOCAL_ROWS) {
      const lost = this._local.length - MAX_LOCAL_ROWS;
      this._local = this._local.slice(lost);
      this._earlier -= lost;
    }
    this._state = state;
  }

  /**
   * Up to `count` rows before the row `before` (ours, not in the window) from the worker, with our own rows
   * among them; undefined when it cannot say (gone, failed).
   */
  private async _fetchBefore(before: number, count: number): Promise<EarlierPage | undefined> {
    const source = this._source;
    if (!source?.live()) return undefined;
    let page: EarlierPage | undefined;
    try {
      page = await source.fetch(before - this._base, count);
    } catch (err) {
      if (source.live()) this._log.warn(`Fetching earlier rows from the worker failed: ${errorText(err)}`);
      return undefined;
    }
    if (!page) return undefined;
    const base = this._base;
    const theirs = base ? page.messages.map((m) => ({ ...m, id: m.id + base })) : page.messages;
    const local = this._local.filter((m) => m.id < before);
    const kept = (local.length ? [...theirs, ...local].sort((a, b) => a.id - b.id) : theirs).slice(-count);
    if (!kept.length) return { messages: [], tools: page.tools, earlier: 0 };
    const firstKept = kept[0]!.id;
    const earlier = page.earlier + theirs.filter((m) => m.id < firstKept).length + local.filter((m) => m.id < firstKept).length;
    return { messages: kept, tools: page.tools, earlier };
  }
}

/** `ev` with the row id it names moved on by `by` (the main thread numbers a quietly resumed worker's rows after the last one's). */
function moved(ev: WireEvent, by: number): WireEvent {
  switch (ev.type) {
    case 'row':
      // A worker's row names its id once, in the change (see `wireRow`).
      return ev.row.id === undefined ? { ...ev, id: ev.id + by } : { ...ev, id: ev.id + by, row: { ...ev.row, id: ev.row.id + by } };
    case 'patch':
      return { ...ev, id: ev.id + by };
    case 'state':
      return typeof ev.set.nextId === 'number' ? { ...ev, set: { ...ev.set, nextId: ev.set.nextId + by } } : ev;
    default:
      return ev;
  }
}

function noticeRow(id: number, level: NoticeLevel, text: string, code: NoticeCode): WireEvent {
  const row: MessageView = { id, role: 'notice', blocks: [{ kind: 'text', index: 0, text, final: true }], final: true, level, code };
  return { type: 'row', id, rev: 0, row };
}

function shellRow(id: number, command: string, output: string, excluded: boolean): WireEvent {
  const row: MessageView = {
    id,
    role: 'bash',
    blocks: [{ kind: 'text', index: 0, text: output, final: true }],
    final: true,
    command,
    cancelled: true,
    excluded,
  };
  return { type: 'row', id, rev: 0, row };
}

/**
 * The streaming reply of `s` ended as failed (its worker went), and a failed card for each of its calls that
 * has none: Pi runs no call of such a message, as the worker's reducer shows it.
 */
function closedReply(s: TranscriptState, at: number): WireEvent[] {
  const open = openMessage(s);
  if (!open) return [];
  const stopReason = open.stopReason ?? 'error';
  const row: MessageView = {
    ...open,
    final: true,
    stopReason,
    endedAt: at,
    blocks: open.blocks.map((b) => (b && !b.final ? { ...b, final: true } : b)),
  };
  const reason = open.errorMessage || (stopReason === 'aborted' ? t('Operation aborted') : t('Error'));
  const cards: ToolCardView[] = [];
  if (stopReason === 'error' || stopReason === 'aborted')
    for (const b of open.blocks)
      if (b?.kind === 'toolCall' && typeof b.toolCallId === 'string' && !toolCard(s, b.toolCallId))
        cards.push({ toolCallId: b.toolCallId, toolName: b.toolName ?? '', args: b.text, status: 'error', output: reason });
  return [{ type: 'row', id: open.id, rev: 0, row }, ...(cards.length ? [{ type: 'cards' as const, cards }] : [])];
}
