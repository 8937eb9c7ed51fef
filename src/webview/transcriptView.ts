/**
 * The transcript renderer. It keeps one row per message id and one part per content block, and on each
 * frame touches only what changed: the reducer keeps unchanged messages, blocks and tool cards
 * identical, so object identity says what to re-render. Older rows are paged: only the newest ones are
 * in the DOM until the user asks for more.
 * One file because the rows and their block parts are made, updated and dropped by the view's one keyed sync
 * (rows by id, tool cards by call id) and call back into it (open state, the card registry, markdown).
 */

import { type BlockView, type MessageView, type NoticeRow, type ToolCardView, type TranscriptState } from '../shared/transcript/rows.ts';
import { changedTools, initialTranscript, rowAt, rowCount, sameRows, sameTools, toolCard } from '../shared/transcript/rowStore.ts';
import { assertNever } from '../shared/exhaustive.ts';
import type { ImageView } from '../shared/images.ts';
import { ConversationAction, type Action } from './actions.ts';
import { renderChanges } from './changesRow.ts';
import { userBody } from './chips.ts';
import { linkifyPaths } from './pathLinks.ts';
import { button, scrollRegion, srOnly } from './components.ts';
import { h, setAttr, setClass, setHidden, setText } from './dom.ts';
import { thoughtFor } from './format.ts';
import { ClipView } from './clip.ts';
import { clipContent, ToolCard } from './toolCard.ts';
import { ToolGroups } from './toolGroups.ts';
import { imageGallery } from './images.ts';
import { shellHeader } from './shellLive.ts';
import { plainBody, type TextBody, type TextBodyFactory } from './textBody.ts';
import { formatNumber, t } from './l10n.ts';

/** Rows rendered at first and added per "show earlier" or "show later". */
export const PAGE_ROWS = 100;
/** While following the bottom, rows beyond this many are dropped from the top again. */
const MAX_FOLLOW_ROWS = 2 * PAGE_ROWS;
/** Most rows in the DOM while the user reads back: newer rows wait below until they scroll down. */
const MAX_WINDOW_ROWS = 4 * PAGE_ROWS;
/** Rows the state keeps above the rendered ones; older ones go back to the host (`loadEarlier` pages them in again). */
const KEEP_ABOVE_ROWS = PAGE_ROWS;

/** UI state the renderer reads and writes: which blocks the user opened or closed. */
export interface ViewUi {
  isOpen(key: string): boolean | undefined;
  /** The session's folder (file paths on cards are relative to it). */
  cwd?(): string | undefined;
  setOpen(key: string, open: boolean): void;
}

interface BlockPart {
  readonly el: HTMLElement;
  update(b: BlockView, m: MessageView): void;
  /** Re-renders after a UI toggle. */
  refresh(): void;
  dispose(): void;
}

export class TranscriptView {
  /** The `[data-testid="transcript"]` root. */
  readonly el: HTMLElement;
  /** "Show earlier messages", placed by the owner above the root. */
  readonly earlier: HTMLButtonElement;
  readonly ui: ViewUi;
  readonly markdown: TextBodyFactory;
  /** The state rendered last (its rows and cards are read in place, never as a whole list). */
  private _state: TranscriptState = initialTranscript;
  /** Fold thinking once the answer starts (the user's setting; their click on a block wins). */
  collapseThinking = true;
  private readonly _rows = new Map<number, MessageRow>();
  private readonly _cards = new Map<string, Set<ToolCallPart>>();
  private readonly _groups = new ToolGroups();
  /** Rows of the state rendered last, and the id of its first. */
  private _count = 0;
  private _firstId: number | undefined;
  /** The rendered rows are `[_first, _last)` of the state's. */
  private _first = 0;
  private _last = 0;
  private _gen = 0;
  /** Rows before the first one the state holds, still on the host (`loadEarlier` fetches them). */
  remote = 0;
  /** Set by `expectPrepend`: the next state's new first rows were paged in, not a different transcript. */
  private _prepending = false;

