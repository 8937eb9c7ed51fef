import { strict as assert } from 'node:assert';
import { formatPrice, formatTokens, modelSections, pushRecent, type ModelCatalog, type ModelView } from '../../src/shared/modelCatalog.ts';
import { parseWebviewMessage } from '../../src/shared/wire/parseWebviewMessage.ts';

const model = (provider: string, id: string, name = id): ModelView => ({
  provider,
  providerName: provider.toUpperCase(),
  id,
  name,
  images: false,
  thinking: false,
});

const catalog: ModelCatalog = {
  models: [model('anthropic', 'claude-sonnet', 'Claude Sonnet'), model('anthropic', 'claude-haiku', 'Claude Haiku'), model('openai', 'gpt-5', 'GPT-5')],
  favourites: ['openai/gpt-5'],
  recent: ['anthropic/claude-haiku', 'gone/model'],
  signedIn: [],
};

describe('model picker catalog', () => {
  it('groups favourites, then recently used, then each provider in catalog order, each model once', () => {
    const sections = modelSections(catalog, '').map((s) => [s.key, s.models.map((m) => m.id)]);
    assert.deepEqual(sections, [
      ['favourites', ['gpt-5']],
      ['recent', ['claude-haiku']],
      ['anthropic', ['claude-sonnet']],
    ]);
    assert.deepEqual(
      modelSections({ ...catalog, favourites: [], recent: [] }, '').map((s) => [s.key, s.models.length]),
      [
        ['anthropic', 2],
        ['openai', 1],
      ],
    );
  });

  it('searches name, id and provider by every word, in any case, and drops empty sections', () => {
    assert.deepEqual(
      modelSections(catalog, 'ANTHROPIC son').map((s) => [s.key, s.models.map((m) => m.id)]),
      [['anthropic', ['claude-sonnet']]],
    );
    assert.deepEqual(modelSections(catalog, 'nothing like this'), []);
  });

  it('puts a picked model first in the recent list, once, keeping five', () => {
    assert.deepEqual(pushRecent(['a/1', 'b/2', 'c/3'], 'b/2'), ['b/2', 'a/1', 'c/3']);
    assert.deepEqual(pushRecent(['a/1', 'b/2', 'c/3', 'd/4', 'e/5'], 'f/6'), ['f/6', 'a/1', 'b/2', 'c/3', 'd/4']);
  });

  it('writes context sizes and prices short', () => {
    assert.deepEqual([formatTokens(200_000), formatTokens(1_000_000), formatTokens(1_048_576), formatTokens(512)], ['200K', '1M', '1M', '512']);
    assert.deepEqual([formatPrice(3), formatPrice(0.15), formatPrice(0.075)], ['$3', '$0.15', '$0.075']);
  });
});

describe('first-run messages from the webview', () => {
  it('accepts the welcome, picker and sign-out messages', () => {
    for (const msg of [
      { type: 'signIn', provider: 'anthropic', method: 'oauth' },
      { type: 'signIn', provider: 'custom', method: 'custom' },
      { type: 'pickModel', model: 'openai/gpt-5', scope: 'default' },
      { type: 'favouriteModel', model: 'openrouter/meta/llama-3:free', on: true },
      { type: 'signOut', provider: 'openai' },
    ])
      assert.deepEqual(parseWebviewMessage(msg), { ok: true, msg });
  });

  it('refuses a key or anything odd smuggled into them', () => {
    for (const msg of [
      { type: 'signIn', provider: 'anthropic', method: 'password' },
      { type: 'signIn', provider: 'an thropic', method: 'apiKey' },
      { type: 'pickModel', model: 'no-provider', scope: 'chat' },
      { type: 'pickModel', model: 'openai/gpt-5', scope: 'everywhere' },
      { type: 'favouriteModel', model: 'openai/gpt-5', on: 'yes' },
      { type: 'signOut', provider: '' },
    ])
      assert.equal(parseWebviewMessage(msg).ok, false, JSON.stringify(msg));
  });
});
