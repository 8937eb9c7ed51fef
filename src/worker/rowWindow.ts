/** The worker's window of the newest rows: older rows are dropped and rebuilt on demand from Pi's own messages, so a long session is not kept twice. */

import { findRows, type FindMatch, type FindResult } from '../shared/transcript/find.ts';
import { headPart, pageBefore, recentPart, SNAPSHOT_ROWS, type EarlierPage } from '../shared/transcript/paging.ts';
import { initialTranscript } from '../shared/transcript/reduce.ts';
import { emptyTools, fieldsOf, make, rowAt, rowCount, rows, setTool } from '../shared/transcript/rowStore.ts';
import { toolOf, type MessageView, type ToolCardView, type TranscriptState } from '../shared/transcript/rows.ts';
import type { WireEvent } from '../shared/wire/events.ts';
import { replayOnto } from './replay.ts';

/** A run's file changes, its row added or updated. */
type ChangesEvent = Extract<WireEvent, { type: 'changes' }>;

/** Rows before the streaming one the window keeps at least: twice a snapshot, so paging near the end costs no rebuild. */
const WINDOW_ROWS = 2 * SNAPSHOT_ROWS;
/** Rows dropped at once: the window grows by this much before it is trimmed, so a trim is rare. */
const TRIM_ROWS = SNAPSHOT_ROWS;

/** One leaf (or subtree) where a kept value differs from the one rebuilt: no value means the key is absent. */
type Change = readonly [path: readonly (string | number)[], value?: unknown];

/**
 * A stretch of dropped rows, rebuilt together (a tool result's card takes its call's arguments from the reply
 * before it). Held as arrays, one entry a row: at a thousand turns an object per row would cost as much as
 * the rows' own text.
 */
interface Stretch {
  readonly ids: Float64Array;
  /** The Pi message each row is rebuilt from (Pi's own object); none for a row kept whole. */
  readonly messages: readonly unknown[];
  /** Rows no Pi message makes (the worker's notices, file changes, a live `!` command), by index. */
  readonly kept: Map<number, MessageView>;
  /** What differs from a row's rebuild (its entry, the times it streamed at), by index. */
  readonly changes: ReadonlyMap<number, readonly Change[]>;
  /** The time the rows are rebuilt at: a replayed session's rows all started then, so theirs differ in nothing. */
  readonly now: number;
  /** The rows' cards that differ from their rebuild, or that the messages make none of (kept whole). */
  readonly cards: ReadonlyMap<string, { readonly changes: readonly Change[] } | { readonly card: ToolCardView }>;
}

/** Roles whose rows a Pi message makes alone, one row each (the message is Pi's own object, held by its session entries). */
const SOURCED = new Set(['user', 'assistant', 'toolResult', 'bashExecution']);

/** The rows the worker dropped, as references to Pi's messages and the little that differs. */
export class RowWindow {
  private _stretches: Stretch[] = [];
  private _dropped = 0;
  /** The Pi message each held row was made from. */
  private _sources = new Map<number, unknown>();
  private readonly _keep: number;
  private readonly _trim: number;

  constructor(keep = WINDOW_ROWS, trim = TRIM_ROWS) {
    this._keep = keep;
    this._trim = trim;
  }

  /** How many rows come before those the state holds. */
  get dropped(): number {
    return this._dropped;
  }

  /** The transcript was emptied: nothing before it is paged any more. */
  reset(): void {
    this._stretches = [];
    this._dropped = 0;
    this._sources = new Map();
  }

  /** Pi's `message` ended, and the newest row of its kind in `state` shows it. */
  sourced(state: TranscriptState, message: unknown): void {
    const m = message as { role?: unknown; toolCallId?: unknown } | null;
    if (!m || !SOURCED.has(m.role as string)) return;
    const role = m.role === 'bashExecution' ? 'bash' : m.role;
    const n = rowCount(state);
    // The row is among the newest: a notice or two may have come after it.
    for (let i = n - 1; i >= Math.max(0, n - 8); i--) {
      const row = rowAt(state, i)!;
      if (row.role !== role || (row.role === 'toolResult' && row.toolCallId !== m.toolCallId)) continue;
      if (!this._sources.has(row.id)) this._sources.set(row.id, message);
      return;
    }
  }

