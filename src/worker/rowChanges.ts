/**
 * What the worker sends for each event its transcript applied: the rows it touched, by id and revision
 * (`row`, or `patch` for streamed text), the tool cards and fields that changed, and the few events others
 * act on. The main thread and the view apply these (applyChanges.ts); only the worker reduces.
 */

import type { WireEvent } from '../shared/wire/events.ts';
import { reduceRun } from '../shared/run/runState.ts';
import { wireRow } from '../shared/transcript/applyChanges.ts';
import { changedTools, fieldsOf, rows, type Fields } from '../shared/transcript/rowStore.ts';
import type { MessageView, TranscriptState } from '../shared/transcript/rows.ts';

/**
 * Events that travel on as they are, beside the changes: what the main thread acts on (a dialog to mirror, a
 * run that settled, a transcript replaced) and what the view's run state is told by them. `bashOutput` is its
 * own small change (the live output appended). Every other event's effect travels as changes alone; a turn's
 * start and end and Pi's `runEnd` change nothing a receiver shows (a run ends when it settles), so they stay here.
 */
const FORWARDED: ReadonlySet<WireEvent['type']> = new Set<WireEvent['type']>([
  'runStart',
  'settled',
  'reset',
  'dialogOpen',
  'dialogClose',
  'bashOutput',
  'compactionStart',
  'compactionEnd',
  'retryEnd',
  'summaryRetry',
  'cancelRequested',
  'starting',
  'stalled',
]);

/** The fields a `state` change may carry (`nextId` moves on with each new row the receiver applies). */
const FIELDS: readonly (keyof Fields)[] = ['run', 'queue', 'thinkingLevel', 'sessionName', 'ui', 'plan'];

/**
 * Rows whose later changes go as patches: those a turn changes as it goes (a prompt given its session entry,
 * a reply's blocks starting and ending, the reply ending). Others go whole (the main thread reads an Undo's
 * Changes row from its change).
 */
const PATCHED: ReadonlySet<MessageView['role']> = new Set<MessageView['role']>(['user', 'assistant']);

/** Numbers the worker's changes: a row sent whole carries the number of that change. */
export class RowChanges {
  private _rev = 0;

  /** Appends to `out` what takes a receiver holding `prev` to `next`, `ev` being the event that made it. */
  step(prev: TranscriptState, next: TranscriptState, ev: WireEvent, out: WireEvent[]): void {
    if (prev === next && !FORWARDED.has(ev.type)) return;
    if (FORWARDED.has(ev.type)) out.push(ev);
    const p = rows(prev);
    const n = rows(next);
    if (ev.type === 'delta' && p.open && n.open?.id === p.open.id && n.store === p.store && n.length === p.length && n.after === p.after) {
      // Streaming: the text the reply grew by, not the reply.
      if (typeof ev.text === 'string' && ev.text) {
        this._rev++;
        out.push({ type: 'patch', id: n.open.id, ...(ev.index ? { index: ev.index } : {}), text: ev.text });
      }
    } else if (ev.type !== 'reset') this._rows(p, n, out);
    if (ev.type !== 'reset') {
      const cards = changedTools(prev, next) ?? Object.values(next.tools);
      if (cards.length) out.push({ type: 'cards', cards });
    }
    this._fields(prev, next, ev, out);
  }

  /** A change for each row of `n` that is not (the same object as) the row of its id in `p`. */
  private _rows(p: ReturnType<typeof rows>, n: ReturnType<typeof rows>, out: WireEvent[]): void {
    if (p.store === n.store && p.length === n.length && p.open === n.open && p.after === n.after) return;
    // The store is append-only: past rows are shared unless it was copied (an update of a finished row, rare).
    const shared = Math.min(p.length, n.length);
    if (p.store !== n.store) for (let i = 0; i < shared; i++) if (p.store[i] !== n.store[i]) this.row(n.store[i]!, out, p.store[i]);
    const before = new Map<number, MessageView>();
    for (let i = shared; i < p.length; i++) before.set(p.store[i]!.id, p.store[i]!);
    if (p.open) before.set(p.open.id, p.open);
    for (const m of p.after) before.set(m.id, m);
    const emit = (m: MessageView) => {
      const was = before.get(m.id);
      if (was !== m) this.row(m, out, was);
    };
    for (let i = shared; i < n.length; i++) emit(n.store[i]!);
    if (n.open) emit(n.open);
    for (const m of n.after) emit(m);
  }

