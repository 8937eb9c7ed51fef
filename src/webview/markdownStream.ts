/**
 * Streaming markdown: a text block that grows by deltas is rendered so that each frame costs what changed,
 * not the size of the block. Finished top-level blocks are rendered once. The open block is rendered by
 * units: list items, table rows, pieces of a paragraph and the lines of a code fence; a block quote's
 * content is streamed the same way inside it. Finished units stay, only the open one is rendered again.
 * The finished DOM equals a one-shot render of the final text.
 */

import { markFocus, restoreFocus } from './a11y.ts';
import type { TextBody } from './transcriptView.ts';
import {
  highlights,
  parse,
  parseBlocks,
  renderClosedInline,
  renderHtml,
  renderInline,
  renderMarkdown,
  renderTokens,
  sanitize,
  type MdEnv,
  type Token,
} from './markdown.ts';

/** A paragraph piece longer than this is committed, so the re-rendered tail stays about this long. */
const PIECE_CHARS = 2000;
/** Only the start of a long open line is checked for a change of block (a table row, a heading underline). */
const PEEK_CHARS = 256;
/** Committed paragraph text past which its finished lines are moved into a line group (see ParagraphBlock). */
const GROUP_CHARS = 4000;
/** Finished rows of a streaming table's open chunk past which the next rows go into a new chunk (see TableBlock). */
const CHUNK_ROWS = 64;

/** An open block's answer: still open (undefined), ended where the next block starts, or render it again. */
type Step = number | 'reset' | undefined;

interface OpenBlock {
  /** This block's top-level nodes in the body. */
  readonly nodes: ChildNode[];
  /** Whether a link reference definition found later could change it. */
  readonly refs: boolean;
  /** How many link reference definitions its rendering knew. */
  labels: number;
  update(src: string, final: boolean): Step;
  /** Removes what it showed beyond its own nodes. */
  drop(): void;
}

interface Committed {
  readonly start: number;
  readonly end: number;
  nodes: ChildNode[];
  readonly refs: boolean;
  labels: number;
}

class MarkdownBody implements TextBody {
  readonly el: HTMLElement;
  /** The text as received and the same text with line endings normalized (what is rendered). */
  private _raw = '';
  private _src = '';
  private _final = false;
  /** Link reference definitions of every settled line, shared by all renders. */
  private _env: Required<MdEnv> = { references: {} };
  private _labels = 0;
  private _defsScanned = 0;
  /** A line with `]:` was read and no blank line since: a later line may still finish its definition. */
  private _defsOpen = false;
  private _blocks: Committed[] = [];
  /** Where the open top-level block starts. */
  private _start = 0;
  private _open: OpenBlock | undefined;
  /** Nodes of an open block that is rendered whole each frame (a heading, HTML and other rare blocks). */
  private _tail: ChildNode[] = [];

  /** Text markdown-it puts first inside the container (a newline after `<blockquote>`). */
  private readonly _lead: string;
  /** Whether the definitions are shared with an enclosing body (a block quote's content). */
  private readonly _shared: boolean;

  /** A body of its own, or the content of `inside.el` (a block quote) sharing that body's definitions. */
  constructor(inside?: { el: HTMLElement; lead: string; env: Required<MdEnv> }) {
    this._lead = inside?.lead ?? '';
    this._shared = inside !== undefined;
    if (inside) {
      this.el = inside.el;
      this._env = inside.env;
      this._clear();
    } else {
      this.el = document.createElement('div');
      this.el.className = 'md';
    }
  }

  private _clear(...nodes: Node[]): void {
    this.el.replaceChildren(...(this._lead ? [document.createTextNode(this._lead)] : []), ...nodes);
  }

