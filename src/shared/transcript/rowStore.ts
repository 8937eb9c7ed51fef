/**
 * How a transcript state holds its rows and tool cards: an append-only store shared between successive
 * states, with the streaming row kept apart, so a delta costs the same at 50,000 rows as at none.
 */

import type { RowId } from '../wire/events.ts';
import { initialRunState } from '../run/runState.ts';
import type { AssistantRow, BlockView, MessageView, ToolCardView, TranscriptState } from './rows.ts';

/**
 * How a state holds its rows: `store[0..length)` are the rows before the open one (the store is shared
 * between successive states and only ever appended to past `length`), then the open row, then the few rows
 * that arrived while it streamed. Tool cards are kept the same way (see `ToolTable`).
 */
export interface Rows {
  readonly store: MessageView[];
  readonly length: number;
  /** Only a reply streams. */
  readonly open: AssistantRow | undefined;
  readonly after: readonly MessageView[];
  readonly tools: ToolTable;
}

/**
 * Tool cards by id. A card that finished rarely changes again, so finished cards go to a shared,
 * append-only index (`order[0..count)` are this state's); running ones, and any later change to a finished
 * one, live in a small map copied on change. Maps, so any id is a key, `__proto__` included.
 */
export interface ToolTable {
  readonly index: Map<string, { readonly card: ToolCardView; readonly at: number }>;
  readonly order: string[];
  readonly count: number;
  readonly live: ReadonlyMap<string, ToolCardView>;
}

/** A state's fields other than its rows and cards. */
export type Fields = Omit<TranscriptState, 'messages' | 'openIndex' | 'tools'>;

/** Where a state keeps its rows: a non-enumerable symbol, so spreads, snapshots and JSON never carry it. */
const ROWS = Symbol('rows');

/** A state of `fields` holding `rows`. */
export function make(fields: Fields, rows: Rows): TranscriptState {
  const state = {
    ...fields,
    openIndex: rows.open ? rows.length : -1,
    // Own, enumerable getters: a snapshot posted to the webview or JSON-encoded carries plain values.
    get messages(): readonly MessageView[] {
      return rowList(rows);
    },
    get tools(): Readonly<Record<string, ToolCardView>> {
      return toolRecord(rows.tools);
    },
  };
  Object.defineProperty(state, ROWS, { value: rows });
  return state;
}

/** Each row set's array, built on first read: states that share their rows (a run-state change) share it. */
const rowLists = new WeakMap<Rows, readonly MessageView[]>();

function rowList(r: Rows): readonly MessageView[] {
  let list = rowLists.get(r);
  if (!list) {
    list = r.open ? [...r.store.slice(0, r.length), r.open, ...r.after] : r.store.slice(0, r.length);
    rowLists.set(r, list);
  }
  return list;
}

/** The rows of `s`; a state that crossed a postMessage or JSON (a snapshot) is read once from its arrays. */
export function rows(s: TranscriptState): Rows {
  const r = (s as { [ROWS]?: Rows })[ROWS];
  if (r) return r;
  const all = s.messages;
  const at = s.openIndex >= 0 ? all[s.openIndex] : undefined;
  const open = at?.role === 'assistant' ? at : undefined;
  const before = open ? all.slice(0, s.openIndex) : all.slice();
  const built: Rows = { store: before, length: before.length, open, after: open ? all.slice(s.openIndex + 1) : [], tools: toolTableOf(s.tools) };
  // A snapshot may be frozen or shared; remembering its rows is only a speed-up.
  if (Object.isExtensible(s)) Object.defineProperty(s, ROWS, { value: built });
  return built;
}

/** The fields of `s` other than its rows and cards. */
export function fieldsOf(s: TranscriptState): Fields {
  return { run: s.run, queue: s.queue, nextId: s.nextId, thinkingLevel: s.thinkingLevel, sessionName: s.sessionName, ui: s.ui, plan: s.plan };
}

/** `s` with some fields changed and the same rows. */
export function withFields(s: TranscriptState, changes: Partial<Fields>): TranscriptState {
  return make({ ...fieldsOf(s), ...changes }, rows(s));
}

