/** The unit-wise renderer of a list: finished items stay, the open item is rendered again. */

import { parse, renderTokens, type MdEnv, type Token } from '../markdown.ts';
import { lineDone, lineOffset, topLevelStarts } from './lines.ts';
import { childrenAfterLead, fragmentIn, replaceNodes, Trailer } from './nodes.ts';
import { envOf, UnitBlock, type Step } from './openBlock.ts';

/**
 * A list: its items are rendered one by one; finished items stay, the open (last) item is rendered again.
 * The window parsed each frame is a stand-in first item plus the open item, whose paragraph tells whether
 * the list is loose. When that changes, the whole list is rendered again, once.
 */
export class ListBlock extends UnitBlock {
  readonly refs = true;
  private readonly _list: HTMLElement;
  private readonly _env: Required<MdEnv>;
  /** Start of the open item's first line. */
  private _item: number;
  private _tail: ChildNode[];
  private _committed = 0;
  private readonly _trailer = new Trailer();
  private _committedLoose = false;
  private _renderedLoose = false;

  constructor(start: number, tail: string, nodes: ChildNode[], list: HTMLElement, env: Required<MdEnv>) {
    super(nodes);
    this._list = list;
    this._env = env;
    this._item = start;
    // All of the list is the open part until the first update commits its finished items.
    this._tail = childrenAfterLead(list);
  }

  override drop(): void {
    this._trailer.remove();
  }

  update(src: string, final: boolean): Step {
    const rest = src.slice(this._item);
    // A stand-in item just like the open one (same indent and marker), so the open item is its sibling.
    const marker = /^( {0,3})([-*+]|\d{1,9}([.)]))/.exec(rest);
    if (!marker) return 'reset';
    const window = `${marker[1]}${marker[3] ? `1${marker[3]}` : marker[2]} x\n${rest}`;
    const tokens = parse(window, envOf(this._env));
    const starts = topLevelStarts(tokens);
    const listOpen = tokens[0];
    if (!listOpen || !/list_open$/.test(listOpen.type)) return 'reset';
    const listEnd = starts[1]?.index ?? tokens.length;
    let end: number | undefined;
    if (starts.length >= 2) {
      const line = starts[1]!.line - 1;
      if (final || lineDone(rest, line)) end = this._item + lineOffset(rest, line);
    }
    this._trailer.show(this.nodes, end === undefined ? tokens.slice(listEnd) : [], this._env);
    const items = itemRanges(tokens, listEnd);
    if (items.length < 1) return 'reset';
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
    return fragmentIn(renderTokens(slice, envOf(this._env), highlight), 'list');
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
