/** The first run in the real worker: an empty agent dir welcomes, a custom OpenAI-compatible endpoint with a key answers, and the key stays in auth.json. */

import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { useClientHarness, type ClientHarness } from './workerHarness.ts';

const KEY = 'sk-firstrun-SECRET-4242';

const answer: Scenario = { name: 'first-answer', steps: [{ chunks: [{ text: 'Hello from the custom endpoint.' }], finish: 'stop' }] } as Scenario;

/** Answers every sign-in question the worker asks: the key for a secret, nothing (cancel) when `cancel`. */
function answerPrompts(h: ClientHarness, cancel = false): string[] {
  const asked: string[] = [];
  h.client.onDidAuth((n) => {
    if (n.kind !== 'prompt') return;
    asked.push(n.prompt.type);
    void h.client.call('authAnswer', cancel ? { id: n.id } : { id: n.id, value: KEY });
  });
  return asked;
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name));
}

describe('First run in the real worker (empty agent dir, scripted model as a custom OpenAI-compatible endpoint)', function () {
  this.timeout(90_000);
  const harnesses = useClientHarness();
  const empty = { prepare: ({ agentDir }: { agentDir: string }) => rmSync(join(agentDir, 'models.json')) };

  it('says no model is usable with the providers to sign in to, and adds no error row', async () => {
    const h = await harnesses.start(answer, [], empty);
    await h.client.ensureSession();
    await h.until(() => h.client.sessionInfo.ready, 'the session to open');
    const info = h.client.sessionInfo;
    assert.equal(info.noModel, true);
    const anthropic = info.providers?.find((p) => p.id === 'anthropic');
    assert.deepEqual(anthropic && { oauth: anthropic.oauth, apiKey: anthropic.apiKey }, { oauth: true, apiKey: true });
    assert.ok(!h.client.state.messages.some((m) => m.role === 'notice' && m.level === 'error'), 'no error notice up front');
  });

  it('adds a custom endpoint with a key: the session gets its model, the first prompt is answered, and the key is only in auth.json', async () => {
    const h = await harnesses.start(answer, [], empty);
    const asked = answerPrompts(h);
    await h.client.ensureSession();
    const result = await h.client.ask('addCustomProvider', { baseUrl: h.model.url, modelId: 'my-model' });
    assert.deepEqual(result, { ok: true, name: 'Custom (OpenAI-compatible)' });
    assert.deepEqual(asked, ['secret']);
    await h.until(() => h.client.sessionInfo.modelId === 'custom/my-model', 'the session to use the custom model');
    assert.ok(!h.client.sessionInfo.noModel);
    await h.settledAfter(() => h.client.send('Hi there', 'prompt'), 'the first run to settle');
    assert.match(JSON.stringify(h.client.state.messages), /Hello from the custom endpoint\./);
    assert.equal((h.model.requests[0] as { model?: string }).model, 'my-model');

    const auth = JSON.parse(readFileSync(join(h.agentDir, 'auth.json'), 'utf8')) as Record<string, { key?: string }>;
    assert.equal(auth.custom?.key, KEY);
    const models = readFileSync(join(h.agentDir, 'models.json'), 'utf8');
    assert.ok(!models.includes(KEY), 'models.json holds no key');
    // Sessions, logs, transcript events and notifications: nothing but auth.json holds the key.
    const elsewhere = filesUnder(h.agentDir).filter((f) => !f.endsWith('auth.json') && statSync(f).size < 5_000_000);
    for (const f of elsewhere) assert.ok(!readFileSync(f, 'utf8').includes(KEY), `${f} holds the key`);
    for (const text of [h.log.lines.join('\n'), JSON.stringify(h.emitted), JSON.stringify(h.notifications), JSON.stringify(h.client.sessionInfo)])
      assert.ok(!text.includes(KEY), 'the key reached a log, an event or a notification');
  });

  it('a closed key box cancels the sign-in: the result says so and the welcome stays', async () => {
    const h = await harnesses.start(answer, [], empty);
    answerPrompts(h, true);
    await h.client.ensureSession();
    const result = await h.client.ask('addCustomProvider', { baseUrl: h.model.url, modelId: 'my-model' });
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.cancelled, true);
    assert.equal(h.client.sessionInfo.noModel, true);
  });

  it('lists the models with their facts, switches the chat to a picked one, and signing out brings the welcome back', async () => {
    const h = await harnesses.start(answer, []);
    answerPrompts(h);
    await h.client.ensureSession();
    await h.client.ask('addCustomProvider', { baseUrl: h.model.url, modelId: 'other-model' });
    const catalog = await h.client.ask('modelCatalog', null);
    const scripted = catalog.models.find((m) => m.provider === 'scripted');
    assert.deepEqual(scripted && { ctx: scripted.contextWindow, price: scripted.price, images: scripted.images, thinking: scripted.thinking }, {
      ctx: 32000,
      price: { input: 1, output: 2 },
      images: true,
      thinking: true,
    });
    assert.ok(catalog.models.some((m) => m.provider === 'custom' && m.id === 'other-model'));
    assert.deepEqual(
      catalog.signedIn.map((p) => p.id),
      ['custom'],
    );
    await h.client.ask('pickModel', { model: 'custom/other-model', scope: 'chat' });
    await h.until(() => h.client.sessionInfo.modelId === 'custom/other-model', 'the chat to use the picked model');
    await h.client.ask('pickModel', { model: 'scripted/scripted-model', scope: 'chat' });
    await h.client.ask('logout', { provider: 'custom' });
    assert.ok(!readFileSync(join(h.agentDir, 'auth.json'), 'utf8').includes(KEY));
    assert.ok(!(await h.client.ask('modelCatalog', null)).models.some((m) => m.provider === 'custom'));
  });
});
