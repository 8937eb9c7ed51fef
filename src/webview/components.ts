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
