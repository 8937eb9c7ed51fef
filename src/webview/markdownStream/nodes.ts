/** DOM work the unit-wise blocks share: sanitized fragments in their parent, the next block's start shown after a block, in-place replacement, work after the frame. */

import { renderTokens, sanitize, type MdEnv, type Token } from '../markdown.ts';
import { envOf } from './openBlock.ts';

/** Sanitized nodes of HTML that belongs inside `parent` (a paragraph, a list or a table body). */
export function fragmentIn(html: string, parent: 'p' | 'list' | 'tbody'): ChildNode[] {
  if (parent !== 'tbody') return Array.from(sanitize(html).childNodes);
  // Table rows outside a table are dropped by the HTML parser: sanitize them inside one.
  const body = sanitize(`<table><tbody>${html}</tbody></table>`).querySelector('tbody');
  return body ? Array.from(body.childNodes) : [];
}

/**
 * The start of the next block, shown after a block while its first line is unfinished (it could still
 * join the block: "1." after a list item can become "1.x", a lazy continuation line).
 */
export class Trailer {
  private _nodes: ChildNode[] = [];

  /** Shows `tokens` after the block's last node, in place of what it showed; no tokens, nothing. */
  show(block: readonly ChildNode[], tokens: Token[], env: Required<MdEnv>): void {
    this.remove();
    if (!tokens.length) return;
    this._nodes = Array.from(sanitize(renderTokens(tokens, envOf(env), false)).childNodes);
    block.at(-1)?.after(...this._nodes);
  }

  remove(): void {
    for (const n of this._nodes) n.remove();
    this._nodes = [];
  }
}

/** A list's or table body's children, without the newline markdown-it writes first inside it. */
export function childrenAfterLead(el: Element): ChildNode[] {
  return Array.from(el.childNodes).filter((n, i) => !(i === 0 && n.nodeType === Node.TEXT_NODE));
}

/**
 * Puts `fresh` where `old` is. An item or row that is still there is updated in place (its children), and
 * the rest goes in as one fragment: in a long list or table, every insertion or removal of an item costs
 * the browser work across all its siblings.
 */
export function replaceNodes(parent: Element, old: ChildNode[], fresh: ChildNode[]): ChildNode[] {
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
export function afterFrame(el: Element, attr: 'data-lines' | 'data-rows' | 'data-highlight', fn: () => void): void {
  el.setAttribute(attr, 'pending');
  setTimeout(() => {
    el.removeAttribute(attr);
    fn();
  }, 0);
}