/**
 * Appends to a shared store: in place when no later state has appended past `length`, else on a copy. An
 * empty store is never appended to in place: it may be a long-lived empty state's (`initialTranscript`),
 * which would then keep every row of the first session alive after a reset.
 */
export function pushed(r: Rows, ...ms: MessageView[]): Pick<Rows, 'store' | 'length'> {
  const store = r.length > 0 && r.store.length === r.length ? r.store : r.store.slice(0, r.length);
  store.push(...ms);
  return { store, length: r.length + ms.length };
}

/** A table with no cards. */
export const emptyTools = (): ToolTable => ({ index: new Map(), order: [], count: 0, live: new Map() });

/** The card of `id` in `t`, if this state holds one. */
export function lookup(t: ToolTable, id: string): ToolCardView | undefined {
  const live = t.live.get(id);
  if (live) return live;
  const e = t.index.get(id);
  return e && e.at < t.count ? e.card : undefined;
}

/** `t` with `card` set: finished cards join the shared index, running ones the small live map. */
export function setTool(t: ToolTable, card: ToolCardView): ToolTable {
  const id = card.toolCallId;
  const finished = card.status === 'done' || card.status === 'error';
  const known = t.index.get(id);
  // A finished card of an id this state has not finished before joins the index (one held only by a
  // later state's entries is not ours: that case continues on a copy below).
  if (finished && !(known && known.at < t.count)) {
    let { index, order } = t;
    // As for rows: an empty table may be a long-lived empty state's, so its first card starts a new index.
    if (t.count === 0) {
      index = new Map();
      order = [];
    } else if (order.length !== t.count) {
      // Another state appended past ours: continue on a copy of our part.
      order = order.slice(0, t.count);
      index = new Map(order.map((k) => [k, t.index.get(k)!]));
    }
    index.set(id, { card, at: order.length });
    order.push(id);
    let live = t.live;
    if (live.has(id)) {
      const copy = new Map(live);
      copy.delete(id);
      live = copy;
    }
    return { index, order, count: order.length, live };
  }
  return { ...t, live: new Map(t.live).set(id, card) };
}

/** Each table's record, built on first read: states that share a table (a text delta) share the record. */
const records = new WeakMap<ToolTable, Readonly<Record<string, ToolCardView>>>();

/** The cards as a null-prototype record, in first-seen order (what readers and snapshots see). */
function toolRecord(t: ToolTable): Readonly<Record<string, ToolCardView>> {
  const known = records.get(t);
  if (known) return known;
  const out = Object.create(null) as Record<string, ToolCardView>;
  for (let i = 0; i < t.count; i++) {
    const id = t.order[i]!;
    out[id] = t.index.get(id)!.card;
  }
  for (const [id, card] of t.live) out[id] = card;
  records.set(t, out);
  return out;
}

/** The table of a plain record of cards (a snapshot's or a page's). */
export function toolTableOf(record: Readonly<Record<string, ToolCardView>>): ToolTable {
  let t = emptyTools();
  for (const id of Object.keys(record)) t = setTool(t, record[id]!);
  return t;
}

/** The tool card of `id` in `state`, without building the whole table (for the projection, per event). */
export function toolCard(state: TranscriptState, id: string): ToolCardView | undefined {
  return lookup(rows(state).tools, id);
}

/** `s` with `card` set. */
export function withTool(s: TranscriptState, card: ToolCardView): TranscriptState {
  const r = rows(s);
  return make(fieldsOf(s), { ...r, tools: setTool(r.tools, card) });
}

/** How many of the newest rows a tool start looks through for its call. */
const TOOL_CALL_LOOKBACK = 50;

/** The model's call with this id among the latest messages (a tool starts right after its call's message). */
export function toolCallBlock(s: TranscriptState, toolCallId: string): BlockView | undefined {
  // Read from the rows as they are held: building the whole list here would cost every tool start a copy
  // of the transcript.
  const r = rows(s);
  const newest = r.open ? [...r.after].reverse().concat(r.open) : [];
  for (let i = r.length - 1; i >= 0 && newest.length < TOOL_CALL_LOOKBACK; i--) newest.push(r.store[i]!);
  for (const m of newest.slice(0, TOOL_CALL_LOOKBACK)) for (const b of m.blocks) if (b?.kind === 'toolCall' && b.toolCallId === toolCallId) return b;
  return undefined;
}