  /**
   * The change of `row` for a receiver holding `was` (its previous version; absent: it may hold none, or one
   * the worker no longer has, as for a row the window dropped): patches of what changed, nothing when nothing
   * did, else the whole row with the text of blocks `was` already has left out.
   */
  row(row: MessageView, out: WireEvent[], was?: MessageView): void {
    const patches = was && PATCHED.has(row.role) && was.role === row.role && was.id === row.id ? rowPatches(was, row) : undefined;
    if (patches) {
      for (const patch of patches) out.push(patch);
      this._rev += patches.length;
      return;
    }
    const same: number[] = [];
    if (was)
      for (let i = 0; i < row.blocks.length; i++) {
        const b = row.blocks[i];
        if (b?.text && b.text === was.blocks[i]?.text) same.push(i);
      }
    if (!same.length) {
      out.push({ type: 'row', id: row.id, rev: ++this._rev, row: wireRow(row) });
      return;
    }
    const blocks = row.blocks.map((b, i) => (b && same.includes(i) ? { ...b, text: '' } : b));
    out.push({ type: 'row', id: row.id, rev: ++this._rev, row: wireRow({ ...row, blocks } as MessageView), same });
  }

  /** The `state` change with the fields `ev` changed (by identity: the reducer keeps what it does not change), and the run's as a `run` change. */
  private _fields(prev: TranscriptState, next: TranscriptState, ev: WireEvent, out: WireEvent[]): void {
    const a = fieldsOf(prev);
    const b = fieldsOf(next);
    const set: Record<string, unknown> = {};
    const unset: string[] = [];
    let any = false;
    let run: WireEvent | undefined;
    for (const k of FIELDS) {
      if (a[k] === b[k]) continue;
      // The live `!` output travels as its own `bashOutput`.
      if (k === 'ui' && ev.type === 'bashOutput') continue;
      if (k === 'run' && a.run && b.run) {
        // An event sent on is stepped by the receiver's run state machine as by ours (runStart, settled…):
        // only what it would not make of it goes, and for any other event only the fields that changed.
        const stepped = FORWARDED.has(ev.type) ? reduceRun(a.run, ev) : a.run;
        const d = fieldsDiff(stepped as unknown as Record<string, unknown>, b.run as unknown as Record<string, unknown>);
        if (d) run = { type: 'run', set: d.set, ...(d.unset.length ? { unset: d.unset } : {}) };
        continue;
      }
      any = true;
      if (b[k] === undefined) unset.push(k);
      else set[k] = b[k];
    }
    if (run) out.push(run);
    if (any) out.push(unset.length ? { type: 'state', set, unset } : { type: 'state', set });
  }
}

type RowPatch = Extract<WireEvent, { readonly type: 'patch' }>;

/** Whether two field values show the same (objects compared by content: a reducer may rebuild an equal one). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return typeof a === 'object' && typeof b === 'object' && a !== null && b !== null && JSON.stringify(a) === JSON.stringify(b);
}

/** The fields of `b` that differ from `a` (`set`) and those it no longer has (`unset`); undefined when none do. */
function fieldsDiff(
  a: Readonly<Record<string, unknown>>,
  b: Readonly<Record<string, unknown>>,
  skip: readonly string[] = [],
): { set: Record<string, unknown>; unset: string[] } | undefined {
  const set: Record<string, unknown> = {};
  const unset: string[] = [];
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (skip.includes(k) || sameValue(a[k], b[k])) continue;
    if (b[k] === undefined) {
      if (a[k] !== undefined) unset.push(k);
    } else set[k] = b[k];
  }
  return Object.keys(set).length || unset.length ? { set, unset } : undefined;
}

/**
 * Patches that take `was` to `row` (one per block that changed, the row's own fields with the last), or
 * undefined when patches cannot say it (a block went, or a field of one): then the row goes whole.
 */
function rowPatches(was: MessageView, row: MessageView): RowPatch[] | undefined {
  if (row.blocks.length < was.blocks.length) return undefined;
  const out: RowPatch[] = [];
  for (let i = 0; i < row.blocks.length; i++) {
    const b = row.blocks[i];
    const a = was.blocks[i];
    if (b === a) continue;
    if (!b) return undefined;
    // A block that starts is a text block with no text until its fields say otherwise.
    const from = (a ?? { kind: 'text', index: i, text: '', final: false }) as unknown as Record<string, unknown>;
    const d = fieldsDiff(from, b as unknown as Record<string, unknown>, ['text']);
    if (d?.unset.length) return undefined;
    const patch: { -readonly [K in keyof RowPatch]: RowPatch[K] } = { type: 'patch', id: row.id };
    if (i) patch.index = i;
    const block = d?.set ?? {};
    const text = typeof from.text === 'string' ? from.text : '';
    if (b.text !== text) {
      // Text that grew is appended; text that changed otherwise is set.
      if (b.text.startsWith(text)) patch.text = b.text.slice(text.length);
      else block.text = b.text;
    }
    if (Object.keys(block).length) patch.block = block;
    if (patch.text !== undefined || patch.block !== undefined) out.push(patch);
  }
  const d = fieldsDiff(was as unknown as Record<string, unknown>, row as unknown as Record<string, unknown>, ['id', 'blocks']);
  if (d) {
    const fields = { ...(Object.keys(d.set).length ? { set: d.set } : {}), ...(d.unset.length ? { unset: d.unset } : {}) };
    const last = out.at(-1);
    if (last) out[out.length - 1] = { ...last, ...fields };
    else out.push({ type: 'patch', id: row.id, ...fields });
  }
  return out;
}