  /**
   * `ev` (a run's file changes, as asked for) aimed at that run's row the window dropped, which it updates: an
   * Undo long after the run changes its row, as it would were the row held, and `onUpdated` hears the row as it
   * is now. Other changes go on as they are.
   */
  changes(state: TranscriptState, ev: ChangesEvent, onUpdated?: (row: MessageView) => void): ChangesEvent {
    if (ev.replace === false || !this._stretches.length) return ev;
    const held = (m: MessageView) => m.role === 'changes' && (ev.rowId === undefined ? m.runId === ev.runId : m.id === ev.rowId);
    if (state.messages.some(held)) return ev;
    for (let i = this._stretches.length - 1; i >= 0; i--) {
      const kept = this._stretches[i]!.kept;
      for (const [j, row] of [...kept].reverse()) {
        if (!held(row)) continue;
        const updated = { ...row, runId: ev.runId, files: ev.files } as MessageView;
        kept.set(j, updated);
        onUpdated?.(updated);
        return { ...ev, replace: true, rowId: row.id };
      }
    }
    return ev;
  }

  /** `state` without its oldest rows once it holds more than the window, those rows kept as a stretch. */
  trim(state: TranscriptState): TranscriptState {
    const held = rows(state).length;
    if (held <= this._keep + this._trim) return state;
    const count = held - this._keep;
    const r = rows(state);
    // A stretch at most `_trim` rows long (a resumed session drops thousands at once): a page rebuilds only its own.
    for (let at = 0; at < count; at += this._trim) {
      const part = r.store.slice(at, Math.min(at + this._trim, count));
      const cut = make(fieldsOf(state), { store: part, length: part.length, open: undefined, after: [], tools: r.tools });
      this._stretches.push(this._stretchOf(headPart(cut, part.length)!));
    }
    this._dropped += count;
    return recentPart(state, rowCount(state) - count).state;
  }

  /** What a snapshot carries: the newest rows of `state` and how many rows come before them. */
  recentPart(state: TranscriptState, count = SNAPSHOT_ROWS): { state: TranscriptState; earlier: number } {
    const part = recentPart(state, count);
    return { state: part.state, earlier: part.earlier + this._dropped };
  }

  /** Up to `count` rows with ids below `before`, rebuilt when they were dropped. */
  pageBefore(state: TranscriptState, before: number, count: number): EarlierPage {
    const held = pageBefore(state, before, count);
    if (held.earlier > 0 || held.messages.length >= count || !this._stretches.length) return { ...held, earlier: held.earlier + this._dropped };
    // The page reaches into dropped rows: rebuild the stretches below `before`, newest first, until they give enough.
    let i = this._stretches.length - 1;
    while (i >= 0 && this._stretches[i]!.ids[0]! >= before) i--;
    let rowsBefore = 0;
    for (let k = 0; k <= i; k++) rowsBefore += this._stretches[k]!.ids.length;
    const parts: TranscriptState[] = [];
    let got = held.messages.length;
    for (; i >= 0 && got < count; i--) {
      const stretch = this._stretches[i]!;
      parts.unshift(this._rebuild(stretch));
      rowsBefore -= stretch.ids.length;
      for (const id of stretch.ids) if (id < before) got++;
    }
    const joined = join([...parts, state]);
    const page = pageBefore(joined, before, count);
    return { ...page, earlier: page.earlier + rowsBefore };
  }

  /** Find over every row of the session: the dropped stretches rebuilt one at a time, then those held. */
  findRows(state: TranscriptState, query: string): FindResult {
    const matches: FindMatch[] = [];
    let total = 0;
    for (const stretch of this._stretches) {
      const found = findRows(this._rebuild(stretch), query);
      matches.push(...found.matches);
      total += found.total;
    }
    const held = findRows(state, query);
    return { matches: [...matches, ...held.matches], total: total + held.total };
  }

  /** `head` (the rows to drop and their cards) as references to Pi's messages and what differs from their replay. */
  private _stretchOf(head: TranscriptState): Stretch {
    const all = head.messages;
    const messages: unknown[] = [];
    for (const row of all) if (this._sources.has(row.id)) messages.push(this._sources.get(row.id));
    const now = startOf(all);
    const replayed = replayOnto(initialTranscript, messages, now);
    // Each sourced message makes one row; any other outcome (a message that no longer replays) keeps the rows whole.
    const sourced = replayed.messages.length === messages.length;
    const ids = new Float64Array(all.length);
    const sources: unknown[] = new Array(all.length);
    const kept = new Map<number, MessageView>();
    const changed = new Map<number, readonly Change[]>();
    let j = 0;
    for (const [i, row] of all.entries()) {
      ids[i] = row.id;
      const message = this._sources.get(row.id);
      this._sources.delete(row.id);
      if (!sourced || message === undefined) {
        kept.set(i, row);
        continue;
      }
      sources[i] = message;
      const changes = diff(row, { ...replayed.messages[j++]!, id: row.id });
      if (changes.length) changed.set(i, changes);
    }
    const cards = new Map<string, { changes: readonly Change[] } | { card: ToolCardView }>();
    for (const [id, card] of Object.entries(head.tools)) {
      const built = sourced ? toolOf(replayed.tools, id) : undefined;
      const changes = built && diff(card, built);
      if (!built) cards.set(id, { card });
      else if (changes?.length) cards.set(id, { changes });
    }
    return { ids, messages: sources, kept, changes: changed, now, cards };
  }

