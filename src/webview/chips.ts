/** Chips in the chat: the composer's strip of code handed to Pi (removable), and the user row's chips read back from the prompt. */

import { chipRef, splitChips, type CodeChip } from '../shared/chips.ts';
import { showBidiControls } from '../shared/bidi.ts';
import { actionSelector, DirectAction } from './actions.ts';
import { iconButton } from './components.ts';
import { h, setHidden } from './dom.ts';
import type { TextBody } from './textBody.ts';

const KIND_LABEL: Record<CodeChip['kind'], string> = { selection: 'Selection', file: 'File', problems: 'Problems' };

/** The composer's chips: added by the host (Add Selection / Add File / `@`), removed by their × button or Backspace. */
export class ChipStrip {
  readonly el: HTMLElement;
  private _chips: CodeChip[] = [];
  private readonly _changed: () => void;

  constructor(changed: () => void) {
    this._changed = changed;
    this.el = h('div', { class: 'chips', 'data-testid': 'composer-chips', role: 'list', 'aria-label': 'Code attached to the next message', hidden: true });
    this.el.addEventListener('click', (e) => {
      const btn = (e.target as Element).closest(actionSelector(DirectAction.RemoveChip));
      if (!btn) return;
      const i = Number(btn.getAttribute('data-index'));
      this._chips.splice(i, 1);
      this._render();
      this._changed();
    });
  }

  get chips(): readonly CodeChip[] {
    return this._chips;
  }

  add(chip: CodeChip): void {
    // The same code twice is once.
    if (this._chips.some((c) => chipRef(c) === chipRef(chip))) return;
    this._chips.push(chip);
    this._render();
    this._changed();
  }

  clear(): void {
    this._chips = [];
    this._render();
  }

  private _render(): void {
    setHidden(this.el, this._chips.length === 0);
    this.el.replaceChildren(
      ...this._chips.map((c, i) =>
        h(
          'span',
          { class: 'chip', role: 'listitem', 'data-chip': chipRef(c), title: `${KIND_LABEL[c.kind]}: ${chipRef(c)}` },
          h('span', { class: 'chip-label' }, showBidiControls(chipRef(c))),
          iconButton('×', `Remove ${chipRef(c)}`, DirectAction.RemoveChip, { 'data-index': String(i) }),
        ),
      ),
    );
  }
}

/** A user row's body: chips for the context blocks the prompt starts with, then the user's words as plain text. */
export function userBody(): TextBody {
  const chips = h('div', { class: 'chips chips-sent', hidden: true });
  const text = h('div', { class: 'plain' });
  const el = h('div', { class: 'user-body' }, chips, text);
  let last: string | undefined;
  return {
    el,
    update(prompt: string) {
      if (prompt === last) return;
      last = prompt;
      const { refs, text: rest } = splitChips(prompt);
      setHidden(chips, refs.length === 0);
      chips.replaceChildren(...refs.map((r) => h('span', { class: 'chip', 'data-chip': r }, h('span', { class: 'chip-label' }, showBidiControls(r)))));
      text.textContent = rest;
    },
  };
}
