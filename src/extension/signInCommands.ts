/** The palette's Pi: Sign In or Add a Model Provider and Pi: Sign Out: a quick pick of providers, then the chat's `ModelSetup`. */

import * as vscode from 'vscode';
import { CUSTOM_PROVIDER } from '../shared/modelCatalog.ts';
import { plainNotificationText } from '../shared/notificationText.ts';
import type { SignInMethod } from '../shared/wire/webviewProtocol.ts';
import type { ModelSetup } from './modelSetup.ts';
import { errorText, type PiClient } from './piClient.ts';

/** `target`: the chat a command run with these arguments acts on (its client and its model setup). */
export function registerSignInCommands(target: (args: readonly unknown[]) => { client: PiClient; models: ModelSetup } | undefined): vscode.Disposable[] {
  const fail = (err: unknown) => void vscode.window.showErrorMessage(plainNotificationText(vscode.l10n.t('Pi: {0}', errorText(err))));
  return [
    vscode.commands.registerCommand('piPanel.signIn', async (...args: unknown[]) => {
      const chat = target(args);
      if (!chat) return;
      try {
        const { providers } = await chat.client.ask('providers', null);
        type Item = vscode.QuickPickItem & { provider: string; method: SignInMethod };
        const items: Item[] = [
          { label: vscode.l10n.t('Custom OpenAI-compatible endpoint (Ollama, LM Studio, vLLM, a proxy)'), provider: CUSTOM_PROVIDER, method: 'custom' },
          ...providers.flatMap((p): Item[] => [
            ...(p.oauth ? [{ label: p.name, description: vscode.l10n.t('Sign in'), provider: p.id, method: 'oauth' as const }] : []),
            ...(p.apiKey ? [{ label: p.name, description: vscode.l10n.t('Enter API key'), provider: p.id, method: 'apiKey' as const }] : []),
          ]),
        ];
        const pick = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Pi: sign in'), matchOnDescription: true });
        if (pick) await chat.models.signIn(pick.provider, pick.method);
      } catch (err) {
        fail(err);
      }
    }),
    vscode.commands.registerCommand('piPanel.signOut', async (...args: unknown[]) => {
      const chat = target(args);
      if (!chat) return;
      try {
        const { signedIn } = await chat.client.ask('modelCatalog', null);
        if (!signedIn.length) {
          void vscode.window.showInformationMessage(vscode.l10n.t('Pi: no provider has a key or sign-in stored by Pi.'));
          return;
        }
        const pick = await vscode.window.showQuickPick(
          signedIn.map((p) => ({ label: p.name, description: p.id, provider: p.id })),
          { title: vscode.l10n.t('Pi: sign out of a provider') },
        );
        if (pick) await chat.models.signOut(pick.provider);
      } catch (err) {
        fail(err);
      }
    }),
  ];
}
