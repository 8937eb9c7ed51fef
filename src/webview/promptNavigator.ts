/**
 * The prompt navigator: Alt+Up and Alt+Down move to the previous and next of the user's own messages (paging
 * older rows in at the top), and a small outline of the prompts the view holds jumps to one.
 */

import type { TranscriptState } from '../shared/transcript/rows.ts';
import { DirectAction } from './actions.ts';
import { iconButton } from './components.ts';
import { h } from './dom.ts';
import { revealRow } from './findBox.ts';
import { t } from './l10n.ts';

/** A prompt's first characters in the outline. */
const OUTLINE_CHARS = 80;
/** How far (px) a row may sit from the top of the view and still count as the one shown there. */
const SLACK_PX = 4;

/** What the navigator needs of the view. */
export interface NavigatorTargets {
  readonly conversation: HTMLElement;
  readonly scroller: HTMLElement;
  /** The rows the view holds. */
  state(): TranscriptState;
  /** Shows the next older rows; false when there are none. */
  pageEarlier(): Promise<boolean>;
}

/** The outline's toggle (`button`), the outline (`el`) and the moves between prompts. */
export class PromptNavigator {
  readonly button: HTMLButtonElement;
  readonly el: HTMLElement;
  private readonly _t: NavigatorTargets;
  private readonly _list: HTMLElement;

  constructor(targets: NavigatorTargets) {
    this._t = targets;
    this.button = iconButton('☰', t('Your prompts'), DirectAction.TogglePromptOutline, {
      class: 'btn btn-icon prompt-outline-toggle',
      'aria-expanded': 'false',
    });
    this._list = h('ol', { class: 'prompt-outline-list' });
    this.el = h('nav', { class: 'prompt-outline', 'data-testid': 'prompt-outline', 'aria-label': t('Your prompts'), hidden: true }, this._list);
    this.button.addEventListener('click', () => this.toggleOutline());
    this._list.addEventListener('click', (e) => {
      const item = (e.target as Element).closest('[data-prompt-id]');
      if (!item) return;
      this.toggleOutline(false);
      void this.jumpTo(Number(item.getAttribute('data-prompt-id')));
    });
    this.el.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      e.stopPropagation();
      this.toggleOutline(false);
      this.button.focus();
    });
  }

  /** Shows (or hides) the outline of the prompts the view holds, newest last. */
  toggleOutline(open = this.el.hidden): void {
    this.el.hidden = !open;
    this.button.setAttribute('aria-expanded', String(open));
    if (!open) return;
    const items = this._t
      .state()
      .messages.filter((m) => m.role === 'user')
      .map((m) => {
        const text = m.blocks
          .map((b) => b?.text ?? '')
          .join(' ')
          .replace(/\s+/g, ' ')
          .trim();
        const label = text.length > OUTLINE_CHARS ? `${text.slice(0, OUTLINE_CHARS)}…` : text;
        return h('li', {}, h('button', { type: 'button', class: 'prompt-outline-item', 'data-prompt-id': m.id }, label || t('(image)')));
      });
    this._list.replaceChildren(...items);
    (this._list.lastElementChild?.querySelector('button') ?? this.button).focus();
  }

  /** Scrolls to the previous (-1) or next (1) user message from what the view shows at its top. */
  async step(by: 1 | -1): Promise<void> {
    for (;;) {
      const top = this._t.scroller.getBoundingClientRect().top;
      const rows = Array.from(this._t.conversation.querySelectorAll<HTMLElement>('[data-role="user"]'));
      const target =
        by < 0 ? rows.filter((r) => r.getBoundingClientRect().top < top - SLACK_PX).at(-1) : rows.find((r) => r.getBoundingClientRect().top > top + SLACK_PX);
      if (target) return show(target);
      if (by > 0 || !(await this._t.pageEarlier())) return;
    }
  }

  /** Scrolls to the user message with row id `id`, paging it in if it is above. */
  async jumpTo(id: number): Promise<void> {
    const row = await revealRow(this._t.conversation, id, () => this._t.pageEarlier());
    if (row) show(row as HTMLElement);
  }
}

/** Puts a user row at the top of the view and the focus on it, so a screen reader reads it. */
function show(row: HTMLElement): void {
  if (!row.hasAttribute('tabindex')) row.setAttribute('tabindex', '-1');
  row.scrollIntoView({ block: 'start' });
  row.focus({ preventScroll: true });
}
