/** Applying the worker's row changes by id (`row`, `patch`, `cards`, `state`, `run`, `reset`): no reducing, the worker computed them. */

import type { WireEvent, WireRow } from '../wire/events.ts';
import { reduceRun } from '../run/runState.ts';
import { reduceShell } from './dialogsAndWidgets.ts';
import type { AssistantRow, MessageView, ToolCardView, TranscriptState } from './rows.ts';
import { emptyTools, fieldsOf, make, pushed, rowIndex, rows, setTool, withFields } from './rowStore.ts';

/** Applies the changes among `events` in order; the notifications beside them (`settled`, `dialogOpen`…) change nothing here. */
export function applyChanges(state: TranscriptState, events: readonly WireEvent[]): TranscriptState {
  let s = state;
  for (const ev of events) s = applyChange(s, ev);
  return s;
}

/** `base` with the fields of a `state` or `run` change: those in `set` replaced, those in `unset` removed. */
function setAndUnset<T extends object>(base: T, set: Readonly<Record<string, unknown>>, unset: readonly string[] | undefined): T {
  const out: Record<string, unknown> = { ...base, ...set };
  for (const k of unset ?? []) delete out[k];
  return out as T;
}

/**
 * Applies one change. An event sent beside the changes (`runStart`, `settled`, `dialogOpen`…) steps the run
 * state as the worker's did (the one run state machine every side shares): the worker sends no `run` change
 * for what the event says itself.
 */
export function applyChange(state: TranscriptState, ev: WireEvent): TranscriptState {
  const run = reduceRun(state.run, ev);
  const s = run === state.run ? state : withFields(state, { run });
  switch (ev.type) {
    case 'row': {
      const row = withHeldText(s, rowOf(ev), ev.same);
      return row ? withRow(s, row) : s;
    }
    case 'patch':
      if (isTextPatch(ev) && rows(s).open?.id === ev.id) return withPatch(s, ev.id, ev.index ?? 0, ev.text ?? '');
      return withPatched(s, ev);
    case 'cards': {
      const r = rows(s);
      let tools = r.tools;
      for (const card of ev.cards) tools = setTool(tools, card as ToolCardView);
      return make(fieldsOf(s), { ...r, tools });
    }
    case 'state':
      return make(setAndUnset(fieldsOf(s), ev.set, ev.unset), rows(s));
    case 'run':
      return withFields(s, { run: setAndUnset(fieldsOf(s).run, ev.set, ev.unset) });
    case 'reset':
      // The fields (run, queue…) arrive as their own change; numbering goes on.
      return make(fieldsOf(s), { store: [], length: 0, open: undefined, after: [], tools: emptyTools() });
    case 'bashOutput':
      // The live `!` output is appended as the worker appends it: sending the whole output per chunk would grow with its square.
      return s.ui?.shell ? withFields(s, { ui: reduceShell(s.ui, ev) }) : s;
    default:
      return s;
  }
}

/** `s` with `row` put in place of the row with its id, or after the rows (ids ascend); a streaming reply is held open. */
function withRow(s: TranscriptState, row: MessageView): TranscriptState {
  const r = rows(s);
  const streams = row.role === 'assistant' && !row.final;
  if (r.open?.id === row.id) {
    if (streams) return make(fieldsOf(s), { ...r, open: row });
    // The reply ended: it and the rows that queued behind it join the store.
    return make(fieldsOf(s), { ...pushed(r, row, ...r.after), open: undefined, after: [], tools: r.tools });
  }
  const j = r.after.findIndex((m) => m.id === row.id);
  if (j >= 0) return make(fieldsOf(s), { ...r, after: r.after.map((m, k) => (k === j ? row : m)) });
  const i = rowIndex(r.store, row.id, r.length);
  if (i >= 0) {
    // An update of a finished row (an Undo, a user row's session entry, a retried attempt): rare, so a copy.
    const store = r.store.slice(0, r.length);
    store[i] = row;
    return make(fieldsOf(s), { ...r, store });
  }
  // Ids ascend: a row before the last one held is an update of one this side let go (or never paged in).
  const last = (r.after.at(-1) ?? r.open ?? (r.length ? r.store[r.length - 1] : undefined))?.id;
  if (last !== undefined && row.id < last) return s;
  // A new row of the worker's (a whole id) moves the numbering on past it, as the worker's did: not sent apart.
  const fields = Number.isInteger(row.id) && row.id >= s.nextId ? { ...fieldsOf(s), nextId: row.id + 1 } : fieldsOf(s);
  if (r.open) return make(fields, { ...r, after: [...r.after, row] });
  if (streams) return make(fields, { ...r, open: row as AssistantRow });
  return make(fields, { ...r, ...pushed(r, row) });
}

/** The row `s` holds with id `id`, if any. */
function heldRow(s: TranscriptState, id: number): MessageView | undefined {
  const r = rows(s);
  if (r.open?.id === id) return r.open;
  const a = r.after.find((m) => m.id === id);
  if (a) return a;
  const i = rowIndex(r.store, id, r.length);
  return i >= 0 ? r.store[i] : undefined;
}

/** `row` with the text of blocks `same` taken from the row of its id `s` holds; undefined when `s` does not hold it. */
function withHeldText(s: TranscriptState, row: MessageView, same: readonly number[] | undefined): MessageView | undefined {
  if (!same?.length) return row;
  const held = heldRow(s, row.id);
  if (!held) return undefined;
  const blocks = row.blocks.map((b, i) => (b && same.includes(i) ? { ...b, text: held.blocks[i]?.text ?? '' } : b));
  return { ...row, blocks } as MessageView;
}

