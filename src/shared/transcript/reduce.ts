/**
 * The transcript reducer: wire events in, the state both sides render from out. It runs in the host (to
 * answer a re-created view with a snapshot) and in the webview, so both hold the same state.
 */

import type { ImageView } from '../images.ts';
import type { BlockFinal, BlockKind, FileChangeView, NoticeCode, NoticeLevel, StopReason, UsageView, WireEvent } from '../wire/webviewProtocol.ts';
import { reduceExtensionUi, reduceShell, type ExtensionUiState } from './dialogsAndWidgets.ts';
import { initialRunState, reduceRun, type RunState } from '../run/runState.ts';

export interface BlockView {
  readonly kind: BlockKind;
  readonly index: number;
  /** Text, thinking, or the tool call's arguments as JSON text (possibly incomplete while streaming). */
  readonly text: string;
  readonly final: boolean;
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly startedAt?: number;
  readonly endedAt?: number;
}

export type MessageRole = 'user' | 'assistant' | 'toolResult' | 'notice' | 'changes' | 'bash';

export interface MessageView {
  /** Assigned in arrival order by the reducer, so host and webview agree without sending ids. */
  readonly id: number;
  readonly role: MessageRole;
  /** Sparse by `contentIndex` while streaming; a hole is a block that has not started yet. */
  readonly blocks: readonly (BlockView | undefined)[];
  readonly final: boolean;
  readonly stopReason?: StopReason;
  readonly errorMessage?: string;
  readonly usage?: UsageView;
  readonly images?: number;
  /** The image blocks of a user message or tool result, as the webview draws them. */
  readonly media?: readonly ImageView[];
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly isError?: boolean;
  /** An errored attempt Pi retried: shown as a failed attempt, not as the run's outcome. */
  readonly retried?: boolean;
  readonly level?: NoticeLevel;
  readonly code?: NoticeCode;
  readonly startedAt?: number;
  readonly endedAt?: number;
  /** A `changes` row: the run it summarises and its files. */
  readonly runId?: string;
  readonly files?: readonly FileChangeView[];
  /** A `!` shell row: its command, exit code, whether it was cancelled or kept out of the model's context. */
  readonly command?: string;
  readonly exitCode?: number;
  readonly cancelled?: boolean;
  readonly excluded?: boolean;
}

export type ToolStatus = 'pending' | 'running' | 'done' | 'error';

/** A tool call's execution, keyed by `toolCallId` alone: parallel calls may share a name. */
export interface ToolCardView {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly args: string;
  readonly status: ToolStatus;
  /** Latest output snapshot while running, the result once done. */
  readonly output: string;
  readonly durationMs?: number;
  readonly startedAt?: number;
  /** The call that made this one (a codemode script's call of another tool): shown inside that card. */
  readonly parentToolCallId?: string;
  /** Calls this one made, in the order they started. */
  readonly children?: readonly string[];
  /** The result's image blocks, once it ended. */
  readonly media?: readonly ImageView[];
}

export interface TranscriptState {
  /**
   * Every row in order. Built on first read and cached: the reducer keeps finished rows in an append-only
   * store and the streaming one apart, so a delta costs the same at 50,000 rows as at none.
   */
  readonly messages: readonly MessageView[];
  /** Keyed by tool-call ids, which the endpoint chooses: a null-prototype object, read with `toolOf`. */
  readonly tools: Readonly<Record<string, ToolCardView>>;
  readonly run: RunState;
  readonly queue: { readonly steering: readonly string[]; readonly followUp: readonly string[] };
  /** Index into `messages` of the assistant message that is streaming, or -1. */
  readonly openIndex: number;
  readonly nextId: number;
  readonly thinkingLevel?: string;
  readonly sessionName?: string;
  /** What Pi's extensions show: open dialogs, widgets, the working message. */
  readonly ui?: ExtensionUiState;
}

