/** The first run's commands: signing in to a provider or adding one, signing out, and what the model picker lists. */

import { CUSTOM_PROVIDER } from '../shared/modelCatalog.ts';
import type { CommandHandlers } from '../shared/wire/commands.ts';
import type { LoginResult } from '../shared/wire/workerProtocol.ts';
import type { AgentSessionLike } from './agentSession.ts';
import { isEndpointUrl, modelCatalog, signInProviders, writeCustomProvider } from './providerAuth.ts';
import type { ProviderAuth } from './providerLogin.ts';
import type { WorkerContext } from './workerContext.ts';

/** What the provider commands need besides the worker context and Pi's login flows. */
export interface ProviderTarget extends WorkerContext {
  /** Credentials changed: a session that had no usable model opens again. */
  modelsChanged(): Promise<void>;
  /** The open session found no model with credentials. */
  noModel(): boolean;
}

/** The commands of the table (`COMMANDS`) about providers and their models. */
export function providerCommands(
  auth: ProviderAuth,
  target: ProviderTarget,
): CommandHandlers<'login' | 'authAnswer' | 'addCustomProvider' | 'logout' | 'modelCatalog' | 'providers'> {
  /** Signs in on the session's model runtime; a success reopens a session that had no usable model. */
  const signIn = async (login: (s: AgentSessionLike) => Promise<LoginResult>): Promise<LoginResult> => {
    const result = await login(await target.session());
    if (result.ok) await target.modelsChanged();
    return result;
  };
  return {
    login: ({ provider, type }) => signIn((s) => auth.login(s.modelRuntime, provider, type)),
    authAnswer: async ({ id, value }) => {
      auth.answer(id, value);
    },
    addCustomProvider: ({ baseUrl, modelId }) =>
      signIn(async (s) => {
        if (!isEndpointUrl(baseUrl)) return { ok: false, message: `Not an http(s) URL: ${baseUrl}` };
        writeCustomProvider(target.agentDir(), baseUrl, modelId);
        // Pi reads models.json again, as opening its /model does.
        await s.modelRuntime.refresh({ allowNetwork: false });
        return auth.login(s.modelRuntime, CUSTOM_PROVIDER, 'api_key');
      }),
    logout: async ({ provider }) => {
      await (await target.session()).modelRuntime.logout(provider);
      await target.modelsChanged();
    },
    modelCatalog: async () => modelCatalog(await target.session(), target.noModel()),
    providers: async () => ({ providers: signInProviders((await target.session()).modelRuntime) }),
  };
}
