/**
 * The journal of the turn streaming now: its prompt and the reply's text so far, kept where a crash or a killed
 * worker cannot take it (Pi saves an assistant message only at its end). Written a few times a second at most,
 * cleared when the turn ends; read back after a restart to show the turn as interrupted. Pure: the store is given.
 */

import type { Scheduler } from '../batcher.ts';
import type { MessageView, TranscriptState } from '../transcript/rows.ts';

/** One streaming turn as journaled. */
export interface JournaledTurn {
  /** Pi's session file the turn ran in, when it had one. */
  readonly sessionFile?: string;
  readonly prompt: string;
  /** The reply's text blocks so far, joined. */
  readonly text: string;
  /** Epoch ms of the last write. */
  readonly at: number;
}

/** Where the journal lives (a file in the extension's storage; a test's memory). */
export interface TurnJournalStore {
  /** The journal a previous extension host left, if any. */
  load(): JournaledTurn | undefined;
  write(turn: JournaledTurn): void;
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

  /** The turn ended (saved by Pi, or shown as interrupted): nothing to keep. */
  clear(): void {
    this._cancelTimer?.();
    this._cancelTimer = undefined;
    const had = this._pending !== undefined || this._written !== undefined;
    this._pending = undefined;
    this._written = undefined;
    if (had) this._store.clear();
  }

  private _flush(): void {
    this._cancelTimer = undefined;
    const turn = this._pending;
    if (!turn || sameTurn(turn, this._written)) return;
    this._lastWrite = this._clock.now();
    this._written = turn;
    this._store.write({ ...turn, at: this._lastWrite });
  }
}

function sameTurn(a: Omit<JournaledTurn, 'at'>, b: Omit<JournaledTurn, 'at'> | undefined): boolean {
  return b !== undefined && a.text === b.text && a.prompt === b.prompt && a.sessionFile === b.sessionFile;
}

/** The streaming turn of `state`: the last prompt and the text replied to it so far; none without reply text. */
export function streamingTurn(state: TranscriptState, sessionFile: string | undefined): Omit<JournaledTurn, 'at'> | undefined {
  const rows = state.messages;
  let i = rows.length - 1;
  while (i >= 0 && rows[i]!.role !== 'user') i--;
  if (i < 0) return undefined;
  const text = rows
    .slice(i + 1)
    .filter((m) => m.role === 'assistant')
    .map(replyText)
    .filter(Boolean)
    .join('\n\n');
  if (!text.trim()) return undefined;
  return { ...(sessionFile ? { sessionFile } : {}), prompt: replyText(rows[i]!), text };
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
  return { ...(typeof r.sessionFile === 'string' ? { sessionFile: r.sessionFile } : {}), prompt: r.prompt, text: r.text, at: r.at };
}

function replyText(m: MessageView): string {
  return m.blocks
    .filter((b) => b?.kind === 'text')
    .map((b) => b!.text)
    .join('');
}
