/** The unit-wise renderer of a paragraph: closed pieces rendered once, the last one again; long ones in line groups. */

import { parseBlocks, renderClosedInline, renderInline, type MdEnv } from '../markdown.ts';
import { finishedEnd, finishedLines, topLevelStarts } from './lines.ts';
import { afterFrame, fragmentIn, replaceNodes } from './nodes.ts';
import { UnitBlock, type Step } from './openBlock.ts';

/** A paragraph piece longer than this is committed, so the re-rendered tail stays about this long. */
const PIECE_CHARS = 2000;
/** Only the start of a long open line is checked for a change of block (a table row, a heading underline). */
const PEEK_CHARS = 256;
/** Committed paragraph text past which its finished lines are moved into a line group (see ParagraphBlock). */
const GROUP_CHARS = 4000;

/**
 * A paragraph: its text is cut into pieces at spaces where nothing is left open (no unmatched emphasis,
 * bracket or backtick), rendered once each; only the last piece is rendered again. Each finished line is
 * checked for the paragraph ending or turning into something else (a heading underline, a table).
 *
 * The browser lays a paragraph's lines out again whenever anything in it changes, so a long one costs
 * layout time in proportion to its length every frame. While it streams, its committed lines are moved
 * into line groups (blocks of their own inside the paragraph, cut exactly where a line starts, so nothing
 * moves on screen): a group, once laid out, is not laid out again. The groups are unwrapped after the frame
 * that ends the paragraph, which leaves the DOM of a one-shot render.
 */
export class ParagraphBlock extends UnitBlock {
  readonly refs = true;
  private readonly _start: number;
  private readonly _p: HTMLElement;
  private readonly _env: Required<MdEnv>;
  /** Start of the text not yet committed as pieces. */
  private _piece: number;
  private _tail: ChildNode[];
  /** Start of the first line not yet checked for a change of block. */
  private _checked: number;
  /** Start of the last checked line (a table's header row, if the next line is its delimiter row). */
  private _lastLine: number;
  /** No piece is tried again before the text reaches this length (the last try found something open). */
  private _retryAt = 0;
  /** Line groups at the start of the paragraph, in order. */
  private readonly _groups: HTMLElement[] = [];
  /** Characters committed as pieces since the last line group was made. */
  private _ungrouped = 0;
  /** Start of the open line while a block starts on it (the paragraph may end there): no piece goes past it. */
  private _next: number | undefined;

  constructor(start: number, tail: string, nodes: ChildNode[], p: HTMLElement, env: Required<MdEnv>) {
    super(nodes);
    this._start = start;
    this._p = p;
    this._env = env;
    this._piece = start + (tail.length - tail.trimStart().length);
    this._tail = Array.from(p.childNodes);
    this._checked = start;
    this._lastLine = start;
  }

  update(src: string, final: boolean): Step {
    const end = this._structure(src, final);
    if (end === 'reset') return 'reset';
    const stop = end ?? src.length;
    const content = src.slice(this._piece, Math.min(stop, this._next ?? stop)).trimEnd();
    if (content.length > PIECE_CHARS && this._piece + content.length >= this._retryAt) this._commitPiece(src, this._piece + content.length);
    const rest = src.slice(this._piece, stop).trimEnd();
    // Measured before this frame's change, while the layout of the last frame is still valid.
    if (end === undefined && !final && this._ungrouped >= GROUP_CHARS) this._group();
    this._tail = replaceNodes(this._p, this._tail, fragmentIn(renderInline(rest, this._env), 'p'));
    if (end !== undefined || final) this._ungroupLater();
    return end;
  }

  /** Moves the committed nodes up to the start of their last line into a new line group. */
  private _group(): void {
    const nodes: ChildNode[] = [];
    for (let n = this._groups.at(-1)?.nextSibling ?? this._p.firstChild; n && n !== this._tail[0]; n = n.nextSibling) nodes.push(n);
    for (let i = nodes.length - 1; i >= 0; i--) {
      const node = nodes[i]!;
      const at = node.nodeType === Node.TEXT_NODE ? lastLineStart(node as Text) : undefined;
      if (at === undefined) continue;
      const rest = (node as Text).splitText(at);
      const group = document.createElement('span');
      group.className = 'md-lines';
      group.append(...nodes.slice(0, i + 1));
      rest.before(group);
      this._groups.push(group);
      this._ungrouped = 0;
      return;
    }
  }

  /**
   * Puts the grouped nodes back as the paragraph's own children (text split for a group joined again),
   * after the frame: the browser then lays the whole paragraph out again, once, as for a one-shot render.
   */
  private _ungroupLater(): void {
    if (!this._groups.length) return;
    const groups = this._groups.splice(0);
    const p = this._p;
    afterFrame(p, 'data-lines', () => {
      if (!p.isConnected) return;
      for (const group of groups) group.replaceWith(...Array.from(group.childNodes));
      p.normalize();
    });
  }

