/**
 * The transcript reducer: wire events in, the state rendered from out. It runs in the worker only, which sends
 * the changes it made by row id (src/worker/rowChanges.ts); the main thread and the view apply those
 * (applyChanges.ts). A row takes the id its event names.
 */

import type { BlockFinal, RowId, StopReason, WireEvent } from '../wire/events.ts';
import { reduceExtensionUi, reduceShell } from './dialogsAndWidgets.ts';
import { unknownCase } from '../exhaustive.ts';
import { t } from '../l10n.ts';
import { isEntryId } from '../wire/limits.ts';
import { reduceRun } from '../run/runState.ts';
import type { AssistantRow, BlockView, MessageView, ToolCardView, TranscriptState } from './rows.ts';
import { applyChange } from './applyChanges.ts';
import { emptyTools, fieldsOf, initialTranscript, lookup, make, pushed, rowIndex, rows, toolCallBlock, withFields, withTool } from './rowStore.ts';

// The empty transcript and the main thread's own row ids live with the rows (the main thread applies, it does not reduce).
export { hostRowId, initialTranscript } from './rowStore.ts';

/** Applies a batch of wire events in order. */
export function reduce(state: TranscriptState, events: readonly WireEvent[]): TranscriptState {
  let s = state;
  for (const ev of events) s = reduceOne(s, ev);
  return s;
}

