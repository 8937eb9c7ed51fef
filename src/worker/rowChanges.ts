/**
 * What the worker sends for each event its transcript applied: the rows it touched, by id and revision
 * (`row`, or `patch` for streamed text), the tool cards and fields that changed, and the few events others
 * act on. The main thread and the view apply these (applyChanges.ts); only the worker reduces.
 */

import type { WireEvent } from '../shared/wire/events.ts';
import { changedTools, fieldsOf, rows, type Fields } from '../shared/transcript/rowStore.ts';
import type { MessageView, TranscriptState } from '../shared/transcript/rows.ts';

/**
 * Events that travel on as they are, beside the changes: what the main thread acts on (a dialog to mirror, a
 * run that settled, a transcript replaced) and what the view's run state is told by them. `bashOutput` is its
 * own small change (the live output appended). Every other event's effect travels as changes alone.
 */
const FORWARDED: ReadonlySet<WireEvent['type']> = new Set<WireEvent['type']>([
  'runStart',
  'turnStart',
  'turnEnd',
  'runEnd',
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

/** Numbers the worker's changes: a row's revision is the number of its latest change. */
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
      if (typeof ev.text === 'string' && ev.text)
        out.push({ type: 'patch', id: n.open.id, rev: ++this._rev, ...(ev.index ? { index: ev.index } : {}), text: ev.text });
    } else if (ev.type !== 'reset') this._rows(p, n, out);
    if (ev.type !== 'reset') {
      const cards = changedTools(prev, next) ?? Object.values(next.tools);
      if (cards.length) out.push({ type: 'cards', cards });
    }
    this._fields(prev, next, ev, out);
  }

  /** A `row` change for each row of `n` that is not (the same object as) the row of its id in `p`. */
  private _rows(p: ReturnType<typeof rows>, n: ReturnType<typeof rows>, out: WireEvent[]): void {
    if (p.store === n.store && p.length === n.length && p.open === n.open && p.after === n.after) return;
    // The store is append-only: past rows are shared unless it was copied (an update of a finished row, rare).
    const shared = Math.min(p.length, n.length);
    if (p.store !== n.store) for (let i = 0; i < shared; i++) if (p.store[i] !== n.store[i]) this._row(n.store[i]!, out);
    const before = new Map<number, MessageView>();
    for (let i = shared; i < p.length; i++) before.set(p.store[i]!.id, p.store[i]!);
    if (p.open) before.set(p.open.id, p.open);
    for (const m of p.after) before.set(m.id, m);
    const emit = (m: MessageView) => {
      const was = before.get(m.id);
      if (was !== m) this._row(m, out, was);
    };
    for (let i = shared; i < n.length; i++) emit(n.store[i]!);
    if (n.open) emit(n.open);
    for (const m of n.after) emit(m);
  }

  /** A `row` change for `row`, which the transcript no longer holds (the window dropped it) but a receiver may. */
  row(row: MessageView, out: WireEvent[]): void {
    this._row(row, out);
  }

  /** A `row` change; the text of blocks `was` (the receiver's copy) already has is left out. */
  private _row(row: MessageView, out: WireEvent[], was?: MessageView): void {
    const same: number[] = [];
    if (was)
      for (let i = 0; i < row.blocks.length; i++) {
        const b = row.blocks[i];
        if (b?.text && b.text === was.blocks[i]?.text) same.push(i);
      }
    if (!same.length) {
      out.push({ type: 'row', id: row.id, rev: ++this._rev, row });
      return;
    }
    const blocks = row.blocks.map((b, i) => (b && same.includes(i) ? { ...b, text: '' } : b));
    out.push({ type: 'row', id: row.id, rev: ++this._rev, row: { ...row, blocks } as MessageView, same });
  }

  /** One `state` change with the fields `ev` changed (by identity: the reducer keeps what it does not change). */
  private _fields(prev: TranscriptState, next: TranscriptState, ev: WireEvent, out: WireEvent[]): void {
    const a = fieldsOf(prev);
    const b = fieldsOf(next);
    const set: Record<string, unknown> = {};
    const unset: string[] = [];
    let any = false;
    for (const k of FIELDS) {
      if (a[k] === b[k]) continue;
      // The live `!` output travels as its own `bashOutput`.
      if (k === 'ui' && ev.type === 'bashOutput') continue;
      any = true;
      if (b[k] === undefined) unset.push(k);
      else set[k] = b[k];
    }
    if (any) out.push(unset.length ? { type: 'state', set, unset } : { type: 'state', set });
  }
}