  constructor(ui: ViewUi, markdown: TextBodyFactory) {
    this.ui = ui;
    this.markdown = markdown;
    this.el = h('div', { 'data-testid': 'transcript', class: 'transcript', role: 'log', 'aria-live': 'off', 'aria-label': t('Conversation') });
    this.earlier = button('', ConversationAction.LoadEarlier, 'link', { class: 'btn btn-link load-earlier' });
    this.earlier.hidden = true;
  }

  /** Index of the first rendered message. */
  get first(): number {
    return this._first;
  }

  /** Whether newer rows than those rendered wait below (the user reads back while Pi works). */
  get hasLater(): boolean {
    return this._last < this._count || this.gapBelow;
  }

  /** Index just past the last rendered row of the state. */
  get last(): number {
    return this._last;
  }

  /** Rows of the state below those rendered. */
  get laterRows(): number {
    return this._count - this._last;
  }

  /**
   * Set while the state rendered is the part the user reads, kept apart from the newest rows (see ChatApp):
   * more rows follow it that it does not hold.
   */
  gapBelow = false;

  /** The state now ends earlier (the rows past it are held apart): same rows on screen, nothing re-rendered. */
  cut(state: TranscriptState): void {
    this._state = state;
    this._count = rowCount(state);
  }

  /** The tool card of `id` in the state rendered last. */
  toolOf(id: string): ToolCardView | undefined {
    return toolCard(this._state, id);
  }

  render(state: TranscriptState, following: boolean): void {
    const prev = this._state;
    this._state = state;
    const rowsChanged = !sameRows(prev, state);
    if (rowsChanged || (following && this._last < this._count)) {
      const count = rowCount(state);
      const firstId = rowAt(state, 0)?.id;
      const grown = count - this._count;
      if (this._prepending) {
        // The rows paged in go above those on screen, all shown: the first shown row keeps its index.
        this._prepending = false;
        this._last += grown;
      } else if (count < this._count || (count > 0 && this._count > 0 && firstId !== this._firstId) || this._count === 0) {
        // A reset, a different session or the first rows: page from the end again.
        this._first = Math.max(0, count - PAGE_ROWS);
        this._last = count;
      } else if (following) {
        this._last = count;
        if (count - this._first > MAX_FOLLOW_ROWS) this._first = count - PAGE_ROWS;
      } else if (this._last === this._count && count - this._first <= MAX_WINDOW_ROWS) {
        // Read back a little: new rows still join below until the window is full.
        this._last = count;
      }
      this._count = count;
      this._firstId = firstId;
      if (this._last - this._first > MAX_WINDOW_ROWS) this._last = this._first + MAX_WINDOW_ROWS;
      this._sync();
    }
    if (!sameTools(prev, state)) {
      const changed = changedTools(prev, state);
      if (changed) {
        for (const card of changed) {
          const parts = this._cards.get(card.toolCallId);
          if (parts) for (const p of parts) p.updateTool(card);
          // A nested call lives inside its parent's card.
          if (card.parentToolCallId !== undefined) for (const p of this._cards.get(card.parentToolCallId) ?? []) p.updateChildren();
        }
      } else {
        // Any card may have changed (a snapshot, a page): the drawn ones are brought up to date.
        for (const [id, parts] of this._cards) {
          const card = toolCard(state, id);
          for (const p of parts) {
            if (card) p.updateTool(card);
            p.updateChildren();
          }
        }
      }
    }
    if (rowsChanged || !sameTools(prev, state)) this._regroup();
  }

  /** Folds runs of read-only calls among the rendered rows (a status change or a new row may start or end one). */
  private _regroup(): void {
    const state = this._state;
    const rows = this._rows;
    const first = this._first;
    const last = this._last;
    this._groups.update(
      (function* () {
        for (let i = first; i < last; i++) {
          const m = rowAt(state, i);
          const row = m && rows.get(m.id);
          if (m && row) yield { message: m, el: row.el };
        }
      })(),
      (id) => toolCard(state, id),
    );
  }