/** Applies one wire event; an unknown one (from a newer producer) returns `state` as it is. */
export function reduceOne(state: TranscriptState, ev: WireEvent): TranscriptState {
  const run = reduceRun(state.run, ev);
  const s = run === state.run ? state : withFields(state, { run });
  switch (ev.type) {
    case 'userMessage':
      return append(s, {
        id: idOf(s, ev),
        role: 'user',
        blocks: [textBlock(ev.text)],
        final: true,
        images: ev.images || undefined,
        ...(ev.media?.length ? { media: ev.media } : {}),
        ...(isEntryId(ev.entryId) ? { entryId: ev.entryId } : {}),
      });
    case 'userEntry':
      return isEntryId(ev.entryId) ? withUserEntry(s, ev.rowId, ev.entryId) : s;
    case 'noticeMessage': {
      const row: MessageView = {
        id: idOf(s, ev),
        role: 'notice',
        blocks: [textBlock(ev.text)],
        final: true,
        level: ev.level,
        code: ev.code,
        ...(ev.label ? { label: ev.label } : {}),
        ...(ev.markdown ? { markdown: true } : {}),
      };
      return append(s, row);
    }
    case 'assistantStart': {
      // A duplicated start or a lost end must not leave the previous row streaming forever.
      const closed = closeOpen(s, 'error', ev.at);
      const r = rows(closed);
      const id = idOf(closed, ev);
      return make(
        { ...fieldsOf(closed), nextId: nextAfter(closed, id) },
        { ...r, open: { id, role: 'assistant', blocks: [], final: false, startedAt: ev.at } },
      );
    }
    case 'blockStart':
      return updateOpen(s, (m) =>
        withBlock(m, ev.index, {
          kind: ev.kind,
          index: ev.index,
          text: '',
          final: false,
          toolCallId: ev.toolCallId,
          toolName: ev.toolName,
          startedAt: ev.at,
        }),
      );
    case 'delta':
      return updateOpen(s, (m) => {
        const b = m.blocks[ev.index] ?? { kind: 'text' as const, index: ev.index, text: '', final: false };
        return withBlock(m, ev.index, { ...b, text: b.text + ev.text });
      });
    case 'blockEnd':
      return updateOpen(s, (m) => {
        const b = m.blocks[ev.index];
        const base = ev.final ? applyFinal(b, ev.final) : b;
        return base ? withBlock(m, ev.index, { ...base, text: flattened(base.text), final: true, endedAt: ev.at }) : m;
      });
    case 'assistantEnd': {
      const ended = updateOpen(s, (m) => {
        let blocks = m.blocks.slice();
        for (const f of ev.blocks ?? []) blocks[f.index] = { ...applyFinal(blocks[f.index], f), final: true };
        if (ev.blockCount !== undefined) blocks = blocks.slice(0, ev.blockCount);
        blocks = blocks.map((b) => (b && !b.final ? { ...b, text: flattened(b.text), final: true, endedAt: b.endedAt ?? ev.at } : b));
        return { ...m, blocks, final: true, stopReason: ev.stopReason, errorMessage: ev.errorMessage, usage: ev.usage, endedAt: ev.at };
      });
      return settle(failUnrunCalls(ended));
    }
    case 'toolStart': {
      // Ids key the card table and the view's elements: one that is not text (a crafted session's) is dropped.
      if (!isId(ev.toolCallId)) return s;
      const prev = lookup(rows(s).tools, ev.toolCallId);
      const card: ToolCardView = {
        toolCallId: ev.toolCallId,
        toolName: typeof ev.toolName === 'string' ? ev.toolName : '',
        args: ev.args ?? toolCallBlock(s, ev.toolCallId)?.text ?? '',
        status: 'running',
        output: prev?.output ?? '',
        startedAt: ev.at,
        ...(isId(ev.parentToolCallId) ? { parentToolCallId: ev.parentToolCallId } : {}),
        ...(prev?.children ? { children: prev.children } : {}),
      };
      const next = withTool(s, card);
      const parent = isId(ev.parentToolCallId) ? lookup(rows(next).tools, ev.parentToolCallId) : undefined;
      if (!parent || parent.children?.includes(ev.toolCallId)) return next;
      return withTool(next, { ...parent, children: [...(parent.children ?? []), ev.toolCallId] });
    }
    case 'toolUpdate': {
      if (!isId(ev.toolCallId)) return s;
      const card = lookup(rows(s).tools, ev.toolCallId);
      if (!card || card.status !== 'running') return s;
      return withTool(s, { ...card, output: ev.output });
    }
    case 'toolEnd': {
      if (!isId(ev.toolCallId)) return s;
      const card = lookup(rows(s).tools, ev.toolCallId) ?? { toolCallId: ev.toolCallId, toolName: '', args: '', status: 'running' as const, output: '' };
      const done: ToolCardView = {
        ...card,
        status: ev.isError ? 'error' : 'done',
        output: ev.output,
        durationMs: ev.durationMs,
        ...(ev.media?.length ? { media: ev.media } : {}),
      };
      return withTool(s, done);
    }
    case 'toolResult':
      if (!isId(ev.toolCallId)) return s;
      return append(s, {
        id: idOf(s, ev),
        role: 'toolResult',
        blocks: ev.text === undefined ? [] : [textBlock(ev.text)],
        final: true,
        toolCallId: ev.toolCallId,
        toolName: typeof ev.toolName === 'string' ? ev.toolName : '',
        isError: ev.isError,
        ...(ev.media?.length ? { media: ev.media } : {}),
      });
    case 'queue':
      return withFields(s, { queue: { steering: ev.steering, followUp: ev.followUp } });
    case 'settled':
      // A run that ends without its assistant message closing (a crash, a lost event) must not leave a
      // row streaming forever.
      return closeOpen(s, ev.aborted ? 'aborted' : 'error', ev.at);
    case 'thinkingLevel':
      return withFields(s, { thinkingLevel: ev.level });
    case 'sessionInfo':
      return withFields(s, { sessionName: ev.name });
    case 'plan':
      return withFields(s, { plan: ev.plan });
    case 'reset':
      // Numbering goes on: a history replayed after it (a tree move, a restore) names no row as one before did.
      return make(
        { run: initialTranscript.run, queue: initialTranscript.queue, nextId: s.nextId, thinkingLevel: s.thinkingLevel },
        { store: [], length: 0, open: undefined, after: [], tools: emptyTools() },
      );
    case 'retryStart': {
      const all = s.messages;
      const i = all.findLastIndex((m) => m.role === 'assistant');
      const m = all[i];
      if (m?.role !== 'assistant' || m.stopReason !== 'error' || m.retried) return s;
      // Rare (once per retry): rebuilding the rows from a copy keeps the shared store append-only.
      const messages = all.slice();
      messages[i] = { ...m, retried: true };
      return make(fieldsOf(s), { store: messages, length: messages.length, open: undefined, after: [], tools: rows(s).tools });
    }
    case 'changes': {
      const all = s.messages;
      const row: MessageView = { id: idOf(s, ev), role: 'changes', blocks: [], final: true, runId: ev.runId, files: ev.files };
      if (!(ev.replace ?? changesRowIndex(s, ev.runId) >= 0)) return append(s, row);
      // An update names the row it replaces; one from a producer that does not is the run's last.
      const i = ev.rowId === undefined ? changesRowIndex(s, ev.runId) : changesRowOf(s, ev.rowId);
      if (i < 0) return s;
      // An Undo updates its row (rare): rebuilding the rows from a copy keeps the shared store append-only.
      const messages = all.slice();
      messages[i] = { ...row, id: all[i]!.id };
      return make(fieldsOf(s), { store: messages, length: messages.length, open: undefined, after: [], tools: rows(s).tools });
    }
    case 'bashEnd': {
      const ended = ev.id !== undefined ? withFields(s, { ui: reduceShell(s.ui, ev) }) : s;
      return append(ended, {
        id: idOf(ended, ev),
        role: 'bash',
        blocks: [textBlock(ev.output)],
        final: true,
        command: ev.command,
        exitCode: ev.exitCode,
        cancelled: ev.cancelled,
        excluded: ev.excluded,
      });
    }
    case 'bashStart':
    case 'bashOutput':
      return withFields(s, { ui: reduceShell(s.ui, ev) });
    case 'dialogOpen':
    case 'dialogClose':
    case 'widget':
    case 'workingMessage':
    case 'workingVisible':
      return withFields(s, { ui: reduceExtensionUi(s.ui, ev) });
    case 'runStart':
    case 'turnStart':
    case 'turnEnd':
    case 'runEnd':
    case 'retryEnd':
    case 'compactionStart':
    case 'compactionEnd':
    case 'summaryRetry':
    case 'cancelRequested':
    case 'starting':
    case 'stalled':
      return s;
    case 'row':
    case 'patch':
    case 'cards':
    case 'state':
    case 'run':
      // The worker's changes (see applyChanges.ts): a reader of what crossed the wire (a test, a bench) reduces both.
      return applyChange(s, ev);
    default:
      return unknownCase(ev, state);
  }
}

