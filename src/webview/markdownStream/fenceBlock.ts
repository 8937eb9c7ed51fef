/** The unit-wise renderer of a code fence: lines appended as text, highlighted once closed. */

import { markFocus, restoreFocus } from '../a11y.ts';
import { highlights, renderHtml, sanitize } from '../markdown.ts';
import { finishedEnd, finishedLines } from './lines.ts';
import { afterFrame } from './nodes.ts';
import { UnitBlock, type Step } from './openBlock.ts';

/**
 * A code fence: its lines are appended as plain text; when the closing fence arrives it is highlighted
 * once, after the frame, by rendering the finished fence again.
 */
export class FenceBlock extends UnitBlock {
  readonly refs = false;
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
    super(nodes);
    this._start = start;
    this._content = start + opener.length;
    this._checked = this._content;
    this._info = info;
    const marker = opener[0] === '`' ? '`' : '~';
    const run = /^[`~]+/.exec(opener)![0].length;
    this._close = new RegExp(`^ {0,3}\\${marker}{${run},}[ \\t]*$`);
    this._block = block;
    this._text = document.createTextNode(code.textContent ?? '');
    this._shown = this._text.length;
    code.replaceChildren(this._text);
  }

  update(src: string, final: boolean): Step {
    const done = finishedEnd(src, final);
    let close = -1;
    let end = -1;
    for (const line of finishedLines(src, this._checked, done)) {
      if (this._close.test(line.text)) {
        close = line.at;
        end = Math.min(line.stop + 1, src.length);
        break;
      }
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
