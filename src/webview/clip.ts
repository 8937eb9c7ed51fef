/**
 * Long text shown cheaply: a `<pre>` with the clipped text and a Show all / Show less toggle. Show all
 * fills the pre in pieces, a bounded number of characters per frame, so a megabyte of tool arguments
 * never blocks a frame. The toggle stays in place (and keeps focus) in both states.
 */

import type { Action } from './actions.ts';
import { button, scrollRegion } from './components.ts';
import { h, setAttr, setHidden, setText } from './dom.ts';
import { linkifyTextPaths } from './pathLinks.ts';
import { formatNumber, t } from './l10n.ts';

/** Characters appended to an expanding pre per frame. */
const FILL_CHARS_PER_FRAME = 64_000;

export interface ClipContent {
  /** The clipped text, shown while closed. */
  readonly text: string;
  /** Whether `text` leaves something out (otherwise there is no toggle). */
  readonly clipped: boolean;
  /** Lines of the whole text, for the toggle's label, when known cheaply. */
  readonly totalLines?: number;
  /** Which end `text` keeps ("head" clips the end away, "tail" the start), shown as `data-clipped`. */
  readonly keep?: 'head' | 'tail';
  /** The whole text, in pieces, produced only when the user opens it. */
  readonly all: () => Iterable<string>;
}

/** What a screen reader calls each kind of clipped text. */
const REGION_LABELS: Readonly<Record<string, string>> = {
  'tool-output-text': t('Tool output'),
  'tool-args-raw': t('Arguments'),
  'tool-args-json': t('Arguments'),
  'tool-file-content': t('File content'),
};

export class ClipView {
  readonly el: HTMLElement;
  readonly pre: HTMLElement;
  readonly toggle: HTMLButtonElement;
  private _job = 0;

  constructor(preClass: string, action: Action, wrapperClass = 'clip') {
    // A region the keyboard can reach and scroll, named for screen readers.
    this.pre = scrollRegion(h('pre', { class: preClass }), REGION_LABELS[preClass] ?? t('Tool text'));
    this.toggle = button(t('Show all'), action, 'link', { 'aria-expanded': 'false' });
    this.el = h('div', { class: wrapperClass }, this.pre, this.toggle);
  }

  /** Shows `content`; `links` turns workspace paths in it into links (finished output only: it rescans the text). */
  show(content: ClipContent, open: boolean, links = false): void {
    const job = ++this._job;
    setHidden(this.toggle, !content.clipped);
    setAttr(this.toggle, 'aria-expanded', open && content.clipped ? 'true' : 'false');
    if (!content.clipped || !open) {
      setText(this.pre, content.text);
      setAttr(this.pre, 'data-clipped', content.clipped ? (content.keep === 'tail' ? 'head' : 'tail') : undefined);
      if (content.clipped) setText(this.toggle, content.totalLines ? t('Show all ({0} lines)', formatNumber(content.totalLines)) : t('Show all'));
      if (links) linkifyTextPaths(this.pre);
      return;
    }
    setText(this.toggle, t('Show less'));
    setAttr(this.pre, 'data-clipped', undefined);
    setAttr(this.pre, 'aria-busy', 'true');
    this.pre.replaceChildren();
    const pieces = content.all()[Symbol.iterator]();
    let pending = '';
    // One text node per frame: appending to one growing node would copy all of it each time.
    const step = (): void => {
      if (job !== this._job) return;
      const parts: string[] = [];
      let budget = FILL_CHARS_PER_FRAME;
      let done = false;
      while (budget > 0) {
        if (!pending) {
          const next = pieces.next();
          if (next.done) {
            done = true;
            break;
          }
          pending = next.value;
        }
        const part = pending.slice(0, budget);
        pending = pending.slice(part.length);
        parts.push(part);
        budget -= part.length;
      }
      if (parts.length) this.pre.append(parts.join(''));
      if (done) {
        setAttr(this.pre, 'aria-busy', undefined);
        if (links) linkifyTextPaths(this.pre);
      } else requestAnimationFrame(step);
    };
    step();
  }
}

/** JSON.stringify(value, null, 2), line by line, so the head of a huge value costs only its head. */
export function* prettyJson(value: unknown, indent = '', prefix = '', suffix = ''): Generator<string> {
  if (Array.isArray(value) || (typeof value === 'object' && value !== null)) {
    const entries: [string, unknown][] = Array.isArray(value) ? value.map((v) => ['', v]) : Object.entries(value);
    const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
    if (!entries.length) {
      yield `${indent}${prefix}${open}${close}${suffix}\n`;
      return;
    }
    yield `${indent}${prefix}${open}\n`;
    const inner = `${indent}  `;
    for (let i = 0; i < entries.length; i++) {
      const [key, v] = entries[i]!;
      yield* prettyJson(v, inner, Array.isArray(value) ? '' : `${JSON.stringify(key)}: `, i < entries.length - 1 ? ',' : '');
    }
    yield `${indent}${close}${suffix}\n`;
    return;
  }
  yield `${indent}${prefix}${JSON.stringify(value) ?? 'null'}${suffix}\n`;
}

/** The first `maxLines` lines (and at most `maxChars` characters) of `lines`, and whether more follow. */
export function headOf(lines: Iterable<string>, maxLines: number, maxChars: number): { text: string; more: boolean } {
  let text = '';
  let n = 0;
  for (const line of lines) {
    if (n >= maxLines || text.length + line.length > maxChars) return { text: text.replace(/\n$/, ''), more: true };
    text += line;
    n++;
  }
  return { text: text.replace(/\n$/, ''), more: false };
}

/** Pieces of a string, for `ClipContent.all`. */
export function* piecesOf(text: string, size = FILL_CHARS_PER_FRAME): Generator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}
