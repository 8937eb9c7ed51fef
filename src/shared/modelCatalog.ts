/** The first run's vocabulary: providers one can sign in to, the model picker's catalog, and how the picker groups and labels it. */

/** A provider Pi knows, as the welcome offers it. */
export interface ProviderView {
  readonly id: string;
  readonly name: string;
  /** It signs in with an account (Pi's OAuth flow). */
  readonly oauth: boolean;
  /** It takes an API key typed in. */
  readonly apiKey: boolean;
}

/** A model with credentials, as the picker lists it. */
export interface ModelView {
  readonly provider: string;
  readonly providerName: string;
  readonly id: string;
  readonly name: string;
  readonly contextWindow?: number;
  /** USD per million input and output tokens, when Pi knows them. */
  readonly price?: { readonly input: number; readonly output: number };
  readonly images: boolean;
  readonly thinking: boolean;
}

/** What the picker shows: the models, the chat's one, the user's favourites and recent picks (`provider/id`), the providers to sign out of. */
export interface ModelCatalog {
  readonly models: readonly ModelView[];
  readonly current?: string;
  readonly favourites: readonly string[];
  readonly recent: readonly string[];
  readonly signedIn: readonly { readonly id: string; readonly name: string }[];
}

/** Where a picked model applies: this chat's session, or Pi's default for new sessions (settings.json). */
export type ModelScope = 'chat' | 'default';

/** The provider id the panel gives a custom OpenAI-compatible endpoint in models.json. */
export const CUSTOM_PROVIDER = 'custom';

/** A model's `provider/id`. */
export const modelKey = (m: { readonly provider: string; readonly id: string }): string => `${m.provider}/${m.id}`;

/** One heading of the picker and its models. */
export interface ModelSection {
  /** `favourites`, `recent`, or a provider id. */
  readonly key: string;
  readonly models: readonly ModelView[];
}

/** Whether a model matches the search: every word in its name, id or provider, in any case. */
function matches(m: ModelView, query: string): boolean {
  const hay = `${m.name} ${m.id} ${m.provider} ${m.providerName}`.toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => hay.includes(w));
}

/**
 * The picker's sections for `query`: favourites, recently used, then one per provider in catalog order; each model
 * once (where it shows first), so its `data-model` names one item; empty sections left out.
 */
export function modelSections(catalog: ModelCatalog, query: string): ModelSection[] {
  const shown = catalog.models.filter((m) => matches(m, query));
  const byKey = new Map(shown.map((m) => [modelKey(m), m]));
  const placed = new Set<string>();
  const pick = (keys: readonly string[]) =>
    keys.flatMap((k) => {
      const m = byKey.get(k);
      if (!m || placed.has(k)) return [];
      placed.add(k);
      return [m];
    });
  const sections: ModelSection[] = [
    { key: 'favourites', models: pick(catalog.favourites) },
    { key: 'recent', models: pick(catalog.recent) },
  ];
  const providers = new Map<string, ModelView[]>();
  for (const m of shown) if (!placed.has(modelKey(m))) providers.set(m.provider, [...(providers.get(m.provider) ?? []), m]);
  for (const [key, models] of providers) sections.push({ key, models });
  return sections.filter((s) => s.models.length > 0);
}

/** The recent list after picking `key`: it goes first, once, and the list keeps `max`. */
export function pushRecent(recent: readonly string[], key: string, max = 5): string[] {
  return [key, ...recent.filter((k) => k !== key)].slice(0, max);
}

/** A token count as the picker shows it: `200K`, `1M`, `32K`. */
export function formatTokens(n: number): string {
  if (n >= 1_000_000) return `${+(n / 1_000_000).toFixed(1)}M`;
  if (n >= 1000) return `${Math.round(n / 1000)}K`;
  return String(n);
}

/** A price per million tokens: `$3`, `$0.15`, `$0.075`. */
export function formatPrice(usd: number): string {
  return `$${+usd.toFixed(3)}`;
}
