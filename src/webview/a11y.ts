/**
 * Accessibility helpers any part of the view can use: a live region that says a thing once, the text a
 * screen reader should hear for rendered markdown, and keyboard focus kept across re-renders.
 */

import { h } from './dom.ts';

/** A polite live region (visually hidden). Each `say` is announced once; repeating a text announces it again. */
export class Announcer {
  readonly el: HTMLElement;
  private _last = '';

  constructor(id: string) {
    this.el = h('div', { id, class: 'sr-only', role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true' });
  }

  say(text: string): void {
    // Screen readers skip a live region whose text did not change: vary it invisibly.
    const next = text === this._last ? `${text}\u00a0` : text;
    this._last = next;
    this.el.textContent = next;
  }
}

const BLOCK = new Set(['P', 'LI', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'TR', 'PRE', 'BLOCKQUOTE', 'DIV', 'TABLE', 'UL', 'OL', 'HR', 'BR']);

/**
 * What a sighted reader sees in rendered content, as plain text: blocks on their own lines, table cells
 * apart, no markup characters, and no control labels (`.code-actions`, `.sr-only` skipped when asked).
 */
export function spokenText(root: Node, skip = '.code-actions'): string {
  let out = '';
  let pre = 0;
  const walk = (node: Node): void => {
    if (node.nodeType === Node.TEXT_NODE) {
      // Outside <pre>, line breaks in the markup are only spaces, as a browser shows them.
      out += pre ? (node as Text).data : (node as Text).data.replace(/\s+/g, ' ');
      return;
    }
    if (!(node instanceof Element) && node.nodeType !== Node.DOCUMENT_FRAGMENT_NODE) return;
    const el = node instanceof Element ? node : undefined;
    if (el && skip && el.matches(skip)) return;
    const block = el !== undefined && BLOCK.has(el.tagName);
    if (block) out += '\n';
    if (el?.tagName === 'PRE') pre++;
    for (const child of Array.from(node.childNodes)) walk(child);
    if (el?.tagName === 'PRE') pre--;
    if (el && (el.tagName === 'TD' || el.tagName === 'TH')) out += ' ';
    if (block) out += '\n';
  };
  walk(root);
  return out
    .replace(/[ \t\u00a0]+/g, ' ')
    .replace(/ *\n[\s]*/g, '\n')
    .trim();
}

/** Where keyboard focus was before a re-render, described so an equivalent element can be found after it. */
export interface FocusMark {
  readonly el: HTMLElement;
  readonly rowId: string | null;
  readonly blockIndex: string | null;
  readonly selector: string;
  readonly index: number;
  readonly href: string | null;
}

function selectorFor(el: HTMLElement): string {
  const action = el.getAttribute('data-action');
  if (action) return `[data-action="${CSS.escape(action)}"]`;
  if (el.tagName === 'A') return 'a[href]';
  return el.tagName.toLowerCase();
}

function scopeOf(root: Element, rowId: string | null, blockIndex: string | null): Element | null {
  if (rowId === null) return root;
  const row = root.querySelector(`[data-msg-id="${CSS.escape(rowId)}"]`);
  if (!row || blockIndex === null) return row;
  return row.querySelector(`[data-content-index="${CSS.escape(blockIndex)}"]`) ?? row;
}

/** Notes the focused element when it is inside `root` (call before a render that may replace it). */
export function markFocus(root: Element): FocusMark | undefined {
  const el = document.activeElement;
  if (!(el instanceof HTMLElement) || el === root || !root.contains(el)) return undefined;
  const rowId = el.closest('[data-msg-id]')?.getAttribute('data-msg-id') ?? null;
  const blockIndex = el.closest('[data-content-index]')?.getAttribute('data-content-index') ?? null;
  const selector = selectorFor(el);
  const scope = scopeOf(root, rowId, blockIndex);
  const index = scope ? Array.from(scope.querySelectorAll(selector)).indexOf(el) : -1;
  return { el, rowId, blockIndex, selector, index, href: el.getAttribute('href') };
}

/**
 * After a render: when the marked element was replaced and focus fell to the page body, focuses its
 * stand-in (the same link or action at the same place in the same block), else the nearest control there.
 */
export function restoreFocus(root: Element, mark: FocusMark | undefined): void {
  if (!mark) return;
  const active = document.activeElement;
  if (mark.el.isConnected || (active && active !== document.body)) return;
  const scope = scopeOf(root, mark.rowId, mark.blockIndex);
  if (!scope) return;
  const same = Array.from(scope.querySelectorAll<HTMLElement>(mark.selector));
  const target =
    (mark.href !== null ? same.find((e) => e.getAttribute('href') === mark.href) : undefined) ??
    same[Math.min(Math.max(mark.index, 0), same.length - 1)] ??
    scope.querySelector<HTMLElement>('a[href], button:not([hidden]), [tabindex="0"]');
  target?.focus({ preventScroll: true });
}