  /** How many of the state's first rows are neither rendered nor near: the owner may give them back to the host. */
  get spareRows(): number {
    return this._first > 2 * KEEP_ABOVE_ROWS ? this._first - KEEP_ABOVE_ROWS : 0;
  }

  /** The state lost its first `n` rows (given back to the host, `remote` counts them): same rows on screen. */
  dropped(state: TranscriptState, n: number): void {
    this._first -= n;
    this._last -= n;
    this._count = rowCount(state);
    this._firstId = rowAt(state, 0)?.id;
    this.remote += n;
  }

  /** Renders `count` more older rows; returns how many were added. Newer ones go if the window is full. */
  showEarlier(count = PAGE_ROWS): number {
    const before = this._first;
    this._first = Math.max(0, this._first - count);
    if (this._last - this._first > MAX_WINDOW_ROWS) this._last = this._first + MAX_WINDOW_ROWS;
    if (this._first !== before) {
      this._sync();
      this._regroup();
    }
    return before - this._first;
  }

  /** Renders `count` more newer rows (the user scrolled down while reading back); older ones go if the window is full. */
  showLater(count = PAGE_ROWS): number {
    const before = this._last;
    this._last = Math.min(this._count, this._last + count);
    if (this._last - this._first > MAX_WINDOW_ROWS) this._first = this._last - MAX_WINDOW_ROWS;
    if (this._last !== before) {
      this._sync();
      this._regroup();
    }
    return this._last - before;
  }

  /** The next `render` gets a state with older rows put before these (a `loadEarlier` reply): they are shown, nothing is dropped. */
  expectPrepend(): void {
    this._prepending = this._first === 0;
  }

  /** Re-renders the block or card a toggle belongs to. */
  refreshPart(el: Element): void {
    const blockEl = el.closest('[data-block]');
    const rowEl = el.closest('[data-msg-id]');
    if (!rowEl) return;
    const row = this._rows.get(Number(rowEl.getAttribute('data-msg-id')));
    if (!row) return;
    if (blockEl) row.partFor(blockEl)?.refresh();
    else row.refresh();
  }

  registerCard(id: string, part: ToolCallPart): void {
    let set = this._cards.get(id);
    if (!set) this._cards.set(id, (set = new Set()));
    set.add(part);
  }

  unregisterCard(id: string, part: ToolCallPart): void {
    const set = this._cards.get(id);
    if (!set) return;
    set.delete(part);
    if (!set.size) this._cards.delete(id);
  }

  /** Brings the DOM to rows `[_first, _last)`: only those are read, so a frame costs the same at any length. */
  private _sync(): void {
    const gen = ++this._gen;
    const state = this._state;
    let cursor: ChildNode | null = this.el.firstChild;
    for (let i = this._first; i < this._last; i++) {
      const m = rowAt(state, i)!;
      let row = this._rows.get(m.id);
      if (row && row.role !== m.role) {
        // The same id is another kind of row now (a replayed history numbers its rows afresh): the old one goes,
        // and the place to insert at moves past it first.
        if (row.el === cursor) cursor = cursor.nextSibling;
        row.dispose();
        row.el.remove();
        this._rows.delete(m.id);
        row = undefined;
      }
      if (!row) {
        row = new MessageRow(m, this);
        this._rows.set(m.id, row);
      } else if (row.message !== m) row.update(m);
      row.gen = gen;
      if (row.el !== cursor) this.el.insertBefore(row.el, cursor);
      else cursor = cursor.nextSibling;
    }
    if (this._rows.size > this._last - this._first) {
      for (const [id, row] of this._rows) {
        if (row.gen === gen) continue;
        row.dispose();
        row.el.remove();
        this._rows.delete(id);
      }
    }
    const hiddenCount = this._first + this.remote;
    setHidden(this.earlier, hiddenCount === 0);
    if (hiddenCount) setText(this.earlier, t('Show {0} earlier messages ({1} not shown)', Math.min(PAGE_ROWS, hiddenCount), hiddenCount));
  }
}

