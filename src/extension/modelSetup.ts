/**
 * One chat's first run and model choice on the host: the welcome's Sign in / Enter API key / custom endpoint (Pi's
 * sign-in questions in VS Code input boxes, keys typed with `password: true` and handed straight to the worker,
 * which stores them through Pi's AuthStorage), the webview's model picker, and Sign out.
 */

import * as vscode from 'vscode';
import { Disposable } from '../shared/disposable.ts';
import { CUSTOM_PROVIDER, pushRecent, type ModelScope } from '../shared/modelCatalog.ts';
import { plainNotificationText } from '../shared/notificationText.ts';
import type { HostToWebview, SignInMethod } from '../shared/wire/webviewProtocol.ts';
import type { AuthEventView, AuthNotice, AuthPromptView, LoginResult } from '../shared/wire/workerProtocol.ts';
import { errorText, type Logger, type PiClient } from './piClient.ts';

const FAVOURITES = 'piPanel.favouriteModels';
const RECENT = 'piPanel.recentModels';

/** Where the picker's favourites and recent picks are kept: VS Code's global state, for every chat and window. */
export type ModelPrefs = Pick<vscode.Memento, 'get' | 'update'>;

export class ModelSetup extends Disposable {
  private readonly _client: PiClient;
  private readonly _post: (msg: HostToWebview) => void;
  /** Set by the chats' owner once (global state); without it the picker has no favourites or recent picks. */
  prefs: ModelPrefs | undefined;
  private readonly _log: Logger;
  /** The sign-in questions on screen, by the worker's prompt id. */
  private readonly _open = new Map<string, vscode.Disposable>();

  constructor(client: PiClient, post: (msg: HostToWebview) => void, log: Logger) {
    super();
    this._client = client;
    this._post = post;
    this._log = log;
    this._register(client.onDidAuth((n) => this._onAuth(n)));
  }

  /** The welcome's button: Pi's account sign-in, an API key, or a custom OpenAI-compatible endpoint. */
  async signIn(provider: string, method: SignInMethod): Promise<void> {
    let result: LoginResult;
    try {
      if (method === 'custom') {
        const endpoint = await askEndpoint();
        if (!endpoint) return;
        result = await this._client.ask('addCustomProvider', endpoint);
      } else result = await this._client.ask('login', { provider, type: method === 'oauth' ? 'oauth' : 'api_key' });
    } catch (err) {
      result = { ok: false, message: errorText(err) };
    }
    this._report(result, method === 'custom' ? CUSTOM_PROVIDER : provider);
  }

  /** Opens the webview's picker with the catalog (or refreshes it). */
  async showPicker(): Promise<void> {
    try {
      const catalog = await this._client.ask('modelCatalog', null);
      this._post({ type: 'models', catalog: { ...catalog, favourites: this._list(FAVOURITES), recent: this._list(RECENT) } });
    } catch (err) {
      void vscode.window.showErrorMessage(plainNotificationText(vscode.l10n.t('Pi: could not list the models: {0}', errorText(err))));
    }
  }

  /** A model picked for this chat or as Pi's default. */
  async pick(model: string, scope: ModelScope): Promise<void> {
    try {
      await this._client.ask('pickModel', { model, scope });
      await this.prefs?.update(RECENT, pushRecent(this._list(RECENT), model));
    } catch (err) {
      void vscode.window.showErrorMessage(plainNotificationText(vscode.l10n.t('Pi: could not change the model: {0}', errorText(err))));
    }
  }

  async favourite(model: string, on: boolean): Promise<void> {
    const rest = this._list(FAVOURITES).filter((k) => k !== model);
    await this.prefs?.update(FAVOURITES, on ? [...rest, model] : rest);
    await this.showPicker();
  }

  /** Pi's `/logout` for one provider: its stored credential goes; environment variables and models.json stay. */
  async signOut(provider: string): Promise<void> {
    try {
      await this._client.ask('logout', { provider });
      void vscode.window.showInformationMessage(vscode.l10n.t('Pi: signed out of {0}.', provider));
    } catch (err) {
      void vscode.window.showErrorMessage(plainNotificationText(vscode.l10n.t('Pi: could not sign out of {0}: {1}', provider, errorText(err))));
    }
  }

  private _list(key: string): string[] {
    const v = this.prefs?.get<unknown>(key);
    return Array.isArray(v) ? v.filter((k): k is string => typeof k === 'string') : [];
  }

