/** Chips in the chat: the composer's strip of code handed to Pi (removable), and the user row's chips read back from the prompt. */

import { chipRef, chipSize, splitChips, type CodeChip } from '../shared/chips.ts';
import { showInvisibles } from '../shared/visibleText.ts';
import { actionSelector, DirectAction, type ActionOf } from './actions.ts';
import { iconButton } from './components.ts';
import { h, setHidden } from './dom.ts';
import type { TextBody } from './textBody.ts';
import { t } from './l10n.ts';

const KIND_LABEL: Record<CodeChip['kind'], string> = {
  selection: t('Selection'),
  file: t('File'),
  problems: t('Problems'),
  terminal: t('Terminal'),
  changes: t('Changes'),
  folder: t('Folder'),
};

/** What the tooltip previews of a chip's text (the expanded chip shows all of it). */
const HOVER_LINES = 12;
const HOVER_CHARS = 800;

/** A chip's name (a path, a terminal's name) as one line: bidi controls, tag characters and line breaks shown. */
const shownRef = (ref: string): string => showInvisibles(ref, { oneLine: true });

/** The chip's tooltip: what it is, its size, and the start of exactly what it sends, invisible characters shown. */
function chipTitle(c: CodeChip): string {
  const lines = c.text.split('\n');
  let preview = lines.slice(0, HOVER_LINES).join('\n');
  if (preview.length > HOVER_CHARS) preview = preview.slice(0, HOVER_CHARS);
  const more = preview.length < c.text.replace(/\n$/, '').length ? '\n…' : '';
  return t(
    '{0}: {1}\n{2} sent (click to see all of it)\n\n{3}{4}',
    KIND_LABEL[c.kind],
    shownRef(c.detail ?? chipRef(c)),
    chipSize(c),
    showInvisibles(preview),
    more,
  );
}

/**
 * The composer's chips: added by the host (Add Selection / Add File / `@` / a drop / Ask Pi to Fix), removed by their ×
 * button. Each shows its size, previews its text on hover, and its label expands the whole text it will send.
 */
export class ChipStrip {
  readonly el: HTMLElement;
  private readonly _list: HTMLElement;
  private readonly _preview: HTMLElement;
  private _chips: CodeChip[] = [];
  /** The ref of the chip whose text is shown in full. */
  private _expanded: string | undefined;
  private readonly _changed: () => void;
  /** Focuses what comes after the chips (the composer): where focus goes once the last chip is removed. */
  private readonly _home: () => void;

  /** `changed`: the chips changed; `home`: focus the composer. */
  constructor(changed: () => void, home: () => void = () => {}) {
    this._changed = changed;
    this._home = home;
    this._list = h('div', {
      class: 'chips',
      'data-testid': 'composer-chips',
      role: 'list',
      'aria-label': t('Code attached to the next message'),
      hidden: true,
    });
    this._preview = h('pre', { class: 'chip-preview', 'data-testid': 'chip-preview', tabindex: 0, hidden: true });
    this.el = h('div', { class: 'chip-strip' }, this._list, this._preview);
    this._list.addEventListener('click', (e) => {
      const btn = (e.target as Element).closest(`${actionSelector(DirectAction.RemoveChip)}, ${actionSelector(DirectAction.ExpandChip)}`);
      if (!btn) return;
      const i = Number(btn.getAttribute('data-index'));
      // The strip is drawn again: focus goes to the same chip, or the next, never to the page body.
      const hadFocus = btn.contains(document.activeElement);
      if (btn.getAttribute('data-action') === DirectAction.ExpandChip) {
        const ref = chipRef(this._chips[i]!);
        this._expanded = this._expanded === ref ? undefined : ref;
        this._render();
        if (hadFocus) this._focus(DirectAction.ExpandChip, i);
        return;
      }
      this._chips.splice(i, 1);
      this._render();
      this._changed();
      if (hadFocus) this._focus(DirectAction.RemoveChip, Math.min(i, this._chips.length - 1));
    });
    // Escape closes an open preview (and only that: it must not also cancel the run).
    this.el.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape' || this._expanded === undefined || e.isComposing) return;
      const i = this._chips.findIndex((c) => chipRef(c) === this._expanded);
      e.preventDefault();
      e.stopPropagation();
      this._expanded = undefined;
      this._render();
      this._focus(DirectAction.ExpandChip, i);
    });
  }

  /** Focuses chip `i`'s button for `action`, or the composer when there is no such chip. */
  private _focus(action: ActionOf<typeof DirectAction>, i: number): void {
    const b = i >= 0 ? this._list.querySelector<HTMLElement>(`${actionSelector(action)}[data-index="${i}"]`) : null;
    if (b) b.focus();
    else this._home();
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
    this._expanded = undefined;
    this._render();
  }

  private _render(): void {
    setHidden(this._list, this._chips.length === 0);
    this._list.replaceChildren(
      ...this._chips.map((c, i) => {
        const ref = chipRef(c);
        return h(
          'span',
          { class: 'chip', role: 'listitem', 'data-chip': ref, 'data-chip-kind': c.kind, title: chipTitle(c) },
          h(
            'button',
            {
              type: 'button',
              class: 'chip-label',
              'data-action': DirectAction.ExpandChip,
              'data-index': String(i),
              'aria-expanded': String(this._expanded === ref),
              'aria-label': t('{0} {1}, {2}: show what is sent', KIND_LABEL[c.kind], shownRef(ref), chipSize(c)),
            },
            shownRef(ref),
          ),
          h('span', { class: 'chip-size', 'data-chip-size': String(c.text.length) }, chipSize(c)),
          iconButton('×', t('Remove {0}', shownRef(ref)), DirectAction.RemoveChip, { 'data-index': String(i) }),
        );
      }),
    );
    const open = this._chips.find((c) => chipRef(c) === this._expanded);
    if (!open) this._expanded = undefined;
    setHidden(this._preview, !open);
    // The text the context block will carry, its invisible characters (bidi controls, tag characters) shown.
    this._preview.textContent = open ? showInvisibles(open.text) : '';
    if (open) this._preview.setAttribute('data-chip', chipRef(open));
    else this._preview.removeAttribute('data-chip');
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
      chips.replaceChildren(...refs.map((r) => h('span', { class: 'chip', 'data-chip': r }, h('span', { class: 'chip-label' }, shownRef(r)))));
      text.textContent = rest;
    },
  };
}
