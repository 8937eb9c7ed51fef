/**
 * Find in chat: a find box over the conversation that asks the host (the worker searches the whole session) which rows
 * of the whole session hold the text, pages the current match's row in, marks the matches in the rows on
 * screen (`mark[data-find]`) and moves between them with Enter and Shift+Enter.
 */

import type { FindMatch } from '../shared/transcript/find.ts';
import type { HostToWebview, WebviewToHost } from '../shared/wire/webviewProtocol.ts';
import { DirectAction } from './actions.ts';
import { iconButton } from './components.ts';
import { h, setText } from './dom.ts';
import { t } from './l10n.ts';

/** Typing waits this long (ms) for the next key before asking the host. */
const TYPING_MS = 120;

/** What the find box needs of the view: the conversation's element and a way to page older rows in. */
export interface FindTargets {
  readonly conversation: HTMLElement;
  /**
   * Row `id` on screen, brought in as needed (one page, however far: the view asks the host for the rows
   * around it), or undefined; `wanted` turns false once a newer move started.
   */
  reveal(id: number, wanted: () => boolean): Promise<Element | undefined>;
  post(msg: WebviewToHost): void;
}

/** The find box and its search; `el` goes above the conversation. */
export class FindBox {
  readonly el: HTMLElement;
  private readonly _input: HTMLInputElement;
  private readonly _count: HTMLElement;
  private readonly _t: FindTargets;
  private _seq = 0;
  private _query = '';
  private _matches: readonly FindMatch[] = [];
  private _total = 0;
  /** Index of the current match over all matches, oldest first (-1: none). */
  private _current = -1;
  private _timer = 0;
  /** Bumped by each move: a move still paging rows in gives up once a newer one started. */
  private _move = 0;

  constructor(targets: FindTargets) {
    this._t = targets;
    this._input = h('input', { type: 'search', class: 'find-input', 'data-testid': 'find', 'aria-label': t('Find in chat'), placeholder: t('Find') });
    this._count = h('span', { class: 'find-count', 'data-testid': 'find-count', role: 'status', 'aria-live': 'polite' });
    const previous = iconButton('↑', t('Previous match'), DirectAction.FindPrevious);
    const next = iconButton('↓', t('Next match'), DirectAction.FindNext);
    const close = iconButton('×', t('Close find'), DirectAction.FindClose);
    this.el = h('div', { class: 'find-bar', role: 'search', hidden: true }, this._input, this._count, previous, next, close);
    previous.addEventListener('click', () => void this.step(-1));
    next.addEventListener('click', () => void this.step(1));
    close.addEventListener('click', () => this.close());
    this._input.addEventListener('input', () => this._typed());
    this._input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        void this.step(e.shiftKey ? -1 : 1);
      } else if (e.key === 'Escape') {
        // Escape closes the box; it does not cancel the run.
        e.preventDefault();
        e.stopPropagation();
        this.close();
      }
    });
  }

  /** Opens the box with the cursor in it; with `text`, searches for it. */
  open(text?: string): void {
    this.el.hidden = false;
    if (text !== undefined) {
      this._input.value = text;
      this._search();
    }
    this._input.focus();
    this._input.select();
  }

  get isOpen(): boolean {
    return !this.el.hidden;
  }

  close(): void {
    this.el.hidden = true;
    clearTimeout(this._timer);
    this._seq++;
    this._move++;
    this._query = '';
    this._matches = [];
    this._total = 0;
    this._current = -1;
    setText(this._count, '');
    clearMarks(this._t.conversation);
  }

  /** The host's answer: the current match becomes the newest one, paged in and marked. */
  onFound(msg: Extract<HostToWebview, { type: 'found' }>): void {
    if (msg.seq !== this._seq || !Array.isArray(msg.matches)) return;
    this._matches = msg.matches;
    this._total = msg.total;
    this._current = this._total - 1;
    void this._show();
  }

  /** Moves to the next (1) or previous (-1) match, wrapping around. */
  async step(by: 1 | -1): Promise<void> {
    if (!this._total) return;
    this._current = (this._current + by + this._total) % this._total;
    await this._show();
  }

  private _typed(): void {
    clearTimeout(this._timer);
    this._timer = window.setTimeout(() => this._search(), TYPING_MS);
  }

  private _search(): void {
    clearTimeout(this._timer);
    this._query = this._input.value;
    this._matches = [];
    this._total = 0;
    this._current = -1;
    clearMarks(this._t.conversation);
    this._showCount();
    const seq = ++this._seq;
    if (this._query) this._t.post({ type: 'find', query: this._query, seq });
  }

  /** Pages the current match's row in, marks the matches and scrolls the current one into view. */
  private async _show(): Promise<void> {
    const move = ++this._move;
    this._showCount();
    const at = this._locate(this._current);
    if (!at) return;
    const row = await this._reveal(at.id, move);
    if (move !== this._move) return;
    markMatches(this._t.conversation, this._query, this._matches);
    if (!row) return;
    const marks = row.querySelectorAll('mark[data-find]');
    const current = marks[Math.min(at.nth, marks.length - 1)] ?? row;
    if (current.tagName === 'MARK') current.setAttribute('data-find', 'current');
    current.scrollIntoView({ block: 'center' });
  }

  /** The row of match `index` and which of its matches it is. */
  private _locate(index: number): { id: number; nth: number } | undefined {
    let left = index;
    for (const m of this._matches) {
      if (left < m.count) return { id: m.id, nth: left };
      left -= m.count;
    }
    return undefined;
  }

  private _reveal(id: number, move: number): Promise<Element | undefined> {
    return this._t.reveal(id, () => move === this._move);
  }

  private _showCount(): void {
    let text = '';
    if (this._query && this._total === 0) text = t('No results');
    else if (this._total) text = this._current >= 0 ? t('{0} of {1}', this._current + 1, this._total) : t('{0} matches', this._total);
    setText(this._count, text);
  }
}

