/**
 * Streaming markdown: a text block that grows by deltas is rendered so that each frame costs what changed,
 * not the size of the block. Finished top-level blocks are rendered once. The open block is rendered by
 * units: list items, table rows, pieces of a paragraph and the lines of a code fence; a block quote's
 * content is streamed the same way inside it. Finished units stay, only the open one is rendered again.
 * A block is taken over by its unit-wise renderer (a file of its own beside this one) only once its first
 * line has decided what it is. The finished DOM equals a one-shot render of the final text.
 */

import type { TextBody } from '../textBody.ts';
import { parse, parseBlocks, renderHtml, renderMarkdown, renderTokens, sanitize, type MdEnv, type Token } from '../markdown.ts';
import { FenceBlock } from './fenceBlock.ts';
import { lineDone, lineOffset, topLevelStarts } from './lines.ts';
import { ListBlock } from './listBlock.ts';
import { envOf, type OpenBlock } from './openBlock.ts';
import { ParagraphBlock } from './paragraphBlock.ts';
import { QuoteBlock } from './quoteBlock.ts';
import { TableBlock } from './tableBlock.ts';

/** A finished top-level block: its source range, its nodes, and the definitions its render knew. */
interface Committed {
  readonly start: number;
  readonly end: number;
  nodes: ChildNode[];
  readonly refs: boolean;
  labels: number;
}

/** A streaming text block's markdown, rendered by finished blocks and the open block's units. */
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
    const tokens = parse(tail, envOf(this._env));
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
    const frag = sanitize(renderTokens(tokens, envOf(this._env), false));
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

/** The unit-wise renderer that takes over a block just rendered whole, if there is one for its kind. */
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
      return element.nodeName === 'BLOCKQUOTE' ? new QuoteBlock(start, nodes, new MarkdownBody({ el: element, lead: '\n', env })) : undefined;
    case 'fence': {
      const opener = /^(`{3,}|~{3,})[^\n]*\n/.exec(tail);
      const code = element.querySelector('code');
      return opener && code && tokens.length === 1 ? new FenceBlock(start, opener[0], first.info, nodes, element, code) : undefined;
    }
    default:
      return undefined;
  }
}

/** A new streaming markdown body for an assistant's text block. */
export function markdownBody(): TextBody {
  return new MarkdownBody();
}