/** The id of the first row `s` holds, if any (without building the row list). */
export function firstRowId(s: TranscriptState): number | undefined {
  const r = rows(s);
  return (r.length ? r.store[0] : (r.open ?? r.after[0]))?.id;
}

/** The open (streaming) assistant message, if any. */
export function openMessage(s: TranscriptState): AssistantRow | undefined {
  return rows(s).open;
}

/** How many rows `s` holds (without building the row list). */
export function rowCount(s: TranscriptState): number {
  const r = rows(s);
  return r.length + (r.open ? 1 + r.after.length : 0);
}

/** The row at `i` of `s` (as `s.messages[i]`, without building the row list). */
export function rowAt(s: TranscriptState, i: number): MessageView | undefined {
  const r = rows(s);
  if (i < 0) return undefined;
  if (i < r.length) return r.store[i];
  if (!r.open) return undefined;
  return i === r.length ? r.open : r.after[i - r.length - 1];
}

/** Whether `a` and `b` hold the same rows (the same store, length, open row and rows after it). */
export function sameRows(a: TranscriptState, b: TranscriptState): boolean {
  const x = rows(a);
  const y = rows(b);
  return x.store === y.store && x.length === y.length && x.open === y.open && x.after === y.after;
}

/** Whether `a` and `b` hold the same tool cards. */
export function sameTools(a: TranscriptState, b: TranscriptState): boolean {
  return rows(a).tools === rows(b).tools;
}

/**
 * The cards of `next` that are not those of `prev` (new or changed), read from the tables as held: a tool
 * event costs the cards it changed, not a walk of every card. Undefined when the tables do not share their
 * index (a snapshot, a page, a branch): then any card may have changed.
 */
export function changedTools(prev: TranscriptState, next: TranscriptState): ToolCardView[] | undefined {
  const p = rows(prev).tools;
  const t = rows(next).tools;
  if (p === t) return [];
  if (p.index !== t.index || p.count > t.count) return undefined;
  const out: ToolCardView[] = [];
  for (let i = p.count; i < t.count; i++) {
    const id = t.order[i]!;
    if (!t.live.has(id)) out.push(t.index.get(id)!.card);
  }
  for (const [id, card] of t.live) if (lookup(p, id) !== card) out.push(card);
  return out;
}

/** Index of the row with id `id` among `store[0..length)` (ids ascend in row order), or -1. */
export function rowIndex(store: readonly MessageView[], id: number, length = store.length): number {
  let lo = 0;
  let hi = length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = store[mid]!.id;
    if (at === id) return mid;
    if (at < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** An empty transcript, idle. */
export const initialTranscript: TranscriptState = make(
  { run: initialRunState, queue: { steering: [], followUp: [] }, nextId: 1 },
  { store: [], length: 0, open: undefined, after: [], tools: emptyTools() },
);

/** How many rows of its own the main thread can put after one of the worker's (see `hostRowId`). */
const HOST_ROW_SLOTS = 2 ** 20;

/**
 * The id of the next row only the main thread shows (a notice of its own, which the worker never sees): the
 * next slot after the newest row, `n + k / HOST_ROW_SLOTS` for the worker's row `n` and the host's `k`th row
 * after it. Whole ids are the worker's, so the two never meet, and a counted slot (not a halving) stays exact
 * for any `n` below 2^32. Past the last slot (a million rows of its own in a row) the last is reused.
 */
export function hostRowId(s: TranscriptState): RowId {
  const r = rows(s);
  return hostRowAfter((r.after.at(-1) ?? r.open ?? (r.length ? r.store[r.length - 1] : undefined))?.id ?? s.nextId - 1);
}

/** The id a row only the main thread shows takes right after the row `last` (see `hostRowId`). */
export function hostRowAfter(last: RowId): RowId {
  const n = Math.floor(last);
  const k = Math.min(Math.round((last - n) * HOST_ROW_SLOTS) + 1, HOST_ROW_SLOTS - 1);
  return n + k / HOST_ROW_SLOTS;
}