  update(text: string, final: boolean): void {
    if (text === this._raw && final === this._final) return;
    if (this._final || !text.startsWith(this._raw)) this._reset();
    if (final && this._raw === '') {
      // Never streamed (a finished reply, a snapshot): one render of the whole text.
      this._raw = text;
      this._final = true;
      this._clear(this._shared ? sanitize(renderHtml(text, this._env, true)) : renderMarkdown(text));
    } else {
      this._append(text);
      this._final = final;
      // Definitions only ever get added, so this ends; usually after one round.
      for (let plain = false; ; plain = true) {
        this._scanDefinitions(final);
        this._advance(final, plain);
        if (this._count() === this._labels) break;
        this._labels = this._count();
        this._refreshReferences();
      }
    }
    // markdown-it writes no newline inside a quote that ends empty (`>` alone).
    if (final && this._lead && this.el.childNodes.length === 1 && this.el.firstChild?.nodeType === Node.TEXT_NODE) this.el.firstChild.remove();
  }

  private _count(): number {
    return Object.keys(this._env.references).length;
  }

  private _reset(): void {
    this._raw = '';
    this._src = '';
    this._final = false;
    if (!this._shared) this._env = { references: {} };
    this._labels = 0;
    this._defsScanned = 0;
    this._defsOpen = false;
    this._blocks = [];
    this._start = 0;
    this._open = undefined;
    this._tail = [];
    this._clear();
  }

  /** Appends the new text with markdown-it's normalization (`\r\n` and lone `\r` end a line, NUL is replaced). */
  private _append(text: string): void {
    let added = text.slice(this._raw.length);
    if (this._raw.endsWith('\r') && added.startsWith('\n')) added = added.slice(1);
    this._raw = text;
    this._src += added.replace(/\r\n?/g, '\n').replace(/\0/g, '\uFFFD');
  }

  /**
   * Definitions on finished lines of the open block count from now on, for every block; a definition on
   * the open line may still grow. A line that contains `]:` makes the block's definitions be read again, and
   * so does each line after it up to a blank line: a definition's destination or title may come on a later
   * line (`[a]: /url '` is a definition only once the line that closes its title has come).
   */
  private _scanDefinitions(final: boolean): void {
    const end = final ? this._src.length : this._src.lastIndexOf('\n') + 1;
    if (end <= this._defsScanned) return;
    const fresh = this._src.slice(Math.max(this._defsScanned, this._start), end);
    this._defsScanned = end;
    const at = fresh.lastIndexOf(']:');
    if (at === -1 && !this._defsOpen) return;
    this._defsOpen = !/(?:^|\n)[ \t]*\n/.test(fresh.slice(Math.max(at, 0)));
    const env: MdEnv = { references: {} };
    parseBlocks(this._src.slice(this._start, end), env);
    const refs = this._env.references;
    for (const [label, def] of Object.entries(env.references ?? {})) if (!(label in refs)) refs[label] = def;
  }

  /** Renders again what an earlier render got without a definition that is known now. */
  private _refreshReferences(): void {
    for (const b of this._blocks) {
      if (!b.refs || b.labels === this._labels) continue;
      const frag = sanitize(renderHtml(this._src.slice(b.start, b.end), this._env, true));
      const nodes = Array.from(frag.childNodes);
      b.nodes[0]?.before(frag);
      for (const n of b.nodes) n.remove();
      b.nodes = nodes;
      b.labels = this._labels;
    }
    if (this._open && this._open.refs && this._open.labels !== this._labels) this._dropOpen();
  }

  private _dropOpen(): void {
    this._open?.drop();
    for (const n of this._open?.nodes ?? []) n.remove();
    this._open = undefined;
  }

  private _advance(final: boolean, plain: boolean): void {
    for (;;) {
      if (this._open) {
        const step = this._open.update(this._src, final);
        if (step === undefined) return;
        // A block that ends where it starts has turned into something else.
        if (step === 'reset' || step <= this._start) {
          this._dropOpen();
          plain = true;
          continue;
        }
        this._blocks.push({ start: this._start, end: step, nodes: this._open.nodes, refs: this._open.refs, labels: this._open.labels });
        this._start = step;
        this._open = undefined;
        continue;
      }
      if (!this._topLevel(final, plain)) return;
    }
  }

