/** The unit-wise renderer of a table: finished rows stay, the open row is rendered again; a long table streams in chunks. */

import { parse, renderTokens, type MdEnv, type Token } from '../markdown.ts';
import { lineDone, lineOffset, topLevelStarts } from './lines.ts';
import { afterFrame, childrenAfterLead, fragmentIn, replaceNodes, Trailer } from './nodes.ts';
import { envOf, UnitBlock, type Step } from './openBlock.ts';

/** Finished rows of a streaming table's open chunk past which the next rows go into a new chunk (see TableBlock). */
const CHUNK_ROWS = 64;

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
export class TableBlock extends UnitBlock {
  readonly refs = true;
  private readonly _table: HTMLElement;
  /** The body that the open chunk's rows go into: the table's own, then the last chunk's. */
  private _body: HTMLElement;
  private readonly _env: Required<MdEnv>;
  private readonly _head: string;
  private _row: number;
  private _tail: ChildNode[];
  private readonly _trailer = new Trailer();
  /** Continuation tables, in order. */
  private readonly _chunks: HTMLElement[] = [];
  /** Finished rows in the open chunk. */
  private _chunkRows = 0;
  /** Widths of the first table's columns, measured once, when the first chunk is made. */
  private _widths: number[] | undefined;

  constructor(start: number, tail: string, nodes: ChildNode[], table: HTMLElement, body: HTMLElement, env: Required<MdEnv>) {
    super(nodes);
    this._table = table;
    this._body = body;
    this._env = env;
    this._head = tail.slice(0, lineOffset(tail, 2));
    this._row = start + this._head.length;
    this._tail = childrenAfterLead(body);
  }

  override drop(): void {
    this._trailer.remove();
  }

  update(src: string, final: boolean): Step {
    const rest = src.slice(this._row);
    const tokens = parse(this._head + rest, envOf(this._env));
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
    this._trailer.show(this.nodes, end === undefined ? tokens.slice(tableEnd) : [], this._env);
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
    return fragmentIn(renderTokens(tokens.slice(rows[0]![0], rows.at(-1)![1] + 1), envOf(this._env), false), 'tbody');
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
