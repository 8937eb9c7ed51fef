/** Tiny DOM helpers. Every write checks the current value first, so an unchanged render causes no mutation. */

import { isActionOf, type Action, type ActionGroup, type ActionOf } from './actions.ts';

// `data-action` takes only a declared action: a misspelled one does not compile.
type Attrs = Readonly<Record<string, string | number | boolean | undefined>> & { readonly 'data-action'?: Action };

/** Creates an element with attributes (`true` = empty attribute, `false`/`undefined` = absent) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? '' : String(v));
  }
  if (children.length) el.append(...children);
  return el;
}

/** Sets (or, with `undefined`, removes) an attribute only when it differs. */
export function setAttr(el: Element, name: string, value: string | number | undefined): void {
  if (value === undefined) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
    return;
  }
  const v = String(value);
  if (el.getAttribute(name) !== v) el.setAttribute(name, v);
}

export function setClass(el: Element, name: string, on: boolean): void {
  if (el.classList.contains(name) !== on) el.classList.toggle(name, on);
}

export function setHidden(el: HTMLElement, hidden: boolean): void {
  if (el.hidden !== hidden) el.hidden = hidden;
}

/** Sets an element's text, appending to its text node when the new text only extends the old one. */
export function setText(el: Element, text: string): void {
  const first = el.firstChild;
  if (first && first === el.lastChild && first.nodeType === Node.TEXT_NODE) {
    const node = first as Text;
    const old = node.data;
    if (old === text) return;
    if (text.length > old.length && text.startsWith(old)) {
      node.appendData(text.slice(old.length));
      return;
    }
    node.data = text;
    return;
  }
  if (!first && text === '') return;
  el.textContent = text;
}

/** The nearest element at or above `target` that carries a `data-action`, with its action when that is one of `group`'s. */
export function closestAction<G extends ActionGroup>(target: EventTarget | null, group: G): { readonly el: Element; readonly action: ActionOf<G> } | undefined {
  const el = (target as Element).closest('[data-action]');
  const action = el?.getAttribute('data-action');
  return el && isActionOf(group, action) ? { el, action } : undefined;
}