  /**
   * Parses the text from the open block's start. Blocks followed by a block that starts on a finished line
   * are committed; returns true to look again from the new start. The last block is rendered, and taken
   * over by a unit-wise renderer when it is a paragraph, list, table or fence.
   */
  private _topLevel(final: boolean, plain: boolean): boolean {
    for (const n of this._tail) n.remove();
    this._tail = [];
    const tail = this._src.slice(this._start);
    if (tail === '') return false;
    if (final) {
      this._commit(tail.length, true);
      return false;
    }
    const tokens = parse(tail, { references: { ...this._env.references } });
    const starts = topLevelStarts(tokens);
    // Blocks before one that starts on a finished line are finished ("#" could still become "#x" and join
    // the paragraph above).
    for (let i = starts.length - 1; i >= 0; i--) {
      const line = starts[i]!.line;
      // A table is one once the delimiter row under its header is finished too.
      const last = tokens[starts[i]!.index]!.type === 'table_open' ? line + 1 : line;
      if (line > 0 && lineDone(tail, last)) {
        this._commit(lineOffset(tail, line), false);
        return true;
      }
    }
    const frag = sanitize(renderTokens(tokens, { references: { ...this._env.references } }, false));
    const nodes = Array.from(frag.childNodes);
    this.el.append(frag);
    const open = plain || starts.length !== 1 || starts[0]!.line !== 0 ? undefined : openBlock(tokens, tail, this._start, nodes, this._env);
    if (open) {
      open.labels = this._count();
      this._open = open;
      // A quote's content is streamed into it from the start, now: it begins empty.
      return open instanceof QuoteBlock;
    }
    this._tail = nodes;
    return false;
  }

  /** Renders the next `length` characters once, as finished blocks; their definitions join the shared ones. */
  private _commit(length: number, final: boolean): void {
    const src = this._src.slice(this._start, this._start + length);
    const frag = sanitize(renderHtml(src, this._env, true));
    const nodes = Array.from(frag.childNodes);
    this.el.append(frag);
    // Blocks rendered before this one may miss its definitions (the caller renders them again); it has them.
    this._blocks.push({ start: this._start, end: this._start + length, nodes, refs: src.includes('['), labels: this._count() });
    this._start += length;
    if (final) this._defsScanned = this._src.length;
  }
}

/** Index just past the end of line `line` (0-based lines) in `text`. */
function lineOffset(text: string, line: number): number {
  let at = 0;
  for (let n = 0; n < line; n++) {
    const i = text.indexOf('\n', at);
    if (i === -1) return text.length;
    at = i + 1;
  }
  return at;
}

/** Top-level blocks of a token list: index of the opening token and its first line. */
function topLevelStarts(tokens: readonly Token[]): { index: number; line: number }[] {
  const out: { index: number; line: number }[] = [];
  tokens.forEach((t, index) => {
    if (t.level === 0 && t.nesting !== -1 && t.map) out.push({ index, line: t.map[0] });
  });
  return out;
}

/** Whether line `line` of `text` ends with a newline (a finished line). */
function lineDone(text: string, line: number): boolean {
  return text.indexOf('\n', lineOffset(text, line)) !== -1;
}