  /** The rows and cards of `stretch` as they were before it was dropped. */
  private _rebuild(stretch: Stretch): TranscriptState {
    const messages: unknown[] = [];
    for (let i = 0; i < stretch.ids.length; i++) if (!stretch.kept.has(i)) messages.push(stretch.messages[i]);
    const replayed = replayOnto(initialTranscript, messages, stretch.now);
    let j = 0;
    const out: MessageView[] = [];
    for (let i = 0; i < stretch.ids.length; i++) {
      const kept = stretch.kept.get(i);
      if (kept) {
        out.push(kept);
        continue;
      }
      const built = { ...replayed.messages[j++]!, id: stretch.ids[i]! };
      const changes = stretch.changes.get(i);
      out.push(changes ? (patched(built, changes) as MessageView) : built);
    }
    let tools = rows(replayed).tools;
    for (const [id, kept] of stretch.cards)
      tools = setTool(tools, 'card' in kept ? kept.card : (patched(toolOf(replayed.tools, id), kept.changes) as ToolCardView));
    return make(fieldsOf(initialTranscript), { store: out, length: out.length, open: undefined, after: [], tools });
  }
}

/** One state of the rows of `parts` (in order, the last one's fields and streaming row) and their cards, a later part's card winning. */
function join(parts: readonly TranscriptState[]): TranscriptState {
  const last = parts.at(-1)!;
  const r = rows(last);
  const store: MessageView[] = [];
  for (const p of parts.slice(0, -1)) store.push(...p.messages);
  store.push(...r.store.slice(0, r.length));
  let tools = emptyTools();
  for (const p of parts) for (const card of Object.values(p.tools)) tools = setTool(tools, card);
  return make(fieldsOf(last), { store, length: store.length, open: r.open, after: r.after, tools });
}

/** When the first of `all` that says so started (0 if none does). */
function startOf(all: readonly MessageView[]): number {
  for (const row of all) if (row.role === 'assistant' && typeof row.startedAt === 'number') return row.startedAt;
  return 0;
}

/** Paths by their text, so the same field of a thousand rows costs one path. */
const paths = new Map<string, readonly (string | number)[]>();

function interned(path: readonly (string | number)[]): readonly (string | number)[] {
  const key = path.join('\u0000');
  let known = paths.get(key);
  if (!known) paths.set(key, (known = path.slice()));
  return known;
}

/** Where `kept` differs from `built`: leaves, or whole subtrees whose shape differs. */
function diff(kept: unknown, built: unknown, path: (string | number)[] = [], out: Change[] = []): Change[] {
  if (Object.is(kept, built)) return out;
  if (isRecord(kept) && isRecord(built) && Array.isArray(kept) === Array.isArray(built) && Object.getPrototypeOf(kept) === Object.getPrototypeOf(built)) {
    if (Array.isArray(kept)) {
      const b = built as unknown as unknown[];
      if (kept.length !== b.length || kept.some((_, i) => !(i in b)) || b.some((_, i) => !(i in kept))) out.push([interned(path), kept]);
      else kept.forEach((v, i) => diff(v, b[i], [...path, i], out));
      return out;
    }
    for (const k of Object.keys(kept)) {
      if (Object.hasOwn(built, k)) diff(kept[k], built[k], [...path, k], out);
      else out.push([interned([...path, k]), kept[k]]);
    }
    for (const k of Object.keys(built)) if (!Object.hasOwn(kept, k)) out.push([interned([...path, k])]);
    return out;
  }
  out.push([interned(path), kept]);
  return out;
}

/** `value` with `changes` made, copied along their paths. */
function patched(value: unknown, changes: readonly Change[]): unknown {
  let out = value;
  for (const change of changes) out = setIn(out, change, 0);
  return out;
}

function setIn(value: unknown, change: Change, at: number): unknown {
  const [path] = change;
  if (at === path.length) return change[1];
  const key = path[at]!;
  const copy = Array.isArray(value) ? value.slice() : Object.assign(Object.create(Object.getPrototypeOf(value) as object | null) as object, value);
  const c = copy as Record<string | number, unknown>;
  if (at === path.length - 1 && change.length === 1) delete c[key];
  else c[key] = setIn(c[key], change, at + 1);
  return copy;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}