/**
 * `text` made one piece in memory. A block streamed as `text + delta` is a rope of one piece per delta (a
 * token-sized delta costs several times its characters); reading a character makes the engine flatten
 * it in place, so the pieces can go once the block ends.
 */
function flattened(text: string): string {
  if (text.length) text.charCodeAt(0);
  return text;
}

/** `s` with user row `rowId` (if it holds it) naming Pi's session entry `entryId`. */
function withUserEntry(s: TranscriptState, rowId: RowId, entryId: string): TranscriptState {
  const r = rows(s);
  const named = (m: MessageView): MessageView => (m.role === 'user' && m.entryId !== entryId ? { ...m, entryId } : m);
  const i = rowIndex(r.store, rowId, r.length);
  if (i >= 0) {
    const row = named(r.store[i]!);
    if (row === r.store[i]) return s;
    // Once per prompt: a copy keeps the shared store append-only.
    const store = r.store.slice(0, r.length);
    store[i] = row;
    return make(fieldsOf(s), { ...r, store });
  }
  const j = r.after.findIndex((m) => m.id === rowId);
  const row = j >= 0 ? named(r.after[j]!) : undefined;
  if (!row || row === r.after[j]) return s;
  return make(fieldsOf(s), { ...r, after: r.after.map((m, k) => (k === j ? row : m)) });
}

/** Whether `id` can name a tool call: text (the wire's type says so, a crafted session file need not). */
function isId(id: unknown): id is string {
  return typeof id === 'string';
}

function textBlock(text: string): BlockView {
  return { kind: 'text', index: 0, text, final: true };
}

/** Index of the run's Changes row an update of `runId` replaces, or -1 (none held, or a reply streams: it adds one). */
function changesRowIndex(s: TranscriptState, runId: string): number {
  return s.openIndex >= 0 ? -1 : s.messages.findLastIndex((m) => m.role === 'changes' && m.runId === runId);
}

