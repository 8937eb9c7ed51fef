/**
 * Our own small component module. Buttons and text areas are plain elements styled with VS Code's
 * theme variables (media/chat.css); `@vscode/webview-ui-toolkit` is archived upstream and its web
 * components need constructable styles, so the rest of the view depends only on these functions.
 */

import type { Action } from './actions.ts';
import { h } from './dom.ts';

export type ButtonKind = 'primary' | 'secondary' | 'icon' | 'link';

/** More attributes for a button; its action is the `action` argument, never one of these. */
export type ButtonAttrs = Readonly<Record<string, string | undefined>> & { readonly 'data-action'?: never };

/** A button that carries its intent in `data-action`; clicks are handled by delegation. */
export function button(label: string, action: Action, kind: ButtonKind = 'secondary', extra: ButtonAttrs = {}): HTMLButtonElement {
  const b = h('button', { type: 'button', class: `btn btn-${kind}`, 'data-action': action, ...extra });
  b.textContent = label;
  return b;
}

/** An icon-only button: the glyph is decorative, the label is what assistive technology reads. */
export function iconButton(glyph: string, label: string, action: Action, extra: ButtonAttrs = {}): HTMLButtonElement {
  const b = h('button', { type: 'button', class: 'btn btn-icon', 'data-action': action, 'aria-label': label, title: label, ...extra });
  b.append(h('span', { 'aria-hidden': 'true' }, glyph));
  return b;
}

/**
 * An icon button drawn with VS Code's icon font (`codicon`: a name such as `diff` or `discard`). Its tooltip is
 * its accessible name, so what a sighted user reads on hover and what a screen reader says are the same words
 * in every language.
 */
export function codiconButton(codicon: string, label: string, action: Action, extra: ButtonAttrs = {}): HTMLButtonElement {
  const b = h('button', { type: 'button', class: 'btn btn-icon codicon-button', 'data-action': action, ...extra, 'aria-label': label, title: label });
  b.append(h('span', { class: `codicon codicon-${codicon}`, 'aria-hidden': 'true' }));
  return b;
}

/** Sets an icon button's name and tooltip together, so they never drift apart. */
export function nameIconButton(b: HTMLElement, label: string): void {
  if (b.getAttribute('aria-label') !== label) b.setAttribute('aria-label', label);
  if (b.getAttribute('title') !== label) b.setAttribute('title', label);
}

/** A row of icon buttons, shown while its owner is hovered or holds focus (media/chat.css `.toolbar`). */
export function toolbar(...buttons: HTMLElement[]): HTMLElement {
  return h('div', { class: 'toolbar' }, ...buttons);
}

/** Text only a screen reader sees. */
export function srOnly(text: string): HTMLSpanElement {
  return h('span', { class: 'sr-only' }, text);
}

/**
 * Marks an element that may scroll (code, tool output, thinking) as a named region the keyboard can
 * focus, so it can be scrolled without a mouse and a screen reader says what it is.
 */
export function scrollRegion<E extends HTMLElement>(el: E, label: string): E {
  el.setAttribute('tabindex', '0');
  el.setAttribute('role', 'region');
  el.setAttribute('aria-label', label);
  el.classList.add('scroll-region');
  return el;
}