function openBlock(tokens: Token[], tail: string, start: number, nodes: ChildNode[], env: Required<MdEnv>): OpenBlock | undefined {
  const first = tokens[0]!;
  const element = nodes.find((n): n is HTMLElement => n.nodeType === Node.ELEMENT_NODE);
  if (!element) return undefined;
  // The first line decides what a block is ("-" may still become "---", "-x" or "- item"): until it is
  // finished, only a paragraph, which checks its first line again each frame, or a quote, which no later
  // character turns into something else, is taken over; any other block is rendered whole meanwhile.
  if (!lineDone(tail, 0) && first.type !== 'paragraph_open' && first.type !== 'blockquote_open') return undefined;
  switch (first.type) {
    case 'paragraph_open':
      return new ParagraphBlock(start, tail, nodes, element, env);
    case 'bullet_list_open':
    case 'ordered_list_open':
      return new ListBlock(start, tail, nodes, element, env);
    case 'table_open': {
      const body = element.querySelector('tbody');
      return body && lineDone(tail, 1) ? new TableBlock(start, tail, nodes, element, body, env) : undefined;
    }
    case 'blockquote_open':
      return element.nodeName === 'BLOCKQUOTE' ? new QuoteBlock(start, nodes, element, env) : undefined;
    case 'fence': {
      const opener = /^(`{3,}|~{3,})[^\n]*\n/.exec(tail);
      const code = element.querySelector('code');
      return opener && code && tokens.length === 1 ? new FenceBlock(start, opener[0], first.info, nodes, element, code) : undefined;
    }
    default:
      return undefined;
  }
}

/** Sanitized nodes of HTML that belongs inside `parent` (a paragraph, a list or a table body). */
function fragmentIn(html: string, parent: 'p' | 'list' | 'tbody'): ChildNode[] {
  if (parent !== 'tbody') return Array.from(sanitize(html).childNodes);
  // Table rows outside a table are dropped by the HTML parser: sanitize them inside one.
  const body = sanitize(`<table><tbody>${html}</tbody></table>`).querySelector('tbody');
  return body ? Array.from(body.childNodes) : [];
}

/**
 * Renders, after a block, the start of the next block while its first line is unfinished (it could still
 * join the block: "1." after a list item can become "1.x", a lazy continuation line); returns its nodes.
 */
function trailer(block: readonly ChildNode[], old: ChildNode[], tokens: Token[], env: Required<MdEnv>): ChildNode[] {
  for (const n of old) n.remove();
  if (!tokens.length) return [];
  const nodes = Array.from(sanitize(renderTokens(tokens, { references: { ...env.references } }, false)).childNodes);
  block.at(-1)?.after(...nodes);
  return nodes;
}

/**
 * Puts `fresh` where `old` is. An item or row that is still there is updated in place (its children), and
 * the rest goes in as one fragment: in a long list or table, every insertion or removal of an item costs
 * the browser work across all its siblings.
 */
function replaceNodes(parent: Element, old: ChildNode[], fresh: ChildNode[]): ChildNode[] {
  const after = old.at(-1)?.nextSibling ?? null;
  const out: ChildNode[] = [];
  let kept = 0;
  const a = old[0];
  const b = fresh[0];
  if (
    a &&
    b &&
    a.nodeType === Node.ELEMENT_NODE &&
    b.nodeType === Node.ELEMENT_NODE &&
    a.nodeName === b.nodeName &&
    !(a as Element).attributes.length &&
    !(b as Element).attributes.length
  ) {
    (a as Element).replaceChildren(...Array.from(b.childNodes));
    out.push(a);
    kept = 1;
    const t = old[1];
    if (t && fresh[1] && t.nodeType === Node.TEXT_NODE && fresh[1].nodeType === Node.TEXT_NODE && (t as Text).data === (fresh[1] as Text).data) {
      out.push(t);
      kept = 2;
    }
  }
  for (const n of old.slice(kept)) n.remove();
  const rest = fresh.slice(kept);
  if (rest.length) {
    const frag = document.createDocumentFragment();
    frag.append(...rest);
    parent.insertBefore(frag, kept ? (out.at(-1)!.nextSibling ?? null) : after);
  }
  return out.concat(rest);
}

/**
 * Runs `fn` in a task after the current frame, with `attr="pending"` on `el` until then: tests and the bench
 * wait until no such attribute is left, which is when the DOM equals a one-shot render.
 */
function afterFrame(el: Element, attr: 'data-lines' | 'data-rows' | 'data-highlight', fn: () => void): void {
  el.setAttribute(attr, 'pending');
  setTimeout(() => {
    el.removeAttribute(attr);
    fn();
  }, 0);
}

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
class ParagraphBlock implements OpenBlock {
  readonly nodes: ChildNode[];
  readonly refs = true;
  labels = 0;
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
    this._start = start;
    this.nodes = nodes;
    this._p = p;
    this._env = env;
    this._piece = start + (tail.length - tail.trimStart().length);
    this._tail = Array.from(p.childNodes);
    this._checked = start;
    this._lastLine = start;
  }

  drop(): void {}

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
    const done = final ? src.length : src.lastIndexOf('\n') + 1;
    const lines: { at: number; text: string }[] = [];
    if (this._lastLine < this._checked) lines.push({ at: this._lastLine, text: src.slice(this._lastLine, this._checked - 1) });
    for (let at = this._checked; at < done; ) {
      const nl = src.indexOf('\n', at);
      const stop = nl === -1 || nl >= done ? done : nl;
      lines.push({ at, text: src.slice(at, stop) });
      at = stop + 1;
    }
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

/**
 * A list: its items are rendered one by one; finished items stay, the open (last) item is rendered again.
 * The window parsed each frame is a stand-in first item plus the open item, whose paragraph tells whether
 * the list is loose. When that changes, the whole list is rendered again, once.
 */
class ListBlock implements OpenBlock {
  readonly nodes: ChildNode[];
  readonly refs = true;
  labels = 0;
  private readonly _list: HTMLElement;
  private readonly _env: Required<MdEnv>;
  /** Start of the open item's first line. */
  private _item: number;
  private _tail: ChildNode[];
  private _committed = 0;
  private _trailer: ChildNode[] = [];
  private _committedLoose = false;
  private _renderedLoose = false;

  constructor(start: number, tail: string, nodes: ChildNode[], list: HTMLElement, env: Required<MdEnv>) {
    this.nodes = nodes;
    this._list = list;
    this._env = env;
    this._item = start;
    // All of the list is the open part until the first update commits its finished items.
    this._tail = Array.from(list.childNodes).filter((n, i) => !(i === 0 && n.nodeType === Node.TEXT_NODE));
  }

  drop(): void {
    for (const n of this._trailer) n.remove();
    this._trailer = [];
  }

  update(src: string, final: boolean): Step {
    const rest = src.slice(this._item);
    // A stand-in item just like the open one (same indent and marker), so the open item is its sibling.
    const marker = /^( {0,3})([-*+]|\d{1,9}([.)]))/.exec(rest);
    if (!marker) return 'reset';
    const window = `${marker[1]}${marker[3] ? `1${marker[3]}` : marker[2]} x\n${rest}`;
    const tokens = parse(window, { references: { ...this._env.references } });
    const starts = topLevelStarts(tokens);
    const listOpen = tokens[0];
    if (!listOpen || !/list_open$/.test(listOpen.type)) return 'reset';
    const listEnd = starts[1]?.index ?? tokens.length;
    let end: number | undefined;
    if (starts.length >= 2) {
      const line = starts[1]!.line - 1;
      if (final || lineDone(rest, line)) end = this._item + lineOffset(rest, line);
    }
    this._trailer = trailer(this.nodes, this._trailer, end === undefined ? tokens.slice(listEnd) : [], this._env);
    const items = itemRanges(tokens, listEnd);
    if (items.length < 1) return 'reset';
    // The open item's line is an item of this list or starts the block after it; otherwise it has joined the
    // item before it (a lazy line: "+" became "+++"), and the list is not what was rendered.
    if (tokens[items[1]?.[0] ?? -1]?.map?.[0] !== 1 && starts[1]?.line !== 1) return 'reset';
    const standIn = tokens[items[0]![0] + 1];
    const loose = this._committedLoose || standIn?.type !== 'paragraph_open' || standIn.hidden !== true;
    if (this._committed > 0 && loose !== this._renderedLoose) return 'reset';
    this._renderedLoose = loose;
    let open = items.slice(1);
    // Items before one whose first line is finished are finished (a later character could still make "-"
    // or "1." something other than an item).
    let cut = -1;
    for (let k = open.length - 1; k >= 1 && end === undefined; k--) {
      if (final || lineDone(rest, tokens[open[k]![0]]!.map![0] - 1)) {
        cut = k;
        break;
      }
    }
    if (cut > 0) {
      replaceNodes(this._list, this._tail, this._renderItems(tokens, open.slice(0, cut), loose, true));
      this._tail = [];
      this._committed += cut;
      this._committedLoose = loose;
      this._item += lineOffset(rest, tokens[open[cut]![0]]!.map![0] - 1);
      open = open.slice(cut);
    }
    this._tail = replaceNodes(this._list, this._tail, this._renderItems(tokens, open, loose, final || end !== undefined));
    return end;
  }

  private _renderItems(tokens: Token[], items: [number, number][], loose: boolean, highlight: boolean): ChildNode[] {
    if (!items.length) return [];
    const slice = tokens.slice(items[0]![0], items.at(-1)![1] + 1);
    // Tight lists hide the paragraphs directly inside their items; the whole list decides, not one item.
    for (let i = 0; i < slice.length; i++) {
      const t = slice[i]!;
      if (t.level === 2 && t.type === 'paragraph_open') {
        t.hidden = !loose;
        slice[i + 2]!.hidden = !loose;
      }
    }
    return fragmentIn(renderTokens(slice, { references: { ...this._env.references } }, highlight), 'list');
  }
}

/** [open, close] token indexes of the items of the first top-level list. */
function itemRanges(tokens: readonly Token[], end: number): [number, number][] {
  const out: [number, number][] = [];
  let open = -1;
  for (let i = 0; i < end; i++) {
    const t = tokens[i]!;
    if (t.level !== 1) continue;
    if (t.type === 'list_item_open') open = i;
    else if (t.type === 'list_item_close' && open >= 0) {
      out.push([open, i]);
      open = -1;
    }
  }
  return out;
}

/**
 * A table: its body rows are rendered one by one; rows on finished lines stay, the open row is rendered
 * again. The window parsed each frame is the header and delimiter rows plus the open row.
 *
 * The browser lays all of a table's rows out again whenever a row is added, so a long one costs layout
 * time in proportion to its rows every frame. While it streams, once the open chunk (at first the table
 * itself) holds enough finished rows, the next rows go into a continuation table placed after it: same
 * look, columns as wide as the first table's header cells, shown to assistive technology as plain content
 * rather than as another table. A chunk, once laid out, is not laid out again. The chunks' rows are moved
 * back into the first table after the frame that ends it, which leaves the DOM of a one-shot render.
 */
class TableBlock implements OpenBlock {
  readonly nodes: ChildNode[];
  readonly refs = true;
  labels = 0;
  private readonly _table: HTMLElement;
  /** The body that the open chunk's rows go into: the table's own, then the last chunk's. */
  private _body: HTMLElement;
  private readonly _env: Required<MdEnv>;
  private readonly _head: string;
  private _row: number;
  private _tail: ChildNode[];
  private _trailer: ChildNode[] = [];
  /** Continuation tables, in order. */
  private readonly _chunks: HTMLElement[] = [];
  /** Finished rows in the open chunk. */
  private _chunkRows = 0;
  /** Widths of the first table's columns, measured once, when the first chunk is made. */
  private _widths: number[] | undefined;

  constructor(start: number, tail: string, nodes: ChildNode[], table: HTMLElement, body: HTMLElement, env: Required<MdEnv>) {
    this.nodes = nodes;
    this._table = table;
    this._body = body;
    this._env = env;
    this._head = tail.slice(0, lineOffset(tail, 2));
    this._row = start + this._head.length;
    this._tail = Array.from(body.childNodes).filter((n, i) => !(i === 0 && n.nodeType === Node.TEXT_NODE));
  }

  drop(): void {
    for (const n of this._trailer) n.remove();
    this._trailer = [];
  }

  update(src: string, final: boolean): Step {
    const rest = src.slice(this._row);
    const tokens = parse(this._head + rest, { references: { ...this._env.references } });
    const starts = topLevelStarts(tokens);
    if (tokens[0]?.type !== 'table_open') return 'reset';
    let end: number | undefined;
    const tableEnd = starts[1]?.index ?? tokens.length;
    if (starts.length >= 2) {
      const line = starts[1]!.line - 2;
      if (final || lineDone(rest, line)) end = this._row + lineOffset(rest, line);
    }
    // Measured before this frame's change, while the layout of the last frame is still valid.
    if (end === undefined && !final && this._chunkRows >= CHUNK_ROWS) this._chunk();
    this._trailer = trailer(this.nodes, this._trailer, end === undefined ? tokens.slice(tableEnd) : [], this._env);
    const rows: [number, number][] = [];
    let inBody = false;
    for (let i = 0, open = -1; i < tableEnd; i++) {
      const t = tokens[i]!;
      if (t.type === 'tbody_open') inBody = true;
      else if (inBody && t.type === 'tr_open') open = i;
      else if (inBody && t.type === 'tr_close') rows.push([open, i]);
    }
    let open = rows;
    // Rows on finished lines are finished: each row is one line.
    const finished = end !== undefined ? 0 : final ? rows.length : rows.filter(([i]) => lineDone(rest, tokens[i]!.map![0] - 2)).length;
    if (finished > 0) {
      replaceNodes(this._body, this._tail, this._renderRows(tokens, rows.slice(0, finished)));
      this._tail = [];
      this._chunkRows += finished;
      this._row += lineOffset(rest, tokens[rows[finished - 1]![0]]!.map![0] - 1);
      open = rows.slice(finished);
    }
    this._tail = replaceNodes(this._body, this._tail, this._renderRows(tokens, open));
    if (end !== undefined || final) this._unchunkLater();
    return end;
  }

  private _renderRows(tokens: Token[], rows: [number, number][]): ChildNode[] {
    if (!rows.length) return [];
    return fragmentIn(renderTokens(tokens.slice(rows[0]![0], rows.at(-1)![1] + 1), { references: { ...this._env.references } }, false), 'tbody');
  }

  /** Starts a new chunk after the last one; the open row moves into it. */
  private _chunk(): void {
    this._widths ??= Array.from(this._table.querySelectorAll('thead th'), (th) => th.getBoundingClientRect().width);
    const table = document.createElement('table');
    table.className = 'md-rows';
    // Rows of the table above, not a table of their own: a screen reader reads them as content.
    table.setAttribute('role', 'presentation');
    const cols = document.createElement('colgroup');
    for (const width of this._widths) {
      const col = document.createElement('col');
      // Through the CSSOM: the webview's CSP blocks style attributes in markup, not this.
      col.style.width = `${width}px`;
      cols.append(col);
    }
    const body = document.createElement('tbody');
    table.append(cols, body);
    const last = this._chunks.at(-1) ?? this._table;
    last.after(table);
    this.nodes.splice(this.nodes.indexOf(last) + 1, 0, table);
    this._chunks.push(table);
    for (const n of this._tail) n.remove();
    this._tail = [];
    this._body = body;
    this._chunkRows = 0;
  }

  /**
   * Moves the chunks' rows back into the first table and removes the chunks, after the frame: the browser
   * then lays the whole table out again, once, as for a one-shot render.
   */
  private _unchunkLater(): void {
    if (!this._chunks.length) return;
    const chunks = this._chunks.splice(0);
    const table = this._table;
    afterFrame(table, 'data-rows', () => {
      for (const chunk of chunks) {
        const i = this.nodes.indexOf(chunk);
        if (i >= 0) this.nodes.splice(i, 1);
      }
      const body = table.querySelector('tbody');
      if (!table.isConnected || !body) return;
      for (const chunk of chunks) {
        body.append(...Array.from(chunk.querySelector('tbody')?.childNodes ?? []));
        chunk.remove();
      }
    });
  }
}

/**
 * A code fence: its lines are appended as plain text; when the closing fence arrives it is highlighted
 * once, after the frame, by rendering the finished fence again.
 */
class FenceBlock implements OpenBlock {
  readonly nodes: ChildNode[];
  readonly refs = false;
  labels = 0;
  private readonly _start: number;
  private readonly _content: number;
  private readonly _info: string;
  private readonly _close: RegExp;
  private _block: HTMLElement;
  private readonly _text: Text;
  private _checked: number;
  /** Characters of the content in the DOM. */
  private _shown: number;

  constructor(start: number, opener: string, info: string, nodes: ChildNode[], block: HTMLElement, code: HTMLElement) {
    this._start = start;
    this._content = start + opener.length;
    this._checked = this._content;
    this._info = info;
    const marker = opener[0] === '`' ? '`' : '~';
    const run = /^[`~]+/.exec(opener)![0].length;
    this._close = new RegExp(`^ {0,3}\\${marker}{${run},}[ \\t]*$`);
    this.nodes = nodes;
    this._block = block;
    this._text = document.createTextNode(code.textContent ?? '');
    this._shown = this._text.length;
    code.replaceChildren(this._text);
  }

  drop(): void {}

  update(src: string, final: boolean): Step {
    const done = final ? src.length : src.lastIndexOf('\n') + 1;
    let close = -1;
    let end = -1;
    for (let at = this._checked; at < done; ) {
      const nl = src.indexOf('\n', at);
      const stop = nl === -1 || nl >= done ? done : nl;
      if (this._close.test(src.slice(at, stop))) {
        close = at;
        end = Math.min(stop + 1, src.length);
        break;
      }
      at = stop + 1;
    }
    if (close === -1) this._checked = Math.max(this._checked, done);
    const content = src.slice(this._content, close === -1 ? src.length : close);
    // Only the new characters reach the DOM; the closing fence line, shown while it was the open line, goes.
    if (content.length >= this._shown) this._text.appendData(content.slice(this._shown));
    else this._text.data = content;
    this._shown = content.length;
    if (close === -1 && !final) return undefined;
    if (highlights(this._info, content)) this._highlightLater(src.slice(this._start, close === -1 ? src.length : end));
    return close === -1 ? undefined : end;
  }

  private _highlightLater(source: string): void {
    const block = this._block;
    // Off the frame that closed the fence: highlighting a long block is the costly part.
    afterFrame(block, 'data-highlight', () => {
      if (!block.isConnected) return;
      const fresh = sanitize(renderHtml(source, {}, true)).firstElementChild;
      if (!fresh) return;
      // Outside the frame's render: keep a focused Copy or Insert button's focus on its highlighted twin.
      const focus = markFocus(document.body);
      block.replaceWith(fresh);
      restoreFocus(document.body, focus);
      const i = this.nodes.indexOf(block);
      if (i >= 0) this.nodes[i] = fresh;
      this._block = fresh as HTMLElement;
    });
  }
}

/**
 * A block quote: the content of its lines (the `>` marker and one space after it taken off) is streamed
 * into a body of its own inside the `<blockquote>`, so its paragraphs, lists and fences are rendered by
 * units as at the top level. It ends at a blank line. A line without a marker (a lazy continuation, or
 * the quote ending) or a tab after the marker makes it render whole again.
 */
class QuoteBlock implements OpenBlock {
  readonly nodes: ChildNode[];
  readonly refs = true;
  labels = 0;
  private readonly _body: MarkdownBody;
  /** Start of the first line not yet taken into the content. */
  private _line: number;
  /** The content of the finished lines. */
  private _content = '';

  constructor(start: number, nodes: ChildNode[], quote: HTMLElement, env: Required<MdEnv>) {
    this.nodes = nodes;
    this._line = start;
    this._body = new MarkdownBody({ el: quote, lead: '\n', env });
  }

  drop(): void {}

  update(src: string, final: boolean): Step {
    const done = final ? src.length : src.lastIndexOf('\n') + 1;
    while (this._line < done) {
      const nl = src.indexOf('\n', this._line);
      const stop = nl === -1 || nl >= done ? done : nl;
      const line = src.slice(this._line, stop);
      if (!line.trim()) {
        this._body.update(this._content, true);
        return this._line;
      }
      const content = quoteContent(line);
      if (content === undefined) return 'reset';
      this._content += stop < src.length ? `${content}\n` : content;
      this._line = stop + 1;
    }
    // The open line shows once it has its marker; without one it may still be a lazy line or a new block.
    const open = final ? undefined : quoteContent(src.slice(done));
    this._body.update(this._content + (open ?? ''), final);
    return undefined;
  }
}

/**
 * A line's content inside a block quote: without its marker and one space after it. Undefined if it has
 * no marker, or a tab in the content's indent (a tab's width depends on the column, which that changes).
 */
function quoteContent(line: string): string | undefined {
  const m = /^ {0,3}> ?/.exec(line);
  if (!m) return undefined;
  const content = line.slice(m[0].length);
  return /^ *\t/.test(content) ? undefined : content;
}

export function markdownBody(): TextBody {
  return new MarkdownBody();
}