/**
 * An icon button of a row's toolbar: the icon is decorative, drawn by the stylesheet (a mask per action in
 * chat.css, so the transcript holds no SVG markup); the label is its name, the tooltip says more.
 */
function rowAction(label: string, action: Action, tooltip: string): HTMLButtonElement {
  return h(
    'button',
    { type: 'button', class: 'btn btn-icon row-action', 'data-action': action, 'aria-label': label, title: `${label}: ${tooltip}` },
    h('span', { class: 'row-action-icon', 'aria-hidden': 'true' }),
  );
}

/**
 * "Edit and resend", "Fork from here" and "Restore" on a user row, as VS Code's chat shows its request actions: icon
 * buttons that appear on hover and keyboard focus (always in the tab order); clickRouter.ts handles clicks.
 */
function userActions(): HTMLElement {
  return h(
    'div',
    { class: 'row-actions', role: 'toolbar', 'aria-label': t('Message actions') },
    rowAction(t('Edit and resend'), ConversationAction.EditResend, t('Rewind to this message and edit it; the old branch stays in Branches')),
    rowAction(t('Fork from here'), ConversationAction.ForkHere, t('Start a new session with the conversation up to here')),
    rowAction(t('Restore'), ConversationAction.Restore, t('Go back to before this message: the code (its checkpoint), the conversation, or both')),
  );
}

const ROLE_LABEL: Record<MessageView['role'], string> = {
  user: t('You'),
  assistant: t('Pi'),
  toolResult: t('Tool result'),
  notice: t('Notice'),
  changes: t('Changes'),
  bash: t('Shell'),
};

/** The images a row shows (a user message's, a tool result's). */
function mediaOf(m: MessageView | undefined): readonly ImageView[] | undefined {
  return m?.role === 'user' || m?.role === 'toolResult' ? m.media : undefined;
}

class MessageRow {
  readonly el: HTMLElement;
  readonly role: MessageView['role'];
  message: MessageView;
  gen = 0;
  private readonly _view: TranscriptView;
  private readonly _blocksEl: HTMLElement;
  private readonly _parts = new Map<number, BlockPart>();
  private _footer: HTMLElement | undefined;
  private _footerKey = '';
  private _gallery: HTMLElement | undefined;
  private _actionsKey = '';

  constructor(m: MessageView, view: TranscriptView) {
    this._view = view;
    this.role = m.role;
    this.message = m;
    this._blocksEl = h('div', { class: 'blocks' });
    this.el = h('div', { class: `row row-${m.role}`, 'data-role': m.role, 'data-msg-id': m.id }, srOnly(`${ROLE_LABEL[m.role]}: `), this._blocksEl);
    switch (m.role) {
      case 'notice':
        if (m.level) this.el.classList.add(`notice-${m.level}`);
        // An extension's message, as the CLI shows it: its type in brackets above the Markdown.
        if (m.label) this.el.insertBefore(h('div', { class: 'notice-label' }, `[${m.label}]`), this._blocksEl);
        setAttr(this.el, 'data-custom-type', m.label);
        break;
      case 'changes':
        this.el.setAttribute('data-testid', 'changes');
        if (m.runId) this.el.setAttribute('data-run-id', m.runId);
        break;
      case 'bash':
        this.el.insertBefore(shellHeader(m.command, m.excluded), this._blocksEl);
        break;
      case 'user':
        this.el.append(userActions());
        break;
      case 'assistant':
      case 'toolResult':
        break;
      default:
        assertNever(m, 'row');
    }
    this._render(m, undefined);
  }

  update(m: MessageView): void {
    const prev = this.message;
    this.message = m;
    this._render(m, prev);
  }

  refresh(): void {
    this._footerKey = '';
    this._render(this.message, this.message);
  }

  partFor(el: Element): BlockPart | undefined {
    const index = Number(el.getAttribute('data-content-index'));
    const part = this._parts.get(index);
    return part?.el === el ? part : undefined;
  }

  dispose(): void {
    for (const p of this._parts.values()) p.dispose();
    this._parts.clear();
  }

