/**
 * The model picker: search, favourites, recently used, then the models grouped by provider, each with its context
 * size, price per million tokens, images and thinking; for this chat or as Pi's default; Sign out per provider.
 */

import { formatPrice, formatTokens, modelKey, modelSections, type ModelCatalog, type ModelScope, type ModelView } from '../shared/modelCatalog.ts';
import type { WebviewToHost } from '../shared/wire/webviewProtocol.ts';
import { DirectAction } from './actions.ts';
import { h, setHidden } from './dom.ts';
import { t } from './l10n.ts';

export class ModelPicker {
  readonly el: HTMLElement;
  private readonly _post: (msg: WebviewToHost) => void;
  private readonly _search: HTMLInputElement;
  private readonly _list: HTMLElement;
  private readonly _signOut: HTMLElement;
  private readonly _asDefault: HTMLInputElement;
  private _catalog: ModelCatalog | undefined;
  /** The option Up, Down, Home and End moved to (an index into the listed models); Enter picks it. */
  private _active = 0;

  constructor(post: (msg: WebviewToHost) => void) {
    this._post = post;
    this._search = h('input', {
      type: 'search',
      class: 'model-search',
      'data-testid': 'model-search',
      placeholder: t('Search models'),
      'aria-label': t('Search models'),
      // A combobox: focus stays in the search box while the arrows move through the list (aria-activedescendant).
      role: 'combobox',
      'aria-controls': 'model-list',
      'aria-expanded': 'true',
      'aria-autocomplete': 'list',
    });
    this._asDefault = h('input', { type: 'checkbox', class: 'model-scope', 'data-testid': 'model-scope' });
    this._list = h('div', { class: 'model-list', id: 'model-list', role: 'listbox', 'aria-label': t('Models') });
    this._signOut = h('div', { class: 'model-sign-out' });
    const close = h(
      'button',
      { type: 'button', class: 'btn btn-icon model-close', 'data-action': DirectAction.CloseModelPicker, 'aria-label': t('Close'), title: t('Close') },
      '×',
    );
    this.el = h(
      'div',
      { class: 'model-picker', 'data-testid': 'model-picker', role: 'dialog', 'aria-label': t('Select a model'), hidden: true },
      h('div', { class: 'model-picker-top' }, this._search, close),
      h('label', { class: 'model-scope-label' }, this._asDefault, t('Also the default for new chats (Pi settings)')),
      this._list,
      this._signOut,
    );
    this._search.addEventListener('input', () => {
      this._active = 0;
      this._renderList();
    });
    close.addEventListener('click', () => this.close());
    this.el.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        this.close();
      } else if (e.target === this._search && e.key in MOVES) {
        e.preventDefault();
        this._moveTo(MOVES[e.key]!(this._active, this._options().length));
      } else if (e.key === 'Enter' && e.target === this._search) {
        e.preventDefault();
        const model = this._options()[this._active]?.getAttribute('data-model');
        if (model) this._pick(model);
      }
    });
    // A click elsewhere closes it, as VS Code's own pickers do; the header's model button toggles it through the host.
    document.addEventListener('mousedown', (e) => {
      const target = e.target as Element | null;
      if (this.isOpen && target && !this.el.contains(target) && !target.closest?.('[data-action="select-model"]')) this.close();
    });
    this.el.addEventListener('click', (e) => {
      const target = e.target as Element | null;
      const star = target?.closest?.('[data-favourite]');
      if (star) {
        const model = star.getAttribute('data-favourite')!;
        return this._post({ type: 'favouriteModel', model, on: star.getAttribute('aria-pressed') !== 'true' });
      }
      const out = target?.closest?.('[data-sign-out]');
      if (out) {
        this.close();
        return this._post({ type: 'signOut', provider: out.getAttribute('data-sign-out')! });
      }
      const item = target?.closest?.('[data-model]');
      if (item) this._pick(item.getAttribute('data-model')!);
    });
  }

  get isOpen(): boolean {
    return !this.el.hidden;
  }

  /** Opens with `catalog`, or refreshes it while open (a star toggled). */
  show(catalog: ModelCatalog): void {
    const opening = !this.isOpen;
    this._catalog = catalog;
    this._renderList();
    this._signOut.replaceChildren(
      ...catalog.signedIn.map((p) =>
        h(
          'button',
          { type: 'button', class: 'btn btn-secondary', 'data-sign-out': p.id, 'aria-label': t('Sign out of {0}', p.name) },
          t('Sign out of {0}', p.name),
        ),
      ),
    );
    setHidden(this.el, false);
    if (opening) {
      this._search.value = '';
      this._active = 0;
      this._renderList();
      this._search.focus();
    }
  }

  close(): void {
    setHidden(this.el, true);
  }

  private _options(): HTMLElement[] {
    return [...this._list.querySelectorAll<HTMLElement>('[data-model]')];
  }

  /** Makes option `index` (clamped to the list) the active one: marked, named by the search box, in sight. */
  private _moveTo(index: number): void {
    const options = this._options();
    this._active = Math.max(0, Math.min(index, options.length - 1));
    options.forEach((o, i) => {
      if (i === this._active) o.setAttribute('data-active', 'true');
      else o.removeAttribute('data-active');
    });
    const active = options[this._active];
    if (active) {
      this._search.setAttribute('aria-activedescendant', active.id);
      active.scrollIntoView?.({ block: 'nearest' });
    } else this._search.removeAttribute('aria-activedescendant');
  }

  private _pick(model: string): void {
    const scope: ModelScope = this._asDefault.checked ? 'default' : 'chat';
    this._post({ type: 'pickModel', model, scope });
    this.close();
  }

  private _renderList(): void {
    const catalog = this._catalog;
    if (!catalog) return;
    const sections = modelSections(catalog, this._search.value);
    const favourites = new Set(catalog.favourites);
    const heading = (key: string, first: ModelView) => (key === 'favourites' ? t('Favourites') : key === 'recent' ? t('Recently used') : first.providerName);
    this._list.replaceChildren(
      ...(sections.length ? [] : [h('p', { class: 'model-empty' }, catalog.models.length ? t('No model matches.') : t('No model has credentials yet.'))]),
      ...sections.flatMap((s) => [
        h('h3', { class: 'model-group' }, heading(s.key, s.models[0]!)),
        ...s.models.map((m) => modelItem(m, modelKey(m) === catalog.current, favourites.has(modelKey(m)))),
      ]),
    );
    // Ids by position: a favourite is listed twice (in Favourites and under its provider).
    this._options().forEach((o, i) => (o.id = `model-option-${i}`));
    this._moveTo(this._active);
  }
}

