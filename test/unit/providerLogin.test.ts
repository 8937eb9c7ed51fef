import { strict as assert } from 'node:assert';
import type { AuthNotice } from '../../src/shared/wire/workerProtocol.ts';
import { ProviderAuth, type LoginRuntime } from '../../src/worker/providerLogin.ts';

type Interaction = Parameters<LoginRuntime['login']>[2];

/** A model runtime whose one provider, Acme, signs in through `flow`. */
function runtime(flow: (interaction: Interaction) => Promise<unknown>): LoginRuntime {
  return {
    getProvider: (id: string) => (id === 'acme' ? { id, name: 'Acme' } : undefined),
    login: async (_provider: string, _type: string, interaction: Interaction) => flow(interaction),
    refresh: async () => ({}),
  } as unknown as LoginRuntime;
}

/** A ProviderAuth whose questions are answered by `answer` (undefined: the user closed the box). */
function setup(answer: (notice: Extract<AuthNotice, { kind: 'prompt' }>) => string | undefined) {
  const notices: AuthNotice[] = [];
  const auth: ProviderAuth = new ProviderAuth((n) => {
    notices.push(n);
    if (n.kind === 'prompt') queueMicrotask(() => auth.answer(n.id, answer(n)));
  });
  return { auth, notices };
}

describe('signing in through Pi from the panel', () => {
  it('asks for the key in a secret prompt and signs in with the answer', async () => {
    const { auth, notices } = setup(() => 'sk-typed');
    let got = '';
    const result = await auth.login(
      runtime(async (i) => (got = await i.prompt({ type: 'secret', message: 'Enter API key' }))),
      'acme',
      'api_key',
    );
    assert.deepEqual(result, { ok: true, name: 'Acme' });
    assert.equal(got, 'sk-typed');
    assert.deepEqual(
      notices.map((n) => (n.kind === 'prompt' ? n.prompt.type : n.kind)),
      ['secret'],
    );
  });

  it('says the sign-in was cancelled, in plain words, when a question is closed half way (the browser window, the key box)', async () => {
    const { auth } = setup(() => undefined);
    const result = await auth.login(
      runtime(async (i) => i.prompt({ type: 'manual_code', message: 'Paste the redirect URL' })),
      'acme',
      'oauth',
    );
    assert.deepEqual(result, { ok: false, cancelled: true, message: 'Signing in to Acme was cancelled.' });
  });

  it('opens the sign-in page and withdraws the pasted-code question once the browser answered first', async () => {
    const notices: AuthNotice[] = [];
    const auth = new ProviderAuth((n) => notices.push(n));
    const result = await auth.login(
      runtime(async (i) => {
        i.notify({ type: 'auth_url', url: 'https://login.example/authorize' });
        const browser = new AbortController();
        const pasted = i.prompt({ type: 'manual_code', message: 'Paste the code', signal: browser.signal }).catch(() => 'withdrawn');
        browser.abort();
        assert.equal(await pasted, 'withdrawn');
      }),
      'acme',
      'oauth',
    );
    assert.equal(result.ok, true);
    assert.deepEqual(
      notices.map((n) => (n.kind === 'event' ? n.event.type : n.kind)),
      ['auth_url', 'prompt', 'withdraw'],
    );
  });

  it('reports a failed sign-in in one line, never a stack', async () => {
    const { auth } = setup(() => 'x');
    const result = await auth.login(
      runtime(async () => {
        throw new Error('invalid_grant: the code expired\n    at exchange (oauth.js:10:5)');
      }),
      'acme',
      'oauth',
    );
    assert.deepEqual(result, { ok: false, message: 'Could not sign in to Acme: invalid_grant: the code expired' });
  });

  it('refuses a provider Pi does not know', async () => {
    const { auth } = setup(() => 'x');
    assert.deepEqual(
      await auth.login(
        runtime(async () => undefined),
        'nope',
        'api_key',
      ),
      { ok: false, message: 'Pi does not know the provider "nope".' },
    );
  });
});