  private _commitPiece(src: string, contentEnd: number): void {
    // The last space before the end that is followed by text: pieces join without changing a line break.
    let cut = -1;
    for (let i = src.lastIndexOf(' ', contentEnd - 2); i > this._piece + PIECE_CHARS / 2; i = src.lastIndexOf(' ', i - 1)) {
      if (!/\s/.test(src[i + 1] ?? ' ')) {
        cut = i + 1;
        break;
      }
    }
    if (cut === -1) return;
    const html = renderClosedInline(src.slice(this._piece, cut), this._env);
    if (html === undefined) {
      this._retryAt = contentEnd + PIECE_CHARS;
      return;
    }
    const first = this._tail[0] ?? null;
    for (const n of fragmentIn(html, 'p')) this._p.insertBefore(n, first);
    this._ungrouped += cut - this._piece;
    this._piece = cut;
  }

  /**
   * Checks the new lines: undefined while the paragraph goes on, the start of the next block once a
   * finished line begins one, or 'reset' when the paragraph itself changes (setext heading, table header).
   */
  private _structure(src: string, final: boolean): number | 'reset' | undefined {
    const done = finishedEnd(src, final);
    const lines: { at: number; text: string }[] = [];
    if (this._lastLine < this._checked) lines.push({ at: this._lastLine, text: src.slice(this._lastLine, this._checked - 1) });
    lines.push(...finishedLines(src, this._checked, done));
    const firstNew = this._lastLine < this._checked ? 1 : 0;
    const open = final ? '' : src.slice(done, done + PEEK_CHARS);
    if (lines.length === firstNew && !open.trim()) return undefined;
    // A line "x" first makes every line a continuation, as it is in the paragraph; but the paragraph's own
    // first line is checked as a start ("3" becoming "3. item" is a list, not a paragraph line).
    const lead = (lines[0]?.at ?? done) === this._start ? 0 : 1;
    const window = [...(lead ? ['x'] : []), ...lines.map((l) => l.text), ...(open ? [open] : [])].join('\n');
    const tokens = parseBlocks(window, {});
    const starts = topLevelStarts(tokens);
    if (tokens[0]?.type !== 'paragraph_open') return 'reset';
    if (lines.length > firstNew) {
      this._lastLine = lines.at(-1)!.at;
      this._checked = done;
    }
    this._next = undefined;
    if (starts.length < 2) return undefined;
    const line = starts[1]!.line - lead;
    // A table starts at its header line, but only the delimiter row under it makes it a table: while that
    // row is the open line ("| -" may become "| - x |"), the header may still be a line of the paragraph.
    if (tokens[starts[1]!.index]!.type === 'table_open' && line === lines.length - 1 && (line === 0 || lines[line - 1]!.text.trim())) {
      this._next = lines[line]!.at;
      return undefined;
    }
    if (line < firstNew) return 'reset';
    if (line >= lines.length) {
      // The block after the paragraph starts on the open line. After a blank line the paragraph is over,
      // whatever that line becomes; otherwise wait until the line is finished ("#" may become "#x" and join
      // the paragraph), and commit no piece past its start meanwhile.
      if (!lines.at(-1)!.text.trim()) return done;
      this._next = done;
      return undefined;
    }
    return lines[line]!.at;
  }
}

/**
 * Offset in `text` where its last line on screen starts, if it is laid out on more than one line; a line
 * start is the first character whose line box lies below the one of the character before it.
 */
function lastLineStart(text: Text): number | undefined {
  const range = document.createRange();
  range.selectNodeContents(text);
  const lines = range.getClientRects();
  if (lines.length < 2) return undefined;
  const top = lines[lines.length - 1]!.top;
  const topOf = (i: number): number => {
    range.setStart(text, i);
    range.setEnd(text, i + 1);
    const rects = range.getClientRects();
    return rects.length ? rects[rects.length - 1]!.top : Number.NEGATIVE_INFINITY;
  };
  // The first character on the last line: line tops only grow along the text. A space where the line
  // breaks may be reported on either line, so the line starts at the first other character after it.
  let lo = 1;
  let hi = text.length - 1;
  if (hi < lo || topOf(hi) < top - 1) return undefined;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (topOf(mid) >= top - 1) hi = mid;
    else lo = mid + 1;
  }
  let before = lo - 1;
  while (before > 0 && /\s/.test(text.data[before]!)) before--;
  while (lo < text.length && /\s/.test(text.data[lo]!)) lo++;
  if (lo >= text.length || /\s/.test(text.data[before]!) || topOf(before) >= top - 1 || topOf(lo) < top - 1) return undefined;
  return lo;
}
