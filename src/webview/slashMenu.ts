/**
 * The slash menu: typing `/` at the start of the composer lists the panel's built-in commands and Pi's
 * (extension commands, prompt templates, skills), filtered as the name is typed. Arrow keys move, Tab
 * completes, Enter completes (and runs a command that takes no argument), Escape closes.
 */

import { filterCommands, type SlashCommand } from '../shared/slashCommands.ts';
import { showInvisibles } from '../shared/visibleText.ts';
import { h, setAttr, setHidden } from './dom.ts';
import { t } from './l10n.ts';

export interface SlashMenuHost {
  /** The menu opened and has no list yet (or a stale one): ask the host for it. */
  requestCommands(): void;
}

/** What a key press in the composer did to the menu. */
export type MenuKey = { readonly kind: 'none' } | { readonly kind: 'handled' } | { readonly kind: 'complete'; readonly text: string; readonly run: boolean };

const SOURCE_LABEL: Record<SlashCommand['source'], string> = { builtin: 'panel', extension: 'extension', prompt: 'prompt', skill: 'skill' };

export class SlashMenu {
  readonly el: HTMLElement;
  private readonly _host: SlashMenuHost;
  private _commands: readonly SlashCommand[] = [];
  private _shown: SlashCommand[] = [];
  private _selected = 0;
  private _open = false;
  /** The query the menu was closed on with Escape: it stays closed until the text changes. */
  private _dismissedFor: string | undefined;
  readonly listId = 'slash-menu-list';

  constructor(host: SlashMenuHost) {
    this._host = host;
    this.el = h('ul', { class: 'slash-menu', 'data-testid': 'slash-menu', id: this.listId, role: 'listbox', 'aria-label': t('Commands'), hidden: true });
  }

  get isOpen(): boolean {
    return this._open;
  }

  /** The id of the highlighted option, for the composer's `aria-activedescendant`. */
  get activeId(): string | undefined {
    return this._open && this._shown.length ? optionId(this._selected) : undefined;
  }

  setCommands(commands: readonly SlashCommand[]): void {
    this._commands = commands;
    if (this._open) this._render(this._query ?? '');
  }

  private _query: string | undefined;

  /** Follows the composer's text: open while it is `/` and a name being typed, closed otherwise. */
  update(text: string): void {
    const m = /^\/(\S*)$/.exec(text);
    if (!m || this._dismissedFor === text) {
      if (!m) this._dismissedFor = undefined;
      this.close();
      return;
    }
    if (!this._open) this._host.requestCommands();
    this._open = true;
    this._query = m[1]!;
    this._selected = 0;
    this._render(this._query);
  }

  close(): void {
    if (!this._open && this.el.hidden) return;
    this._open = false;
    setHidden(this.el, true);
  }

  /** A key pressed in the composer while the menu may be open. */
  onKey(e: KeyboardEvent, text: string): MenuKey {
    if (!this._open) return { kind: 'none' };
    switch (e.key) {
      case 'ArrowDown':
      case 'ArrowUp': {
        if (!this._shown.length) return { kind: 'none' };
        const n = this._shown.length;
        this._selected = (this._selected + (e.key === 'ArrowDown' ? 1 : -1) + n) % n;
        this._highlight();
        return { kind: 'handled' };
      }
      case 'Escape':
        this._dismissedFor = text;
        this.close();
        return { kind: 'handled' };
      case 'Tab':
      case 'Enter': {
        if (e.shiftKey || e.altKey) return { kind: 'none' };
        const c = this._shown[this._selected];
        if (!c) return e.key === 'Tab' ? { kind: 'handled' } : { kind: 'none' };
        this.close();
        // Enter runs a command that needs nothing more; Tab, or a command that takes an argument, waits for it.
        const run = e.key === 'Enter' && !c.args?.startsWith('<');
        return { kind: 'complete', text: run ? `/${c.name}` : `/${c.name} `, run };
      }
      default:
        return { kind: 'none' };
    }
  }

  /** The command of an option the user clicked, if the click was on one. */
  commandAt(target: EventTarget | null): SlashCommand | undefined {
    const li = (target as Element | null)?.closest?.('[data-command]');
    const name = li?.getAttribute('data-command');
    return this._shown.find((c) => c.name === name);
  }

  private _render(query: string): void {
    this._shown = filterCommands(this._commands, query);
    if (this._selected >= this._shown.length) this._selected = 0;
    const items = this._shown.map((c, i) =>
      h(
        'li',
        { id: optionId(i), role: 'option', class: 'slash-item', 'data-command': c.name, 'data-source': c.source, 'aria-selected': 'false' },
        h('span', { class: 'slash-name' }, `/${showInvisibles(c.name, { oneLine: true })}${c.args ? ` ${showInvisibles(c.args, { oneLine: true })}` : ''}`),
        h('span', { class: 'slash-description' }, showInvisibles(c.description ?? '', { oneLine: true })),
        h('span', { class: 'slash-source' }, SOURCE_LABEL[c.source]),
      ),
    );
    if (!items.length)
      items.push(h('li', { class: 'slash-empty', role: 'presentation' }, this._commands.length ? t('No matching command') : t('Loading commands…')));
    this.el.replaceChildren(...items);
    setHidden(this.el, false);
    this._highlight();
  }

  private _highlight(): void {
    this.el.querySelectorAll('[role="option"]').forEach((li, i) => setAttr(li, 'aria-selected', i === this._selected ? 'true' : 'false'));
    this.el.querySelector('[aria-selected="true"]')?.scrollIntoView?.({ block: 'nearest' });
  }
}

function optionId(i: number): string {
  return `slash-option-${i}`;
}