/** Where each key moves the active option from `at` in a list of `n`. */
const MOVES: Record<string, (at: number, n: number) => number> = {
  ArrowDown: (at) => at + 1,
  ArrowUp: (at) => at - 1,
  Home: () => 0,
  End: (_at, n) => n - 1,
};

function modelItem(m: ModelView, current: boolean, favourite: boolean): HTMLElement {
  const key = modelKey(m);
  const facts = [
    m.contextWindow ? t('{0} context', formatTokens(m.contextWindow)) : undefined,
    m.price ? t('{0} in / {1} out per M tokens', formatPrice(m.price.input), formatPrice(m.price.output)) : undefined,
    m.images ? t('images') : undefined,
    m.thinking ? t('thinking') : undefined,
  ].filter((f): f is string => f !== undefined);
  return h(
    'div',
    { class: 'model-row' },
    h(
      'button',
      { type: 'button', class: 'model-item', role: 'option', 'data-model': key, 'aria-selected': String(current), title: key },
      h('span', { class: 'model-name' }, m.name, current ? ` ✓` : ''),
      h('span', { class: 'model-facts' }, `${key} · ${facts.join(' · ')}`),
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'model-star',
        'data-favourite': key,
        'aria-pressed': String(favourite),
        'aria-label': favourite ? t('Remove {0} from favourites', m.name) : t('Add {0} to favourites', m.name),
        title: favourite ? t('Remove from favourites') : t('Add to favourites'),
      },
      favourite ? '★' : '☆',
    ),
  );
}
