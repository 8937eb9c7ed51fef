/**
 * A saved picture of the rows on screen, kept in the webview's own state so that a view hidden and shown again (its
 * page is gone: the hidden webview is not kept alive) draws the last reply at once, before the host's snapshot
 * arrives; the live rows replace it when they are drawn. The picture is text and class names only, rebuilt from a
 * small tree with an allow-list of tags: no attribute, link, image, handler or hook (`data-*`) survives, and it is
 * inert and hidden from assistive technology, so nothing in it can be clicked, focused or found by a test.
 */

import { MAX_PICTURE_ROWS, PICTURE_CLASS, PICTURE_DEPTH, PICTURE_ID, PICTURE_TAGS as KEEP, type SavedNode } from '../shared/savedPicture.ts';
import { h } from './dom.ts';

// Tags kept as they are (KEEP) are shared with the host, which draws the picture into a re-created page; a link
// or a button becomes a span (AS_SPAN), anything else not listed is left out.
const AS_SPAN = new Set(['a', 'button', 'mark', 'summary', 'label']);
/** Characters of text a picture keeps: the newest rows, enough to fill a tall view. */
const MAX_CHARS = 40_000;
const CLASS = PICTURE_CLASS;

/** The rows of `transcript` from the first one on screen in `scroller` to the last, as a picture (newest rows first in the budget). */
export function captureRows(scroller: HTMLElement, transcript: HTMLElement): SavedNode[] {
  const top = scroller.getBoundingClientRect().top;
  const rows: SavedNode[] = [];
  const budget = { chars: MAX_CHARS };
  for (let row = transcript.lastElementChild; row && rows.length < MAX_PICTURE_ROWS && budget.chars > 0; row = row.previousElementSibling) {
    const node = toNode(row, budget);
    if (node !== undefined) rows.push(node);
    if (row.getBoundingClientRect().top <= top) break;
  }
  return rows.reverse();
}

function toNode(node: Node, budget: { chars: number }): SavedNode | undefined {
  if (node.nodeType === Node.TEXT_NODE) {
    const text = (node.textContent ?? '').slice(0, Math.max(0, budget.chars));
    budget.chars -= text.length;
    return text || undefined;
  }
  if (!(node instanceof HTMLElement) || budget.chars <= 0) return undefined;
  const name = node.tagName.toLowerCase();
  const tag = KEEP.has(name) ? name : AS_SPAN.has(name) ? 'span' : undefined;
  // What the reader does not see now is not in the picture (folded groups, screen-reader text, hidden parts).
  if (!tag || node.hidden || node.classList.contains('sr-only') || !node.checkVisibility()) return undefined;
  const children: SavedNode[] = [];
  for (const child of node.childNodes) {
    const c = toNode(child, budget);
    if (c !== undefined) children.push(c);
  }
  const cls = typeof node.className === 'string' && CLASS.test(node.className) ? node.className : '';
  return [tag, cls, ...children];
}

/** Builds a saved picture (from the page's state: checked, never parsed as HTML); undefined when there is none. */
function drawSaved(saved: unknown): HTMLElement | undefined {
  if (!Array.isArray(saved) || saved.length === 0) return undefined;
  const el = h('div', { class: 'saved-render transcript', 'aria-hidden': 'true', inert: true });
  for (const row of saved) {
    const node = build(row, 0);
    if (node) el.append(node);
  }
  return el.childNodes.length ? el : undefined;
}

function build(node: unknown, depth: number): Node | undefined {
  if (typeof node === 'string') return document.createTextNode(node);
  if (!Array.isArray(node) || depth > PICTURE_DEPTH) return undefined;
  const [tag, cls, ...children] = node as unknown[];
  if (typeof tag !== 'string' || !KEEP.has(tag)) return undefined;
  const el = document.createElement(tag);
  if (typeof cls === 'string' && cls && CLASS.test(cls)) el.className = cls;
  for (const child of children) {
    const c = build(child, depth + 1);
    if (c) el.append(c);
  }
  return el;
}

/** The view's saved picture: drawn at start from the saved state, removed by the first live render, then kept up to date. */
export class SavedPicture {
  /** The picture drawn at start, until the live rows replace it. */
  readonly el: HTMLElement | undefined;
  private _rows: unknown;
  private _live = false;
  private _timer: ReturnType<typeof setTimeout> | undefined;
  private readonly _capture: () => SavedNode[];
  private readonly _save: (rows: SavedNode[]) => void;

  /** `saved`: the picture the page's state kept; `capture`: the rows on screen now; `save`: keep a new picture (the UI state, the host). */
  constructor(saved: unknown, capture: () => SavedNode[], save: (rows: SavedNode[]) => void) {
    this._rows = saved;
    this._capture = capture;
    this._save = save;
    // The host drew the picture into the page, so it painted before this script loaded: it is taken over as it is.
    const drawn = document.getElementById(PICTURE_ID);
    drawn?.removeAttribute('id');
    this.el = drawn ?? drawSaved(saved);
  }

  /** The picture to keep in the page's state. */
  get rows(): unknown {
    return this._rows;
  }

  /** The host's snapshot arrived: the next render draws the live rows. */
  goLive(): void {
    this._live = true;
  }

  /** After each render: the first live one takes the picture away; later ones take a new one, at most once a second. */
  rendered(): void {
    if (!this._live) return;
    if (this.el?.isConnected) this.el.remove();
    // Not every frame: a picture walks the rows on screen, and a reply streams many frames a second.
    this._timer ??= setTimeout(() => {
      this._timer = undefined;
      const rows = this._capture();
      this._rows = rows;
      this._save(rows);
    }, 1000);
  }
}
