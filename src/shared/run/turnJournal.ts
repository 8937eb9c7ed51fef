/**
 * The journal of the turn streaming now: its prompt and the reply's text so far, kept where a crash or a killed
 * worker cannot take it (Pi saves an assistant message only at its end). Written a few times a second at most,
 * cleared when the turn ends; read back after a restart to show the turn as interrupted. Pure: the store is given.
 */

import type { Scheduler } from '../batcher.ts';
import type { MessageView, TranscriptState } from '../transcript/rows.ts';
import { rowAt, rowCount } from '../transcript/rowStore.ts';

/** One streaming turn as journaled. */
export interface JournaledTurn {
  /** Pi's session file the turn ran in, when it had one. */
  readonly sessionFile?: string;
  readonly prompt: string;
  /** The reply's text blocks so far, joined. */
  readonly text: string;
  /** Titles of the questions Pi's extensions were waiting on: a stop answers them as dismissed. */
  readonly dialogs?: readonly string[];
  /** Epoch ms of the last write. */
  readonly at: number;
}

/** Where the journal lives (a file in the extension's storage; a test's memory). */
export interface TurnJournalStore {
  /** The journal a previous extension host left, if any. */
  load(): JournaledTurn | undefined;
  /** Keeps `turn` (a file store may finish it after returning: it runs while a reply streams). */
  write(turn: JournaledTurn): void;
  /** Keeps `turn` before returning: the extension host is about to end. */
  writeNow(turn: JournaledTurn): void;
  clear(): void;
}

/** The shortest time between two writes: a reply streams hundreds of deltas a second. */
export const JOURNAL_INTERVAL_MS = 300;

/** Keeps the store's copy of the streaming turn at most `JOURNAL_INTERVAL_MS` behind, writing at most once per interval. */
export class TurnJournal {
  private _pending: Omit<JournaledTurn, 'at'> | undefined;
  private _written: Omit<JournaledTurn, 'at'> | undefined;
  private _lastWrite = -Infinity;
  private _cancelTimer: (() => void) | undefined;
  private readonly _store: TurnJournalStore;
  private readonly _clock: Scheduler;

  constructor(store: TurnJournalStore, clock: Scheduler) {
    this._store = store;
    this._clock = clock;
  }

  /** The turn as it stands now: written at once when the last write is old enough, else when it is. */
  update(turn: Omit<JournaledTurn, 'at'>): void {
    this._pending = turn;
    if (this._cancelTimer) return;
    const wait = this._lastWrite + JOURNAL_INTERVAL_MS - this._clock.now();
    if (wait <= 0) this._flush();
    else this._cancelTimer = this._clock.setTimer(() => this._flush(), wait);
  }

  /** Writes `turn` at once (the extension host is about to end: no later write may come). */
  writeNow(turn: Omit<JournaledTurn, 'at'>): void {
    this._cancelTimer?.();
    this._cancelTimer = undefined;
    this._pending = turn;
    this._lastWrite = -Infinity;
    this._flush(true);
  }

  /** The turn ended (saved by Pi, or shown as interrupted): nothing to keep. */
  clear(): void {
    this._cancelTimer?.();
    this._cancelTimer = undefined;
    const had = this._pending !== undefined || this._written !== undefined;
    this._pending = undefined;
    this._written = undefined;
    if (had) this._store.clear();
  }

  private _flush(now = false): void {
    this._cancelTimer = undefined;
    const turn = this._pending;
    if (!turn || (!now && sameTurn(turn, this._written))) return;
    this._lastWrite = this._clock.now();
    this._written = turn;
    if (now) this._store.writeNow({ ...turn, at: this._lastWrite });
    else this._store.write({ ...turn, at: this._lastWrite });
  }
}

function sameTurn(a: Omit<JournaledTurn, 'at'>, b: Omit<JournaledTurn, 'at'> | undefined): boolean {
  return b !== undefined && a.text === b.text && a.prompt === b.prompt && a.sessionFile === b.sessionFile && String(a.dialogs) === String(b.dialogs);
}

/**
 * The streaming turn of `state`: the last prompt, the text replied to it so far and the questions waiting;
 * none without reply text or a question. Reads the newest rows back, without building the row list: it
 * runs on every batch of a run.
 */
export function streamingTurn(state: TranscriptState, sessionFile: string | undefined): Omit<JournaledTurn, 'at'> | undefined {
  let i = rowCount(state) - 1;
  const replies: string[] = [];
  for (; i >= 0; i--) {
    const m = rowAt(state, i)!;
    if (m.role === 'user') break;
    if (m.role === 'assistant') replies.push(replyText(m));
  }
  if (i < 0) return undefined;
  const text = replies.reverse().filter(Boolean).join('\n\n');
  const dialogs = (state.ui?.dialogs ?? []).map((d) => d.title);
  if (!text.trim() && !dialogs.length) return undefined;
  return { ...(sessionFile ? { sessionFile } : {}), prompt: replyText(rowAt(state, i)!), text, ...(dialogs.length ? { dialogs } : {}) };
}

/** Whether `state` (Pi's session, replayed) holds the journaled reply already: its last reply starts with it. */
export function turnIsSaved(state: TranscriptState, turn: JournaledTurn): boolean {
  const saved = streamingTurn(state, turn.sessionFile);
  return saved !== undefined && saved.text.startsWith(turn.text.trimEnd());
}

/** A journal read back from disk, checked: undefined unless it has the shape `TurnJournal` writes. */
export function parseJournaledTurn(raw: unknown): JournaledTurn | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r.prompt !== 'string' || typeof r.text !== 'string' || typeof r.at !== 'number') return undefined;
  if (r.sessionFile !== undefined && typeof r.sessionFile !== 'string') return undefined;
  const dialogs = Array.isArray(r.dialogs) ? r.dialogs.filter((d): d is string => typeof d === 'string') : [];
  return {
    ...(typeof r.sessionFile === 'string' ? { sessionFile: r.sessionFile } : {}),
    prompt: r.prompt,
    text: r.text,
    ...(dialogs.length ? { dialogs } : {}),
    at: r.at,
  };
}

function replyText(m: MessageView): string {
  return m.blocks
    .filter((b) => b?.kind === 'text')
    .map((b) => b!.text)
    .join('');
}