  private _render(m: MessageView, prev: MessageView | undefined): void {
    switch (m.role) {
      case 'assistant':
        setAttr(this.el, 'data-stop-reason', m.final ? (m.stopReason ?? 'stop') : undefined);
        break;
      case 'toolResult':
        // The card shows the output; a result row only shows text (or images) that differ from it.
        setClass(this.el, 'folded', m.blocks.length === 0 && !m.media?.length);
        // Not `data-tool-call-id`: that names the card, and selectors for it must match one element.
        setAttr(this.el, 'data-result-for', m.toolCallId);
        setClass(this.el, 'is-error', m.isError === true);
        break;
      case 'changes':
        if (prev?.role !== 'changes' || prev.files !== m.files) renderChanges(this._blocksEl, m.files);
        return;
      case 'bash':
        setAttr(this.el, 'data-status', m.cancelled || (m.exitCode ?? 0) !== 0 ? 'error' : 'done');
        setAttr(this.el, 'data-excluded', m.excluded ? 'true' : undefined);
        setAttr(this.el, 'data-exit-code', m.exitCode);
        break;
      case 'user':
        // Restores and tree moves name the message by its session entry: until Pi has written it, there is none.
        if (prev?.role !== 'user' || prev.entryId !== m.entryId) {
          setAttr(this.el, 'data-entry-id', m.entryId);
          for (const b of this.el.querySelectorAll<HTMLButtonElement>('.row-actions button')) b.disabled = m.entryId === undefined;
        }
        break;
      case 'notice':
        break;
      default:
        assertNever(m, 'row');
    }
    if (!prev || prev.blocks !== m.blocks) this._renderBlocks(m);
    else if (m.role === 'assistant' && prev.final !== m.final) this._renderBlocks(m);
    if (mediaOf(prev) !== mediaOf(m)) this._renderMedia(m);
    this._renderFooter(m);
    if (m.role === 'notice') this._renderNoticeActions(m);
  }

  private _renderBlocks(m: MessageView): void {
    const blocks = m.blocks;
    for (const [index, part] of this._parts) {
      if (index >= blocks.length || !blocks[index]) {
        part.dispose();
        part.el.remove();
        this._parts.delete(index);
      }
    }
    let next: Element | null = null;
    // Walk backwards so each new part can be inserted before the following one.
    for (let i = blocks.length - 1; i >= 0; i--) {
      const b = blocks[i];
      if (!b) continue;
      let part = this._parts.get(i);
      if (part && part.el.getAttribute('data-block') !== b.kind) {
        part.dispose();
        part.el.remove();
        this._parts.delete(i);
        part = undefined;
      }
      if (!part) {
        part = this._createPart(b, m);
        this._parts.set(i, part);
        this._blocksEl.insertBefore(part.el, next);
      } else {
        part.update(b, m);
        if (part.el.nextElementSibling !== next) this._blocksEl.insertBefore(part.el, next);
      }
      next = part.el;
    }
  }

  private _createPart(b: BlockView, m: MessageView): BlockPart {
    let part: BlockPart;
    if (b.kind === 'thinking') part = new ThinkingPart(this._view);
    else if (b.kind === 'toolCall') part = new ToolCallPart(this._view);
    else if (m.role === 'toolResult') part = new ResultPart(this._view);
    else
      part = new TextPart(m.role === 'assistant' || (m.role === 'notice' && m.markdown) ? this._view.markdown() : m.role === 'user' ? userBody() : plainBody());
    part.el.setAttribute('data-block', b.kind);
    part.el.setAttribute('data-content-index', String(b.index));
    part.update(b, m);
    return part;
  }

  /** A user message's or tool result's images, below its text. */
  private _renderMedia(m: MessageView): void {
    this._gallery?.remove();
    const media = mediaOf(m);
    this._gallery = media?.length ? imageGallery(media, m.role === 'user' ? t('Your') : t('Tool result')) : undefined;
    if (this._gallery) this._blocksEl.after(this._gallery);
  }