/** Index of the Changes row with id `id`, or -1 (not held, not a Changes row, or a reply streams). */
function changesRowOf(s: TranscriptState, id: RowId): number {
  if (s.openIndex >= 0) return -1;
  const all = s.messages;
  let lo = 0;
  let hi = all.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = all[mid]!.id;
    if (at === id) return all[mid]!.role === 'changes' ? mid : -1;
    if (at < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * `s` with the rows it holds that `events` update by id (an Undo's Changes row, a user row's session entry): for a part of the transcript
 * that takes no other events, the rows a user reads back while the newest are held apart.
 */
export function withRowUpdates(s: TranscriptState, events: readonly WireEvent[]): TranscriptState {
  let out = s;
  for (const ev of events)
    if ((ev?.type === 'changes' && ev.replace === true && typeof ev.rowId === 'number') || ev?.type === 'userEntry') out = reduceOne(out, ev);
  return out;
}

/** The events that add a row, and so name its id. */
type RowEvent = Extract<WireEvent, { readonly type: 'userMessage' | 'noticeMessage' | 'assistantStart' | 'toolResult' | 'changes' | 'bashEnd' }>;

const ROW_EVENT_TYPES: ReadonlySet<WireEvent['type']> = new Set<RowEvent['type']>([
  'userMessage',
  'noticeMessage',
  'assistantStart',
  'toolResult',
  'changes',
  'bashEnd',
]);

/** Whether `ev` may add a row (and so names its id). */
function isRowEvent(ev: WireEvent): ev is RowEvent {
  return ROW_EVENT_TYPES.has(ev.type);
}

/** The id `ev`'s row takes: the one it names, else (a producer that names none: a test's, a replay's) the next. */
function idOf(s: TranscriptState, ev: RowEvent): RowId {
  return typeof ev.rowId === 'number' && Number.isFinite(ev.rowId) ? ev.rowId : s.nextId;
}

/** `s.nextId` once a row took `id`: past it for a worker's row; a host row's (between two) leaves it. */
function nextAfter(s: TranscriptState, id: RowId): number {
  return Number.isInteger(id) ? Math.max(s.nextId, id + 1) : s.nextId;
}

/**
 * `ev` as the worker sends it, `s` being its transcript before it (which holds every row): a row's event names
 * the id the row takes, the next of the worker's, and an update of Changes says whether it replaces a row
 * (the main thread and the view may no longer hold the row it replaces).
 */
export function asSent(s: TranscriptState, ev: WireEvent): WireEvent {
  if (ev.type === 'changes') {
    const i = changesRowIndex(s, ev.runId);
    const replace = ev.replace ?? i >= 0;
    // An update names the row it replaces, so a side holding it anywhere (a part read back) finds it.
    const rowId = ev.rowId ?? (!replace ? s.nextId : i >= 0 ? s.messages[i]!.id : undefined);
    return { ...ev, replace, ...(rowId === undefined ? {} : { rowId }) };
  }
  return withRowId(ev, s.nextId);
}

/** `ev` naming `id` for its row, when it adds one and names none. */
export function withRowId(ev: WireEvent, id: RowId): WireEvent {
  return isRowEvent(ev) && ev.rowId === undefined ? { ...ev, rowId: id } : ev;
}

/** `s` with `m` after its rows. */
function append(s: TranscriptState, m: MessageView): TranscriptState {
  const r = rows(s);
  const fields = { ...fieldsOf(s), nextId: nextAfter(s, m.id) };
  // While a row streams, new rows queue after it (a notice, a result); they join the store when it ends.
  if (r.open) return make(fields, { ...r, after: [...r.after, m] });
  return make(fields, { ...r, ...pushed(r, m) });
}

function updateOpen(s: TranscriptState, f: (m: AssistantRow) => AssistantRow): TranscriptState {
  const r = rows(s);
  if (!r.open) return s;
  return make(fieldsOf(s), { ...r, open: f(r.open) });
}

/** Moves the open row (ended) and the rows that queued behind it into the store. */
function settle(s: TranscriptState): TranscriptState {
  const r = rows(s);
  if (!r.open) return s;
  return make(fieldsOf(s), { ...pushed(r, r.open, ...r.after), open: undefined, after: [], tools: r.tools });
}

/** Ends the open row, if any, as `stopReason` unless it has one, with every block final. */
function closeOpen(s: TranscriptState, stopReason: StopReason, at: number): TranscriptState {
  const closed = updateOpen(s, (m) => ({
    ...m,
    final: true,
    stopReason: m.stopReason ?? stopReason,
    endedAt: at,
    blocks: m.blocks.map((b) => (b && !b.final ? { ...b, text: flattened(b.text), final: true } : b)),
  }));
  return settle(failUnrunCalls(closed));
}

/**
 * `s` with a failed card for each call of the open row that has none, when the row ended in an error or was
 * aborted: Pi runs no call of such a message, and shows each as failed with the reason (its UI's
 * `message_end` and its replay of a session do this), where the view would otherwise show them pending forever.
 */
function failUnrunCalls(s: TranscriptState): TranscriptState {
  const row = rows(s).open;
  if (!row || (row.stopReason !== 'error' && row.stopReason !== 'aborted')) return s;
  const reason = row.errorMessage || (row.stopReason === 'aborted' ? t('Operation aborted') : t('Error'));
  let out = s;
  for (const b of row.blocks) {
    if (b?.kind !== 'toolCall' || !isId(b.toolCallId) || lookup(rows(out).tools, b.toolCallId)) continue;
    out = withTool(out, { toolCallId: b.toolCallId, toolName: b.toolName ?? '', args: b.text, status: 'error', output: reason });
  }
  return out;
}

function withBlock(m: AssistantRow, index: number, b: BlockView): AssistantRow {
  const blocks = m.blocks.slice();
  blocks[index] = b;
  return { ...m, blocks };
}

function applyFinal(b: BlockView | undefined, f: BlockFinal): BlockView {
  return {
    ...(b ?? { index: f.index, final: true }),
    kind: f.kind,
    index: f.index,
    text: f.text,
    final: true,
    toolCallId: f.toolCallId ?? b?.toolCallId,
    toolName: f.toolName ?? b?.toolName,
  };
}
