/** Paging the transcript: the newest rows a snapshot carries, the pages before them, and putting a page back. */

import type { MessageView, ToolCardView, TranscriptState } from './rows.ts';
import { lookup, make, fieldsOf, rowIndex, rows, setTool, toolTableOf } from './rowStore.ts';

/** Rows a snapshot carries at most; the view asks for older ones a page at a time (`loadEarlier`). */
export const SNAPSHOT_ROWS = 200;
/** Most rows one `loadEarlier` may ask for. */
export const MAX_PAGE_ROWS = 1000;

/** The tool cards `messages` show (their tool calls and results), as a null-prototype record. */
function cardsOf(state: TranscriptState, messages: readonly MessageView[]): Record<string, ToolCardView> {
  const t = rows(state).tools;
  const out = Object.create(null) as Record<string, ToolCardView>;
  const add = (id: string | undefined) => {
    const card = id === undefined || Object.hasOwn(out, id) ? undefined : lookup(t, id);
    if (!card) return;
    out[card.toolCallId] = card;
    // A nested call (a script's) has no block of its own: it is drawn inside its parent's card.
    for (const child of card.children ?? []) add(child);
  };
  for (const m of messages) {
    if (m.role === 'toolResult') add(m.toolCallId);
    for (const b of m.blocks) add(b?.toolCallId);
  }
  return out;
}

/**
 * The newest `count` rows of `state` (the streaming one and those after it always included) with the tool
 * cards they show and every running card, and how many rows come before them: what a snapshot carries, so a
 * 20,000-message session reaches the view as 200 rows. The result reduces further events like `state`.
 */
export function recentPart(state: TranscriptState, count = SNAPSHOT_ROWS): { state: TranscriptState; earlier: number } {
  const r = rows(state);
  const total = r.length + (r.open ? 1 + r.after.length : 0);
  const start = Math.min(Math.max(0, total - count), r.open ? r.length : total);
  if (start === 0) return { state, earlier: 0 };
  const kept = r.store.slice(start, r.length);
  const cards = cardsOf(state, r.open ? [...kept, r.open, ...r.after] : kept);
  for (const [id, card] of r.tools.live) cards[id] = card;
  return { state: make(fieldsOf(state), { store: kept, length: kept.length, open: r.open, after: r.after, tools: toolTableOf(cards) }), earlier: start };
}

/**
 * The first `count` rows of `state` (none streaming: the count must end before its open row) with the tool
 * cards they show: the rows a reader looks at, kept apart from the newest while many more arrive below.
 */
export function headPart(state: TranscriptState, count: number): TranscriptState | undefined {
  const r = rows(state);
  if (count > r.length) return undefined;
  const kept = r.store.slice(0, count);
  return make(fieldsOf(state), { store: kept, length: kept.length, open: undefined, after: [], tools: toolTableOf(cardsOf(state, kept)) });
}

/** Index of the first row of `messages` whose id is not below `id` (ids ascend in row order). */
function lowerBound(messages: readonly MessageView[], id: number): number {
  let lo = 0;
  let hi = messages.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (messages[mid]!.id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Rows just before a given row, the tool cards they show, and how many rows remain before them. */
export interface EarlierPage {
  readonly messages: readonly MessageView[];
  readonly tools: Readonly<Record<string, ToolCardView>>;
  readonly earlier: number;
}

/**
 * Up to `count` rows just before the row with id `before`, the tool cards they show, and how many rows
 * remain before them; undefined when `state` has no such row (a reset since the view asked).
 */
export function earlierPage(state: TranscriptState, before: number, count: number): EarlierPage | undefined {
  const all = state.messages;
  const end = rowIndex(all, before);
  if (end < 0) return undefined;
  const start = Math.max(0, end - count);
  const messages = all.slice(start, end);
  return { messages, tools: cardsOf(state, messages), earlier: start };
}

/**
 * Up to `count` of the rows of `state` whose ids are below `before`, whether or not a row has that id (the
 * main thread numbers a few rows of its own between the worker's: see `TranscriptMirror`).
 */
export function pageBefore(state: TranscriptState, before: number, count: number): EarlierPage {
  const all = state.messages;
  const end = lowerBound(all, before);
  const start = Math.max(0, end - count);
  const messages = all.slice(start, end);
  return { messages, tools: cardsOf(state, messages), earlier: start };
}

/**
 * Puts `messages` after the rows of `state` (none streaming), and their tool cards beside its own; rows that
 * do not all follow its last are refused (`state` is returned as it is).
 */
export function appendRows(state: TranscriptState, messages: readonly MessageView[], tools: Readonly<Record<string, ToolCardView>>): TranscriptState {
  const r = rows(state);
  if (!messages.length || r.open || r.after.length) return state;
  const last = r.length ? r.store[r.length - 1]!.id : -Infinity;
  for (let i = 0; i < messages.length; i++) if (messages[i]!.id <= (i ? messages[i - 1]!.id : last)) return state;
  let table = r.tools;
  for (const id of Object.keys(tools)) if (!lookup(table, id)) table = setTool(table, tools[id]!);
  const store = [...r.store.slice(0, r.length), ...messages];
  return make(fieldsOf(state), { store, length: store.length, open: undefined, after: [], tools: table });
}

/**
 * Puts `messages` (an `earlierPage` reply) before the rows of `state`, and their tool cards beside its own;
 * a card `state` already holds is newer and stays. Rows that do not all precede `state`'s first are refused
 * (`state` is returned as it is): the reply belongs to a transcript that has since been replaced.
 */
export function prependRows(state: TranscriptState, messages: readonly MessageView[], tools: Readonly<Record<string, ToolCardView>>): TranscriptState {
  const r = rows(state);
  const first = (r.length ? r.store[0] : r.open)?.id;
  if (!messages.length || first === undefined) return state;
  for (let i = 0; i < messages.length; i++) if (messages[i]!.id >= (i + 1 < messages.length ? messages[i + 1]!.id : first)) return state;
  let table = r.tools;
  for (const id of Object.keys(tools)) if (!lookup(table, id)) table = setTool(table, tools[id]!);
  const store = [...messages, ...r.store.slice(0, r.length)];
  return make(fieldsOf(state), { store, length: store.length, open: r.open, after: r.after, tools: table });
}

/**
 * The `before` that makes a page of `count` rows (`pageBefore`) hold row `id` in its middle: ids go up by one
 * per worker row (the main thread's own rows take ids between), so the page is about the rows `[id − count/2, id + count/2)`.
 */
export function aroundBefore(id: number, count: number): number {
  return Math.floor(id) + Math.ceil(count / 2) + 1;
}
