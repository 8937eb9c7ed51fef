/**
 * Signing in to Pi's providers from the panel, the way `pi auth login` does: Pi's own login flow on the session's
 * model runtime (credentials land in the agent directory's auth.json through Pi's AuthStorage), its questions
 * asked on the main thread and answered back by id.
 */

import type { AuthEventView, AuthNotice, AuthPromptView, LoginResult } from '../shared/wire/workerProtocol.ts';
import type { AgentSessionLike } from './agentSession.ts';
import { errorText } from './agentSession.ts';
import { t } from '../shared/l10n.ts';

/** The part of Pi's model runtime a sign-in uses. */
export type LoginRuntime = Pick<AgentSessionLike['modelRuntime'], 'getProvider' | 'login' | 'refresh'>;
type Interaction = Parameters<LoginRuntime['login']>[2];
type Prompt = Parameters<Interaction['prompt']>[0];
type AuthEvent = Parameters<Interaction['notify']>[0];

/** Pi's login flows, their questions sent to the main thread and its answers matched back by id. */
export class ProviderAuth {
  private readonly _send: (notice: AuthNotice) => void;
  private readonly _pending = new Map<string, { resolve: (v: string) => void; reject: (e: Error) => void }>();
  private _next = 0;

  constructor(send: (notice: AuthNotice) => void) {
    this._send = send;
  }

  /** The user answered prompt `id` (no value: closed it). False when it was no longer open. */
  answer(id: string, value: string | undefined): boolean {
    const waiting = this._pending.get(id);
    if (!waiting) return false;
    this._pending.delete(id);
    if (value === undefined) waiting.reject(new Error('Login cancelled'));
    else waiting.resolve(value);
    return true;
  }

  /** Signs in to `provider` on `runtime`; never throws: a failure is a result with a message the panel shows as is. */
  async login(runtime: LoginRuntime, provider: string, type: 'oauth' | 'api_key'): Promise<LoginResult> {
    const known = runtime.getProvider(provider);
    if (!known) return { ok: false, message: t('Pi does not know the provider "{0}".', provider) };
    const signal = new AbortController();
    try {
      await runtime.login(provider, type, this._interaction(signal.signal));
    } catch (err) {
      const raw = errorText(err);
      // A closed input box or browser window mid-way is the user's choice, not a failure to report loudly.
      if (/cancel/i.test(raw)) return { ok: false, cancelled: true, message: t('Signing in to {0} was cancelled.', known.name) };
      return { ok: false, message: t('Could not sign in to {0}: {1}', known.name, firstLine(raw)) };
    } finally {
      // Questions still open (the browser answered first, or the flow failed) are withdrawn from the user.
      signal.abort();
      for (const id of [...this._pending.keys()]) this.answer(id, undefined);
    }
    // Dynamic catalogs stay empty until the first signed-in refresh; a failed refresh only leaves them for later.
    await runtime.refresh({ providers: [provider], signal: AbortSignal.timeout(15_000) }).catch(() => undefined);
    return { ok: true, name: known.name };
  }

  private _interaction(signal: AbortSignal): Interaction {
    return {
      signal,
      prompt: (prompt: Prompt) => this._ask(prompt),
      notify: (event: AuthEvent) => {
        const view = eventView(event);
        if (view) this._send({ kind: 'event', event: view });
      },
    };
  }

  private _ask(prompt: Prompt): Promise<string> {
    const id = `auth-${++this._next}`;
    const view: AuthPromptView =
      prompt.type === 'select'
        ? {
            type: 'select',
            message: prompt.message,
            options: prompt.options.map((o) => ({ id: o.id, label: o.label, ...(o.description ? { description: o.description } : {}) })),
          }
        : { type: prompt.type, message: prompt.message, ...(prompt.placeholder ? { placeholder: prompt.placeholder } : {}) };
    return new Promise<string>((resolve, reject) => {
      this._pending.set(id, { resolve, reject });
      // The browser's callback can answer a pasted-code question first: it is withdrawn from the user then.
      prompt.signal?.addEventListener('abort', () => {
        if (this.answer(id, undefined)) this._send({ kind: 'withdraw', id });
      });
      this._send({ kind: 'prompt', id, prompt: view });
    });
  }
}

function eventView(event: AuthEvent): AuthEventView | undefined {
  switch (event.type) {
    case 'auth_url':
      return { type: 'auth_url', url: event.url, ...(event.instructions ? { instructions: event.instructions } : {}) };
    case 'device_code':
      return { type: 'device_code', userCode: event.userCode, verificationUri: event.verificationUri };
    case 'info':
    case 'progress':
      return { type: event.type, message: event.message };
    default:
      return undefined;
  }
}

const firstLine = (text: string): string => text.split('\n')[0]!.slice(0, 300);
