/** The first run in headless Chromium: the welcome while no model is usable, and the model picker (§7 first-run hooks). */

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { initialTranscript } from '../../src/shared/transcript/reduce.ts';
import type { ModelCatalog } from '../../src/shared/modelCatalog.ts';
import { batch, deliver, openView, posted, session, useBrowser } from './harness.ts';

const noModel = {
  ready: true,
  cwd: '/work',
  noModel: true,
  providers: [
    { id: 'anthropic', name: 'Anthropic', oauth: true, apiKey: true },
    { id: 'groq', name: 'Groq', oauth: false, apiKey: true },
  ],
} as const;

const catalog: ModelCatalog = {
  models: [
    {
      provider: 'anthropic',
      providerName: 'Anthropic',
      id: 'claude-sonnet',
      name: 'Claude Sonnet',
      contextWindow: 200_000,
      price: { input: 3, output: 15 },
      images: true,
      thinking: true,
    },
    { provider: 'custom', providerName: 'Custom', id: 'my-model', name: 'my-model', contextWindow: 128_000, images: false, thinking: false },
  ],
  current: 'custom/my-model',
  favourites: [],
  recent: [],
  signedIn: [{ id: 'custom', name: 'Custom' }],
};

describe('first run in the chat webview (headless Chromium)', function () {
  this.timeout(60_000);
  const env = useBrowser();
  let page: Page;

  beforeEach(async () => {
    page = await openView(env.browser, env.server.origin);
  });
  afterEach(async () => page?.close());

  it('welcomes with a button per provider and way in while no model is usable, and asks the host on a click', async () => {
    await deliver(page, { type: 'snapshot', state: initialTranscript, session: noModel });
    const welcome = page.locator('[data-testid="welcome"]');
    await welcome.waitFor({ state: 'visible' });
    const buttons = await welcome
      .locator('button[data-provider]')
      .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-provider')}:${e.getAttribute('data-method')}`));
    assert.deepEqual(buttons, ['anthropic:oauth', 'anthropic:apiKey', 'groq:apiKey', 'custom:custom']);
    await welcome.locator('[data-provider="groq"]').click();
    await welcome.locator('[data-provider="custom"]').click();
    const asked = (await posted(page)).filter((m) => m.type === 'signIn');
    assert.deepEqual(asked, [
      { type: 'signIn', provider: 'groq', method: 'apiKey' },
      { type: 'signIn', provider: 'custom', method: 'custom' },
    ]);
  });

  it('hides the welcome once the session has a model', async () => {
    await deliver(page, { type: 'snapshot', state: initialTranscript, session: noModel });
    await page.locator('[data-testid="welcome"]').waitFor({ state: 'visible' });
    await deliver(page, { type: 'session', session: { ...session, modelId: 'custom/my-model' } });
    await page.locator('[data-testid="welcome"]').waitFor({ state: 'hidden' });
  });

  it('lists the models with their facts, searches, and picks one for the chat or as the default', async () => {
    await deliver(page, { type: 'snapshot', state: initialTranscript, session });
    await deliver(page, { type: 'models', catalog });
    const picker = page.locator('[data-testid="model-picker"]');
    await picker.waitFor({ state: 'visible' });
    const sonnet = picker.locator('[data-model="anthropic/claude-sonnet"]');
    assert.match(await sonnet.innerText(), /200K context · \$3 in \/ \$15 out per M tokens · images · thinking/);
    assert.equal(await picker.locator('[data-model="custom/my-model"]').getAttribute('aria-selected'), 'true');
    await picker.locator('.model-search').fill('sonnet');
    assert.equal(await picker.locator('[data-model]').count(), 1);
    await sonnet.click();
    await picker.waitFor({ state: 'hidden' });
    await deliver(page, { type: 'models', catalog });
    await picker.locator('.model-scope').check();
    await picker.locator('[data-model="custom/my-model"]').click();
    const picks = (await posted(page)).filter((m) => m.type === 'pickModel');
    assert.deepEqual(picks, [
      { type: 'pickModel', model: 'anthropic/claude-sonnet', scope: 'chat' },
      { type: 'pickModel', model: 'custom/my-model', scope: 'default' },
    ]);
  });

  it('moves through the models from the search box with Up, Down, Home and End, names the active one, and picks it with Enter', async () => {
    const three: ModelCatalog = {
      ...catalog,
      models: [...catalog.models, { provider: 'groq', providerName: 'Groq', id: 'llama', name: 'Llama', contextWindow: 8_000, images: false, thinking: false }],
    };
    await deliver(page, { type: 'snapshot', state: initialTranscript, session });
    await deliver(page, { type: 'models', catalog: three });
    const picker = page.locator('[data-testid="model-picker"]');
    const search = picker.locator('[data-testid="model-search"]');
    await search.waitFor({ state: 'visible' });
    const order = await picker.locator('[data-model]').evaluateAll((els) => els.map((e) => e.getAttribute('data-model')));
    assert.equal(order.length, 3);
    /** The model the search box's aria-activedescendant names. */
    const active = () =>
      search.evaluate((el) => {
        const id = el.getAttribute('aria-activedescendant');
        return id ? (el.ownerDocument.getElementById(id)?.getAttribute('data-model') ?? `missing #${id}`) : null;
      });
    assert.equal(await search.getAttribute('role'), 'combobox');
    assert.equal(await active(), order[0]);
    await search.press('ArrowDown');
    assert.equal(await active(), order[1]);
    await search.press('End');
    assert.equal(await active(), order[2]);
    await search.press('ArrowDown');
    assert.equal(await active(), order[2], 'Down on the last model stays there');
    await search.press('Home');
    assert.equal(await active(), order[0]);
    await search.press('ArrowUp');
    assert.equal(await active(), order[0], 'Up on the first model stays there');
    await search.press('ArrowDown');
    await search.press('ArrowDown');
    await search.press('ArrowUp');
    assert.equal(await picker.locator('[data-active="true"]').getAttribute('data-model'), order[1]);
    await search.press('Enter');
    await picker.waitFor({ state: 'hidden' });
    const picks = (await posted(page)).filter((m) => m.type === 'pickModel');
    assert.deepEqual(picks, [{ type: 'pickModel', model: order[1], scope: 'chat' }]);
  });

  it('starts again at the first match when the search changes', async () => {
    await deliver(page, { type: 'snapshot', state: initialTranscript, session });
    await deliver(page, { type: 'models', catalog });
    const search = page.locator('[data-testid="model-search"]');
    await search.press('ArrowDown');
    await search.fill('my-model');
    await search.press('Enter');
    const picks = (await posted(page)).filter((m) => m.type === 'pickModel');
    assert.deepEqual(picks, [{ type: 'pickModel', model: 'custom/my-model', scope: 'chat' }]);
  });

  it('stars a favourite and signs out of a provider from the picker', async () => {
    await deliver(page, { type: 'snapshot', state: initialTranscript, session });
    await deliver(page, { type: 'models', catalog });
    const picker = page.locator('[data-testid="model-picker"]');
    await picker.locator('[data-favourite="anthropic/claude-sonnet"]').click();
    await picker.locator('[data-sign-out="custom"]').click();
    const sent = (await posted(page)).filter((m) => m.type === 'favouriteModel' || m.type === 'signOut');
    assert.deepEqual(sent, [
      { type: 'favouriteModel', model: 'anthropic/claude-sonnet', on: true },
      { type: 'signOut', provider: 'custom' },
    ]);
  });

  it("offers Replace key on a key the provider refused, for the chat model's provider", async () => {
    await deliver(page, { type: 'snapshot', state: initialTranscript, session: { ...session, modelId: 'custom/my-model' } });
    await batch(page, [{ type: 'noticeMessage', level: 'error', text: 'The provider refused the API key (401).', code: 'noKey' }]);
    await page.locator('[data-action="replace-key"]').click();
    const asked = (await posted(page)).filter((m) => m.type === 'signIn');
    assert.deepEqual(asked, [{ type: 'signIn', provider: 'custom', method: 'apiKey' }]);
  });
});