  private _renderFooter(m: MessageView): void {
    if (m.role !== 'assistant') return;
    const key = m.final ? `${m.stopReason}\u0000${m.retried === true}\u0000${m.errorMessage ?? ''}\u0000${m.usage ? JSON.stringify(m.usage) : ''}` : '';
    if (key === this._footerKey) return;
    this._footerKey = key;
    if (!m.final) {
      this._footer?.remove();
      this._footer = undefined;
      return;
    }
    const nodes: Node[] = [];
    switch (m.stopReason) {
      case 'aborted':
        nodes.push(h('span', { class: 'marker marker-cancelled' }, t('Cancelled')));
        break;
      case 'error':
        // An attempt Pi retried is not the run's outcome; it stays visible, but quieter.
        nodes.push(
          m.retried ? h('span', { class: 'marker marker-warning' }, t('Attempt failed, retried')) : h('span', { class: 'marker marker-error' }, t('Error')),
          h('span', { class: m.retried ? 'error-message retried' : 'error-message' }, m.errorMessage ?? t('The provider returned an error.')),
        );
        break;
      case 'length':
        nodes.push(h('span', { class: 'marker marker-warning' }, t('Stopped: the reply reached the output length limit')));
        break;
      default:
        break;
    }
    if (m.usage && (m.usage.input || m.usage.output)) {
      const u = m.usage;
      const cost = u.cost ? ` · $${u.cost.toFixed(4)}` : '';
      const costTitle = !u.cost ? undefined : u.billed ? t('The cost the provider billed') : t("The cost estimated from the model's prices");
      nodes.push(
        h(
          'span',
          { class: 'usage', title: costTitle, 'data-cost': u.cost ? (u.billed ? 'billed' : 'estimated') : undefined },
          t('{0} in · {1} out', formatNumber(u.input), formatNumber(u.output)) + cost,
        ),
      );
    }
    if (!this._footer) {
      this._footer = h('div', { class: 'row-footer' });
      this.el.append(this._footer);
    }
    this._footer.replaceChildren(...nodes);
    setHidden(this._footer, nodes.length === 0);
  }

  private _renderNoticeActions(m: NoticeRow): void {
    const key = m.code ?? '';
    if (key === this._actionsKey) return;
    this._actionsKey = key;
    const actions: HTMLElement[] = [];
    if (m.code === 'settleTimeout') actions.push(button(t('Force idle'), ConversationAction.ForceIdle, 'secondary'));
    // Force idle on a stopped or silent worker starts a fresh one.
    if (m.code === 'workerStopped') actions.push(button(t('Restart'), ConversationAction.ForceIdle, 'secondary'));
    if (m.code === 'interrupted') actions.push(button(t('Continue'), ConversationAction.ContinueInterrupted, 'secondary'));
    if (m.code === 'noKey') actions.push(button(t('Replace key'), ConversationAction.ReplaceKey, 'primary'));
    if (m.code === 'providerError' || m.code === 'promptFailed') actions.push(button(t('Retry'), ConversationAction.RetryLast, 'secondary'));
    if (m.code === 'restored') actions.push(button(t('Undo restore'), ConversationAction.UndoRestore, 'secondary'));
    if (m.code === 'noModel' || m.code === 'noKey' || m.code === 'promptFailed' || m.code === 'sessionFailed')
      actions.push(button(t('Show Log'), ConversationAction.ShowLog, 'secondary'));
    if (actions.length) this.el.append(h('div', { class: 'notice-actions' }, ...actions));
  }
}

class TextPart implements BlockPart {
  readonly el: HTMLElement;
  private readonly _body: TextBody;
  private _block: BlockView | undefined;

  constructor(body: TextBody) {
    this._body = body;
    this.el = h('div', { class: 'block block-text' }, body.el);
  }

  update(b: BlockView): void {
    if (b === this._block) return;
    this._block = b;
    this._body.update(b.text, b.final);
    if (b.final) linkifyPaths(this._body.el);
  }

  refresh(): void {}
  dispose(): void {}
}

