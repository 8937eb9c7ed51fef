/** What the first run reads of Pi's providers and models (the welcome's list, the picker's catalog), and the custom endpoint it writes to models.json. */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { CUSTOM_PROVIDER, modelKey, type ModelCatalog, type ModelView, type ProviderView } from '../shared/modelCatalog.ts';
import type { AgentSessionLike } from './agentSession.ts';

type Runtime = AgentSessionLike['modelRuntime'];

/** The providers one can sign in to or give a key, in Pi's order. */
export function signInProviders(runtime: Pick<Runtime, 'getProviders'> | undefined): ProviderView[] {
  const providers = runtime?.getProviders?.() ?? [];
  return providers
    .filter((p) => p.auth.oauth !== undefined || p.auth.apiKey?.login !== undefined)
    .map((p) => ({ id: p.id, name: p.name, oauth: p.auth.oauth !== undefined, apiKey: p.auth.apiKey?.login !== undefined }));
}

/** The picker's catalog of `s`: every model with credentials and the providers with a stored credential (favourites and recent are the host's). */
export async function modelCatalog(s: AgentSessionLike, noModel: boolean): Promise<ModelCatalog> {
  const runtime = s.modelRuntime;
  const names = new Map(runtime.getProviders().map((p) => [p.id, p.name]));
  const models: ModelView[] = (await runtime.getAvailable()).map((m) => ({
    provider: m.provider,
    providerName: names.get(m.provider) ?? m.provider,
    id: m.id,
    name: m.name || m.id,
    ...(m.contextWindow ? { contextWindow: m.contextWindow } : {}),
    ...(m.cost && (m.cost.input || m.cost.output) ? { price: { input: m.cost.input, output: m.cost.output } } : {}),
    images: m.input.includes('image'),
    thinking: m.reasoning === true,
  }));
  const signedIn = (await runtime.listCredentials()).map((c) => ({ id: c.providerId, name: names.get(c.providerId) ?? c.providerId }));
  return { models, ...(s.model && !noModel ? { current: modelKey(s.model) } : {}), favourites: [], recent: [], signedIn };
}

/** Writes (or replaces) the custom OpenAI-compatible provider in `agentDir`'s models.json, keeping every other entry. */
export function writeCustomProvider(agentDir: string, baseUrl: string, modelId: string): void {
  const file = path.join(agentDir, 'models.json');
  let config: { providers?: Record<string, unknown> } = {};
  if (fs.existsSync(file)) {
    const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) config = parsed as typeof config;
  }
  // No `apiKey` here: the key goes to auth.json, which Pi reads first, so models.json holds nothing secret.
  const providers = {
    ...(config.providers ?? {}),
    [CUSTOM_PROVIDER]: { name: 'Custom (OpenAI-compatible)', baseUrl, api: 'openai-completions', models: [{ id: modelId }] },
  };
  fs.mkdirSync(agentDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ ...config, providers }, null, 2) + '\n');
}

/** A base URL the panel accepts for a custom endpoint: http(s) with a host. */
export function isEndpointUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}