/** Row `id`'s element in `conversation`, paging older rows in (`pageEarlier`) until it is on screen. */
export async function revealRow(conversation: HTMLElement, id: number, pageEarlier: () => Promise<boolean>): Promise<Element | undefined> {
  for (;;) {
    const row = conversation.querySelector(`[data-msg-id="${id}"]`);
    if (row) return row;
    const first = Number(conversation.querySelector('[data-msg-id]')?.getAttribute('data-msg-id'));
    // Only rows above those shown are paged in; one below is shown already, or gone.
    if (!(id < first) || !(await pageEarlier())) return undefined;
  }
}

/** Rows' parts whose text is not the conversation's (buttons, labels); marks stay out of them. */
const SKIP = 'button, .code-actions, [aria-hidden="true"], script, style, svg, math, mark';

/** Wraps each occurrence of `query` (ignoring case) in the matching rows on screen in `mark[data-find]`. */
function markMatches(root: HTMLElement, query: string, matches: readonly FindMatch[]): void {
  clearMarks(root);
  const needle = query.toLowerCase();
  if (!needle) return;
  for (const m of matches) {
    const row = root.querySelector(`[data-msg-id="${m.id}"]`);
    if (row) markIn(row, needle);
  }
}

function markIn(row: Element, needle: string): void {
  const walker = document.createTreeWalker(row, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => (n.parentElement?.closest(SKIP) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  const texts: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) texts.push(n as Text);
  for (const text of texts) {
    let node = text;
    for (let at = node.data.toLowerCase().indexOf(needle); at !== -1; at = node.data.toLowerCase().indexOf(needle)) {
      const hit = node.splitText(at);
      node = hit.splitText(needle.length);
      const mark = h('mark', { 'data-find': '' });
      hit.replaceWith(mark);
      mark.append(hit);
    }
  }
}

/** Takes every mark out again, leaving the text as it was. */
function clearMarks(root: HTMLElement): void {
  const parents = new Set<Node>();
  for (const mark of Array.from(root.querySelectorAll('mark[data-find]'))) {
    const parent = mark.parentNode;
    if (!parent) continue;
    mark.replaceWith(...Array.from(mark.childNodes));
    parents.add(parent);
  }
  for (const p of parents) p.normalize();
}