  private _report(result: LoginResult, provider: string): void {
    if (result.ok) {
      this._log.info(`Signed in to ${provider}.`);
      void vscode.window.showInformationMessage(vscode.l10n.t('Pi: signed in to {0}. Pick a model in the header, or just ask.', result.name));
      return;
    }
    // The worker's message names the provider and Pi's reason; never a stack, never the key.
    this._log.warn(`Signing in to ${provider} did not finish: ${result.message}`);
    this._client.notice(result.cancelled ? 'info' : 'error', result.message);
  }

  private _onAuth(n: AuthNotice): void {
    switch (n.kind) {
      case 'prompt':
        void this._ask(n.id, n.prompt);
        return;
      case 'withdraw':
        this._open.get(n.id)?.dispose();
        return;
      case 'event':
        void showAuthEvent(n.event);
        return;
    }
  }

  /** One question of Pi's sign-in: a quick pick for a choice, else an input box (a password box for a key). */
  private async _ask(id: string, prompt: AuthPromptView): Promise<void> {
    const value = await new Promise<string | undefined>((resolve) => {
      if (prompt.type === 'select') {
        const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { id: string }>();
        qp.title = prompt.message;
        qp.ignoreFocusOut = true;
        qp.items = prompt.options.map((o) => ({ id: o.id, label: o.label, ...(o.description ? { description: o.description } : {}) }));
        qp.onDidAccept(() => resolve(qp.selectedItems[0]?.id));
        qp.onDidHide(() => resolve(undefined));
        this._open.set(id, qp);
        qp.show();
        return;
      }
      const box = vscode.window.createInputBox();
      box.title = vscode.l10n.t('Pi: sign in');
      box.prompt = prompt.message;
      box.placeholder = prompt.placeholder ?? '';
      // A key is typed into a password box: never on screen, never in the view's state.
      box.password = prompt.type === 'secret';
      box.ignoreFocusOut = true;
      box.onDidAccept(() => (box.value.trim() ? resolve(box.value.trim()) : undefined));
      box.onDidHide(() => resolve(undefined));
      this._open.set(id, box);
      box.show();
    });
    this._open.get(id)?.dispose();
    this._open.delete(id);
    await this._client.call('authAnswer', value === undefined ? { id } : { id, value }).catch(() => undefined);
  }

  override dispose(): void {
    for (const d of this._open.values()) d.dispose();
    this._open.clear();
    super.dispose();
  }
}

/** Asks a custom endpoint's base URL and model id; none when the user closed a box. */
async function askEndpoint(): Promise<{ baseUrl: string; modelId: string } | undefined> {
  const baseUrl = await vscode.window.showInputBox({
    title: vscode.l10n.t('Pi: custom OpenAI-compatible provider (1/3)'),
    prompt: vscode.l10n.t('Base URL of the API, e.g. http://localhost:11434/v1'),
    ignoreFocusOut: true,
    validateInput: (v) => (/^https?:\/\/[^\s/]+/.test(v.trim()) ? undefined : vscode.l10n.t('An http:// or https:// URL')),
  });
  if (!baseUrl) return undefined;
  const modelId = await vscode.window.showInputBox({
    title: vscode.l10n.t('Pi: custom OpenAI-compatible provider (2/3)'),
    prompt: vscode.l10n.t('Model id, as the API names it'),
    ignoreFocusOut: true,
    validateInput: (v) => (/^[\w.:@/+-]{1,200}$/.test(v.trim()) ? undefined : vscode.l10n.t('A model id without spaces')),
  });
  if (!modelId) return undefined;
  return { baseUrl: baseUrl.trim(), modelId: modelId.trim() };
}

/** What Pi's sign-in flow tells the user: a page opens in the browser (works in code-server and Remote), a code to enter, progress. */
async function showAuthEvent(event: AuthEventView): Promise<void> {
  switch (event.type) {
    case 'auth_url': {
      const opened = await vscode.env.openExternal(vscode.Uri.parse(event.url, true));
      const text =
        event.instructions ?? vscode.l10n.t('Finish signing in in the browser. If it shows a code or a redirect URL, paste it into the box VS Code shows.');
      void vscode.window.showInformationMessage(plainNotificationText(opened ? text : vscode.l10n.t('Open this page to sign in: {0}', event.url)));
      return;
    }
    case 'device_code':
      await vscode.env.openExternal(vscode.Uri.parse(event.verificationUri, true));
      void vscode.window.showInformationMessage(vscode.l10n.t('Pi: enter the code {0} on {1}', event.userCode, event.verificationUri));
      return;
    case 'info':
    case 'progress':
      void vscode.window.setStatusBarMessage(plainNotificationText(vscode.l10n.t('Pi: {0}', event.message)), 5000);
      return;
  }
}
