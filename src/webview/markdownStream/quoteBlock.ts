/** The unit-wise renderer of a block quote: its content streamed into a body of its own inside it. */

import { finishedEnd, finishedLines } from './lines.ts';
import { UnitBlock, type Step } from './openBlock.ts';

/** The body a quote's content streams into (a markdown body inside the `<blockquote>`, sharing the definitions). */
export interface QuoteContent {
  update(text: string, final: boolean): void;
}

/**
 * A block quote: the content of its lines (the `>` marker and one space after it taken off) is streamed
 * into a body of its own inside the `<blockquote>`, so its paragraphs, lists and fences are rendered by
 * units as at the top level. It ends at a blank line. A line without a marker (a lazy continuation, or
 * the quote ending) or a tab after the marker makes it render whole again.
 */
export class QuoteBlock extends UnitBlock {
  readonly refs = true;
  /** The streaming body inside the `<blockquote>`. */
  private readonly _body: QuoteContent;
  /** Start of the first line not yet taken into the content. */
  private _line: number;
  /** The content of the finished lines. */
  private _content = '';

  constructor(start: number, nodes: ChildNode[], body: QuoteContent) {
    super(nodes);
    this._line = start;
    this._body = body;
  }

  update(src: string, final: boolean): Step {
    const done = finishedEnd(src, final);
    for (const line of finishedLines(src, this._line, done)) {
      if (!line.text.trim()) {
        this._body.update(this._content, true);
        return line.at;
      }
      const content = quoteContent(line.text);
      if (content === undefined) return 'reset';
      this._content += line.stop < src.length ? `${content}\n` : content;
      this._line = line.stop + 1;
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