type RowChange = Extract<WireEvent, { readonly type: 'row' }>;

/** `row` as a `row` change carries it: without its id (the change's), its blocks' indexes (their places) and `final: false`. */
export function wireRow(row: MessageView): WireRow {
  const { id: _id, final, blocks, ...rest } = row;
  const out: Record<string, unknown> = { ...rest, blocks: blocks.map((b, i) => b && wireBlock(b, i)) };
  if (final) out.final = true;
  return out as unknown as WireRow;
}

function wireBlock(b: NonNullable<MessageView['blocks'][number]>, i: number): Record<string, unknown> {
  const { index, final, ...rest } = b;
  const out: Record<string, unknown> = rest;
  if (index !== i) out.index = index;
  if (final) out.final = true;
  return out;
}

/** The row a `row` change carries, as `MessageView` (what `wireRow` left out put back; a whole row, the main thread's, as it is). */
export function rowOf(ev: RowChange): MessageView {
  const r = ev.row as unknown as Partial<MessageView>;
  const blocks = (r.blocks ?? []).map((b, i) => b && { ...b, index: b.index ?? i, final: b.final ?? false });
  return { ...r, id: ev.id, final: r.final ?? false, blocks } as MessageView;
}

/** A row's patch as it crosses the wire. */
export type RowPatch = Extract<WireEvent, { readonly type: 'patch' }>;

/** Whether `p` only appends streamed text (the frequent case, applied without copying the row's other fields). */
function isTextPatch(p: RowPatch): boolean {
  return p.block === undefined && p.set === undefined && p.unset === undefined;
}

/** `row` as `p` leaves it: the block's fields, then its text appended, then the row's own fields. */
export function patchedRow(row: MessageView, p: RowPatch): MessageView {
  let blocks = row.blocks;
  if (p.block !== undefined || p.text) {
    const index = p.index ?? 0;
    const b = { ...(row.blocks[index] ?? { kind: 'text' as const, index, text: '', final: false }), ...p.block };
    const copy = row.blocks.slice();
    copy[index] = { ...b, text: b.text + (p.text ?? '') } as MessageView['blocks'][number];
    blocks = copy;
  }
  const out: Record<string, unknown> = { ...row, ...p.set, blocks };
  for (const k of p.unset ?? []) delete out[k];
  return out as unknown as MessageView;
}

/**
 * `a` then `b` (patches of one row) as one patch, or undefined when one cannot say both (they change
 * different blocks). The frequent case, streamed text behind streamed text, stays a plain append.
 */
export function mergedPatches(a: RowPatch, b: RowPatch): RowPatch | undefined {
  if (a.id !== b.id) return undefined;
  const aBlock = a.block !== undefined || a.text !== undefined;
  const bBlock = b.block !== undefined || b.text !== undefined;
  if (aBlock && bBlock && (a.index ?? 0) !== (b.index ?? 0)) return undefined;
  if (isTextPatch(a) && isTextPatch(b)) return { ...b, text: (a.text ?? '') + (b.text ?? '') };
  const index = bBlock ? b.index : a.index;
  const block = a.block || b.block ? { ...a.block, ...b.block } : undefined;
  // Text `b` sets replaces what `a` appended.
  const text = (b.block && 'text' in b.block ? '' : (a.text ?? '')) + (b.text ?? '');
  const set: Record<string, unknown> = { ...a.set };
  const unset = new Set(a.unset);
  for (const k of b.unset ?? []) {
    delete set[k];
    unset.add(k);
  }
  for (const [k, v] of Object.entries(b.set ?? {})) {
    set[k] = v;
    unset.delete(k);
  }
  return {
    type: 'patch',
    id: a.id,
    ...(index ? { index } : {}),
    ...(text ? { text } : {}),
    ...(block ? { block } : {}),
    ...(Object.keys(set).length ? { set } : {}),
    ...(unset.size ? { unset: [...unset] } : {}),
  };
}

/** `s` with the row `p` names patched; as it is when it does not hold that row (paged out: never put back out of place). */
function withPatched(s: TranscriptState, p: RowPatch): TranscriptState {
  const held = heldRow(s, p.id);
  return held ? withRow(s, patchedRow(held, p)) : s;
}

/** `s` with `text` appended to block `index` of its open row, when that row is `id`. */
function withPatch(s: TranscriptState, id: number, index: number, text: string): TranscriptState {
  const r = rows(s);
  const m = r.open;
  if (m?.id !== id) return s;
  const b = m.blocks[index] ?? { kind: 'text' as const, index, text: '', final: false };
  const blocks = m.blocks.slice();
  blocks[index] = { ...b, text: b.text + text };
  return make(fieldsOf(s), { ...r, open: { ...m, blocks } });
}

/**
 * `s` with the rows it holds that `events` replace by id (an Undo's Changes row, a user row's session entry):
 * for a part of the transcript that takes no other changes, the rows a user reads back while the newest are held apart.
 */
export function withRowUpdates(s: TranscriptState, events: readonly WireEvent[]): TranscriptState {
  let out = s;
  for (const ev of events) {
    if (ev?.type !== 'row' && ev?.type !== 'patch') continue;
    const r = rows(out);
    if (rowIndex(r.store, ev.id, r.length) < 0) continue;
    if (ev.type === 'patch') out = withPatched(out, ev);
    else {
      const row = withHeldText(out, rowOf(ev), ev.same);
      if (row) out = withRow(out, row);
    }
  }
  return out;
}
