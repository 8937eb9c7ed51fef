/** A provider's error as the panel words it: a proxy problem names the proxy setting, and no stack ever shows. */

import assert from 'node:assert/strict';
import { describeSessionError, providerErrorText, proxyFromEnv } from '../../src/worker/piErrors.ts';

const PROXY = 'http://proxy.corp.example:3128';

describe('provider errors', () => {
  it('says a refused connection through a proxy is the proxy\u2019s, naming HTTPS_PROXY', () => {
    const text = providerErrorText('request to https://api.openai.com/v1/chat/completions failed, reason: connect ECONNREFUSED 10.0.0.1:3128', PROXY);
    assert.match(text, /proxy/i);
    assert.match(text, /HTTPS_PROXY/);
    assert.match(text, /proxy\.corp\.example:3128/);
    assert.match(text, /ECONNREFUSED/);
  });

  it('says an unknown proxy host is the proxy\u2019s (ENOTFOUND)', () => {
    assert.match(providerErrorText('getaddrinfo ENOTFOUND proxy.corp.example', PROXY), /HTTPS_PROXY[\s\S]*ENOTFOUND|ENOTFOUND[\s\S]*HTTPS_PROXY/);
  });

  it('says a 407 is the proxy asking for a sign-in, with or without a proxy variable', () => {
    for (const proxy of [PROXY, undefined]) {
      const text = providerErrorText('407 Proxy Authentication Required', proxy);
      assert.match(text, /407/);
      assert.match(text, /HTTPS_PROXY/);
      assert.match(text, /user/i);
    }
  });

  it('leaves a refused connection without a proxy as the provider\u2019s own message', () => {
    assert.equal(providerErrorText('connect ECONNREFUSED 127.0.0.1:11434', undefined), 'connect ECONNREFUSED 127.0.0.1:11434');
  });

  it('never shows a stack: only the lines before it', () => {
    const raw = 'TypeError: fetch failed\n    at node:internal/deps/undici/undici:13502:13\n    at async OpenAI.makeRequest (/x/openai/core.js:1:1)';
    assert.equal(providerErrorText(raw, undefined), 'TypeError: fetch failed');
    assert.doesNotMatch(providerErrorText(raw, PROXY), /\bat\s+(async\s+)?\S+ \(|undici:/);
  });

  it('never shows the proxy\u2019s user and password', () => {
    const proxy = proxyFromEnv({ https_proxy: 'http://alice:s3cret@proxy.corp.example:3128' });
    assert.equal(proxy?.includes('s3cret'), false);
    assert.equal(proxy?.includes('alice'), false);
    assert.doesNotMatch(providerErrorText('connect ECONNREFUSED 10.0.0.1:3128', proxy), /s3cret|alice/);
  });

  it('reads the proxy from HTTPS_PROXY, HTTP_PROXY or ALL_PROXY, in any case', () => {
    assert.equal(proxyFromEnv({}), undefined);
    assert.match(proxyFromEnv({ HTTP_PROXY: 'http://p:8080' }) ?? '', /p:8080/);
    assert.match(proxyFromEnv({ all_proxy: 'socks5://s:1080' }) ?? '', /s:1080/);
  });

  it('words a prompt that fails on the proxy the same way', () => {
    const d = describeSessionError(new Error('connect ECONNREFUSED 10.0.0.1:3128'), PROXY);
    assert.match(d.message, /HTTPS_PROXY/);
  });
});
