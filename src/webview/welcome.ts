/** The first run's welcome: shown instead of an error while no model is usable, one row per provider with Sign in / Enter API key. */

import { CUSTOM_PROVIDER, type ProviderView } from '../shared/modelCatalog.ts';
import type { SessionInfoView, SignInMethod, WebviewToHost } from '../shared/wire/webviewProtocol.ts';
import { h, setHidden } from './dom.ts';
import { t } from './l10n.ts';

export class Welcome {
  readonly el: HTMLElement;
  private readonly _list: HTMLElement;
  private readonly _filter: HTMLInputElement;
  private _providers: readonly ProviderView[] | undefined;

  constructor(post: (msg: WebviewToHost) => void) {
    this._filter = h('input', {
      type: 'search',
      class: 'welcome-filter',
      'data-testid': 'welcome-filter',
      placeholder: t('Filter providers'),
      'aria-label': t('Filter providers'),
    });
    this._list = h('ul', { class: 'welcome-providers' });
    this.el = h(
      'section',
      { class: 'welcome', 'data-testid': 'welcome', hidden: true, 'aria-label': t('Welcome to Pi') },
      h('h2', {}, t('Welcome to Pi')),
      h(
        'p',
        {},
        t('Pi needs a model to answer. Sign in to a provider or enter its API key: Pi keeps it in auth.json in its agent folder, as the pi CLI does.'),
      ),
      this._filter,
      this._list,
    );
    this._filter.addEventListener('input', () => this._applyFilter());
    this._list.addEventListener('click', (e) => {
      const button = (e.target as Element | null)?.closest?.('button[data-provider]');
      const provider = button?.getAttribute('data-provider');
      const method = button?.getAttribute('data-method') as SignInMethod | null;
      if (provider && method) post({ type: 'signIn', provider, method });
    });
  }

  /** Shows the welcome while the session has no usable model; hides it once one is. */
  render(session: SessionInfoView): void {
    const show = session.ready && session.noModel === true;
    setHidden(this.el, !show);
    if (!show || session.providers === this._providers) return;
    this._providers = session.providers;
    const rows = popularFirst(session.providers ?? []).map((p) =>
      providerRow(p.name, p.id, [...(p.oauth ? [[t('Sign in'), 'oauth'] as const] : []), ...(p.apiKey ? [[t('Enter API key'), 'apiKey'] as const] : [])]),
    );
    // After the well-known providers, before the long tail: a local model is a common first choice.
    const popular = Math.min(rows.length, (session.providers ?? []).filter((p) => POPULAR.includes(p.id)).length);
    rows.splice(
      popular,
      0,
      providerRow(t('Custom OpenAI-compatible endpoint (Ollama, LM Studio, vLLM, a proxy)'), CUSTOM_PROVIDER, [[t('Add endpoint'), 'custom']]),
    );
    this._list.replaceChildren(...rows);
    this._applyFilter();
  }

  private _applyFilter(): void {
    const words = this._filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    for (const li of Array.from(this._list.children) as HTMLElement[]) {
      const hay = (li.getAttribute('data-search') ?? '').toLowerCase();
      setHidden(li, !words.every((w) => hay.includes(w)));
    }
  }
}

/** The providers most people start with, first in the welcome; the rest follow in Pi's order. */
const POPULAR = ['anthropic', 'openai', 'github-copilot', 'google', 'openrouter', 'xai', 'mistral', 'groq', 'deepseek'];

function popularFirst(providers: readonly ProviderView[]): ProviderView[] {
  const rank = (p: ProviderView) => (POPULAR.includes(p.id) ? POPULAR.indexOf(p.id) : POPULAR.length);
  return [...providers].sort((a, b) => rank(a) - rank(b));
}

function providerRow(name: string, id: string, buttons: readonly (readonly [string, SignInMethod])[]): HTMLElement {
  return h(
    'li',
    { class: 'welcome-provider', 'data-search': `${name} ${id}` },
    h('span', { class: 'welcome-provider-name' }, name),
    ...buttons.map(([label, method]) =>
      h(
        'button',
        {
          type: 'button',
          class: method === 'oauth' ? 'btn btn-primary' : 'btn btn-secondary',
          'data-provider': id,
          'data-method': method,
          'aria-label': `${label}: ${name}`,
        },
        label,
      ),
    ),
  );
}