/** A tool result whose text differs from its card's output (or has no card): shown clipped. */
class ResultPart implements BlockPart {
  readonly el: HTMLElement;
  private readonly _view: TranscriptView;
  private readonly _clip: ClipView;
  private _block: BlockView | undefined;
  private _key = '';
  private _row: MessageView | undefined;

  constructor(view: TranscriptView) {
    this._view = view;
    this._clip = new ClipView('tool-output-text', ConversationAction.ResultShowAll);
    this.el = h('div', { class: 'block block-result' }, this._clip.el);
  }

  update(b: BlockView, m: MessageView): void {
    this._block = b;
    this._row = m;
    const all = this._view.ui.isOpen(`result:${m.id}`) === true;
    const key = `${all}\u0000${b.text}`;
    if (key === this._key) return;
    this._key = key;
    this._clip.show(clipContent(b.text, 30, 6000), all, true);
  }

  refresh(): void {
    if (this._block && this._row) {
      this._key = '';
      this.update(this._block, this._row);
    }
  }

  dispose(): void {}
}

class ThinkingPart implements BlockPart {
  readonly el: HTMLElement;
  private readonly _view: TranscriptView;
  private readonly _toggle: HTMLButtonElement;
  private readonly _label: HTMLElement;
  private readonly _body: HTMLElement;
  private _block: BlockView | undefined;
  private _message: MessageView | undefined;

  constructor(view: TranscriptView) {
    this._view = view;
    this._label = h('span', { class: 'thinking-label' });
    this._toggle = h(
      'button',
      { type: 'button', class: 'thinking-toggle', 'data-action': ConversationAction.ToggleBlock, 'aria-expanded': 'true' },
      h('span', { class: 'chevron', 'aria-hidden': 'true' }),
      this._label,
    );
    this._body = scrollRegion(h('div', { class: 'thinking-body' }), t('Thinking'));
    this.el = h('div', { class: 'block block-thinking' }, this._toggle, this._body);
  }

  get key(): string {
    return `${this._message?.id}:${this._block?.index}`;
  }

  update(b: BlockView, m: MessageView): void {
    this._block = b;
    this._message = m;
    // Collapsed by default once the answer (any later block) has started; the user's choice wins.
    const answerStarted = m.blocks.length > b.index + 1;
    const open = this._view.ui.isOpen(this.key) ?? !(answerStarted && this._view.collapseThinking);
    setAttr(this._toggle, 'aria-expanded', open ? 'true' : 'false');
    setHidden(this._body, !open);
    setClass(this.el, 'streaming', !b.final);
    setText(this._label, b.final ? thoughtFor(b.startedAt, b.endedAt) : t('Thinking…'));
    setText(this._body, b.text);
  }

  refresh(): void {
    if (this._block && this._message) this.update(this._block, this._message);
  }

  dispose(): void {}
}

class ToolCallPart implements BlockPart {
  readonly el: HTMLElement;
  private readonly _view: TranscriptView;
  private readonly _card: ToolCard;
  private _block: BlockView | undefined;
  private _id: string | undefined;

  constructor(view: TranscriptView) {
    this._view = view;
    this._card = new ToolCard(view.ui, (id) => view.toolOf(id));
    this.el = h('div', { class: 'block block-tool' }, this._card.el);
  }

  update(b: BlockView): void {
    this._block = b;
    if (b.toolCallId !== this._id) {
      if (this._id !== undefined) this._view.unregisterCard(this._id, this);
      this._id = b.toolCallId;
      if (this._id !== undefined) this._view.registerCard(this._id, this);
    }
    this._card.update(b, this._id !== undefined ? this._view.toolOf(this._id) : undefined);
  }

  updateTool(card: ToolCardView): void {
    this._card.update(this._block, card);
  }

  updateChildren(): void {
    this._card.updateChildren();
  }

  refresh(): void {
    this._card.refresh();
  }

  dispose(): void {
    if (this._id !== undefined) this._view.unregisterCard(this._id, this);
  }
}