/**
 * How a state holds its rows: `store[0..length)` are the rows before the open one (the store is shared
 * between successive states and only ever appended to past `length`), then the open row, then the few rows
 * that arrived while it streamed. Tool cards are kept the same way (see `ToolTable`).
 */
interface Rows {
  readonly store: MessageView[];
  readonly length: number;
  readonly open: MessageView | undefined;
  readonly after: readonly MessageView[];
  readonly tools: ToolTable;
}

/**
 * Tool cards by id. A card that finished rarely changes again, so finished cards go to a shared,
 * append-only index (`order[0..count)` are this state's); running ones, and any later change to a finished
 * one, live in a small map copied on change. Maps, so any id is a key, `__proto__` included.
 */
interface ToolTable {
  readonly index: Map<string, { readonly card: ToolCardView; readonly at: number }>;
  readonly order: string[];
  readonly count: number;
  readonly live: ReadonlyMap<string, ToolCardView>;
}

type Fields = Omit<TranscriptState, 'messages' | 'openIndex' | 'tools'>;

/** Where a state keeps its rows: a non-enumerable symbol, so spreads, snapshots and JSON never carry it. */
const ROWS = Symbol('rows');

function make(fields: Fields, rows: Rows): TranscriptState {
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
function rows(s: TranscriptState): Rows {
  const r = (s as { [ROWS]?: Rows })[ROWS];
  if (r) return r;
  const all = s.messages;
  const open = s.openIndex >= 0 ? all[s.openIndex] : undefined;
  const before = open ? all.slice(0, s.openIndex) : all.slice();
  const built: Rows = { store: before, length: before.length, open, after: open ? all.slice(s.openIndex + 1) : [], tools: toolTableOf(s.tools) };
  // A snapshot may be frozen or shared; remembering its rows is only a speed-up.
  if (Object.isExtensible(s)) Object.defineProperty(s, ROWS, { value: built });
  return built;
}

function fieldsOf(s: TranscriptState): Fields {
  return { run: s.run, queue: s.queue, nextId: s.nextId, thinkingLevel: s.thinkingLevel, sessionName: s.sessionName, ui: s.ui };
}

function withFields(s: TranscriptState, changes: Partial<Fields>): TranscriptState {
  return make({ ...fieldsOf(s), ...changes }, rows(s));
}

/** Appends to a shared store: in place when no later state has appended past `length`, else on a copy. */
function pushed(r: Rows, ...ms: MessageView[]): Pick<Rows, 'store' | 'length'> {
  const store = r.store.length === r.length ? r.store : r.store.slice(0, r.length);
  store.push(...ms);
  return { store, length: r.length + ms.length };
}

const emptyTools = (): ToolTable => ({ index: new Map(), order: [], count: 0, live: new Map() });

function lookup(t: ToolTable, id: string): ToolCardView | undefined {
  const live = t.live.get(id);
  if (live) return live;
  const e = t.index.get(id);
  return e && e.at < t.count ? e.card : undefined;
}

function setTool(t: ToolTable, card: ToolCardView): ToolTable {
  const id = card.toolCallId;
  const finished = card.status === 'done' || card.status === 'error';
  const known = t.index.get(id);
  // A finished card of an id this state has not finished before joins the index (one held only by a
  // later state's entries is not ours: that case continues on a copy below).
  if (finished && !(known && known.at < t.count)) {
    let { index, order } = t;
    if (order.length !== t.count) {
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

function toolTableOf(record: Readonly<Record<string, ToolCardView>>): ToolTable {
  let t = emptyTools();
  for (const id of Object.keys(record)) t = setTool(t, record[id]!);
  return t;
}

/** The tool card of `id` in `state`, without building the whole table (for the projection, per event). */
export function toolCard(state: TranscriptState, id: string): ToolCardView | undefined {
  return lookup(rows(state).tools, id);
}

/** The tool card of `id`, never a member of `Object.prototype` (ids such as `constructor` or `__proto__` are the endpoint's). */
export function toolOf(tools: Readonly<Record<string, ToolCardView>>, id: string): ToolCardView | undefined {
  return Object.prototype.hasOwnProperty.call(tools, id) ? tools[id] : undefined;
}

function withTool(s: TranscriptState, card: ToolCardView): TranscriptState {
  const r = rows(s);
  return make(fieldsOf(s), { ...r, tools: setTool(r.tools, card) });
}

export const initialTranscript: TranscriptState = make(
  { run: initialRunState, queue: { steering: [], followUp: [] }, nextId: 1 },
  { store: [], length: 0, open: undefined, after: [], tools: emptyTools() },
);

/** Applies a batch of wire events in order. */
export function reduce(state: TranscriptState, events: readonly WireEvent[]): TranscriptState {
  let s = state;
  for (const ev of events) s = reduceOne(s, ev);
  return s;
}

export function reduceOne(state: TranscriptState, ev: WireEvent): TranscriptState {
  const run = reduceRun(state.run, ev);
  const s = run === state.run ? state : withFields(state, { run });
  switch (ev.type) {
    case 'userMessage':
      return append(s, {
        id: s.nextId,
        role: 'user',
        blocks: [textBlock(ev.text)],
        final: true,
        images: ev.images || undefined,
        ...(ev.media?.length ? { media: ev.media } : {}),
      });
    case 'noticeMessage':
      return append(s, { id: s.nextId, role: 'notice', blocks: [textBlock(ev.text)], final: true, level: ev.level, code: ev.code });
    case 'assistantStart': {
      // A duplicated start or a lost end must not leave the previous row streaming forever.
      const closed = closeOpen(s, 'error', ev.at);
      const r = rows(closed);
      return make(
        { ...fieldsOf(closed), nextId: closed.nextId + 1 },
        { ...r, open: { id: closed.nextId, role: 'assistant', blocks: [], final: false, startedAt: ev.at } },
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
        return base ? withBlock(m, ev.index, { ...base, final: true, endedAt: ev.at }) : m;
      });
    case 'assistantEnd': {
      const ended = updateOpen(s, (m) => {
        let blocks = m.blocks.slice();
        for (const f of ev.blocks ?? []) blocks[f.index] = { ...applyFinal(blocks[f.index], f), final: true };
        if (ev.blockCount !== undefined) blocks = blocks.slice(0, ev.blockCount);
        blocks = blocks.map((b) => (b && !b.final ? { ...b, final: true, endedAt: b.endedAt ?? ev.at } : b));
        return { ...m, blocks, final: true, stopReason: ev.stopReason, errorMessage: ev.errorMessage, usage: ev.usage, endedAt: ev.at };
      });
      return settle(ended);
    }
    case 'toolStart': {
      const prev = lookup(rows(s).tools, ev.toolCallId);
      const card: ToolCardView = {
        toolCallId: ev.toolCallId,
        toolName: ev.toolName,
        args: ev.args ?? toolCallBlock(s, ev.toolCallId)?.text ?? '',
        status: 'running',
        output: prev?.output ?? '',
        startedAt: ev.at,
        ...(ev.parentToolCallId ? { parentToolCallId: ev.parentToolCallId } : {}),
        ...(prev?.children ? { children: prev.children } : {}),
      };
      const next = withTool(s, card);
      const parent = ev.parentToolCallId !== undefined ? lookup(rows(next).tools, ev.parentToolCallId) : undefined;
      if (!parent || parent.children?.includes(ev.toolCallId)) return next;
      return withTool(next, { ...parent, children: [...(parent.children ?? []), ev.toolCallId] });
    }
    case 'toolUpdate': {
      const card = lookup(rows(s).tools, ev.toolCallId);
      if (!card || card.status !== 'running') return s;
      return withTool(s, { ...card, output: ev.output });
    }
    case 'toolEnd': {
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
      return append(s, {
        id: s.nextId,
        role: 'toolResult',
        blocks: ev.text === undefined ? [] : [textBlock(ev.text)],
        final: true,
        toolCallId: ev.toolCallId,
        toolName: ev.toolName,
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
    case 'reset':
      return make(
        { run: initialTranscript.run, queue: initialTranscript.queue, nextId: 1, thinkingLevel: s.thinkingLevel },
        { store: [], length: 0, open: undefined, after: [], tools: emptyTools() },
      );
    case 'retryStart': {
      const all = s.messages;
      const i = all.findLastIndex((m) => m.role === 'assistant');
      const m = all[i];
      if (!m || m.stopReason !== 'error' || m.retried) return s;
      // Rare (once per retry): rebuilding the rows from a copy keeps the shared store append-only.
      const messages = all.slice();
      messages[i] = { ...m, retried: true };
      return make(fieldsOf(s), { store: messages, length: messages.length, open: undefined, after: [], tools: rows(s).tools });
    }
    case 'changes': {
      const all = s.messages;
      const i = all.findLastIndex((m) => m.role === 'changes' && m.runId === ev.runId);
      const row: MessageView = { id: s.nextId, role: 'changes', blocks: [], final: true, runId: ev.runId, files: ev.files };
      if (i < 0 || s.openIndex >= 0) return append(s, row);
      // An Undo updates its row (rare): rebuilding the rows from a copy keeps the shared store append-only.
      const messages = all.slice();
      messages[i] = { ...row, id: all[i]!.id };
      return make(fieldsOf(s), { store: messages, length: messages.length, open: undefined, after: [], tools: rows(s).tools });
    }
    case 'bashEnd': {
      const ended = ev.id !== undefined ? withFields(s, { ui: reduceShell(s.ui, ev) }) : s;
      return append(ended, {
        id: ended.nextId,
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
  }
}

function textBlock(text: string): BlockView {
  return { kind: 'text', index: 0, text, final: true };
}

function append(s: TranscriptState, m: MessageView): TranscriptState {
  const r = rows(s);
  const fields = { ...fieldsOf(s), nextId: s.nextId + 1 };
  // While a row streams, new rows queue after it (a notice, a result); they join the store when it ends.
  if (r.open) return make(fields, { ...r, after: [...r.after, m] });
  return make(fields, { ...r, ...pushed(r, m) });
}

function updateOpen(s: TranscriptState, f: (m: MessageView) => MessageView): TranscriptState {
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
    blocks: m.blocks.map((b) => (b && !b.final ? { ...b, final: true } : b)),
  }));
  return settle(closed);
}

function withBlock(m: MessageView, index: number, b: BlockView): MessageView {
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
export function openMessage(s: TranscriptState): MessageView | undefined {
  return rows(s).open;
}

/** Rows a snapshot carries at most; the view asks for older ones a page at a time (`loadEarlier`). */
export const SNAPSHOT_ROWS = 200;
/** Most rows one `loadEarlier` may ask for. */
export const MAX_PAGE_ROWS = 1000;

/** The tool cards `messages` show (their tool calls and results), as a null-prototype record. */
function cardsOf(state: TranscriptState, messages: readonly MessageView[]): Record<string, ToolCardView> {
  const t = rows(state).tools;
  const out = Object.create(null) as Record<string, ToolCardView>;
  const add = (id: string | undefined) => {
    const card = id === undefined ? undefined : lookup(t, id);
    if (card) out[card.toolCallId] = card;
  };
  for (const m of messages) {
    add(m.toolCallId);
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

/** Index of the row with id `id` in `messages` (ids ascend in row order), or -1. */
function indexOfId(messages: readonly MessageView[], id: number): number {
  let lo = 0;
  let hi = messages.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = messages[mid]!.id;
    if (at === id) return mid;
    if (at < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
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
  const end = indexOfId(all, before);
  if (end < 0) return undefined;
  const start = Math.max(0, end - count);
  const messages = all.slice(start, end);
  return { messages, tools: cardsOf(state, messages), earlier: start };
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
