/** What the view's first paint leaves out (headless Chromium): libraries a reply loads only when it needs them, drawn in place once here. */

import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { initialTranscript } from '../../src/shared/transcript/reduce.ts';
import { T0 } from './builders.ts';
import { batch, deliver, root, session, useChatPage, type PageWindow } from './harness.ts';

/** A whole reply in one batch. */
async function reply(page: Page, text: string): Promise<void> {
  await batch(page, [
    { type: 'assistantStart', at: T0 },
    { type: 'blockStart', index: 0, kind: 'text', at: T0 },
    { type: 'delta', index: 0, text },
    { type: 'blockEnd', index: 0, at: T0 },
    { type: 'assistantEnd', stopReason: 'stop', at: T0 },
  ]);
}

/** Holds the page's request for the chunk `file` until the returned release is called: what shows before the library comes. */
async function holdChunk(page: Page, file: string): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let requested!: () => void;
  const asked = new Promise<void>((r) => (requested = r));
  await page.route(`**/dist/webview/${file}`, async (route) => {
    requested();
    await released;
    await route.continue();
  });
  return async () => {
    await asked;
    release();
  };
}

const PROSE =
  '## Plan\n\nThe function **reads** the file and `returns` its rows for $5 or $6; see [the docs](https://example.com).\n\n- one\n- two\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n';

describe('the first paint and libraries loaded on demand (headless Chromium)', function () {
  this.timeout(120_000);
  let page: Page;
  useChatPage(async (p) => {
    page = p;
    await deliver(p, { type: 'snapshot', state: initialTranscript, session });
  });

  it('loads the code highlighter only when a code block appears, not with the view nor for a reply without code', async () => {
    assert.doesNotMatch(readFileSync(join(root, 'dist', 'webview', 'main.js'), 'utf8'), /registerLanguage/, "highlight.js is not in the first paint's script");
    await reply(page, PROSE);
    await page.locator('[data-role="assistant"] table').waitFor();
    assert.equal(await page.locator('script[src*="highlight"]').count(), 0);
    assert.equal(await page.evaluate(() => '__piHighlight' in globalThis), false);
    await reply(page, 'Here:\n\n```ts\nconst x = 1;\n```\n');
    await page.locator('script[src*="highlight"]').waitFor({ state: 'attached' });
    await page.locator('[data-role="assistant"] .md pre code .hljs-keyword').first().waitFor();
  });

  it('colours a code block drawn before the highlighter came in place: same element, same text, same height', async () => {
    const release = await holdChunk(page, 'highlight.js');
    await reply(page, `${PROSE}\n\`\`\`ts\nconst x: number = 1;\nexport function f(): string {\n  return 'a';\n}\n\`\`\`\n`);
    const code = await page.locator('[data-role="assistant"] .md pre code').elementHandle();
    assert.ok(code);
    const before = await code.evaluate((el) => ({ text: el.textContent, height: el.getBoundingClientRect().height }));
    assert.equal(await code.evaluate((el) => el.childElementCount), 0, 'plain text until the highlighter comes');
    await release();
    await page.waitForFunction((el) => el.querySelector('.hljs-keyword') !== null, code);
    assert.equal(await code.evaluate((el) => el.isConnected), true, 'the block drawn first is the one coloured');
    const after = await code.evaluate((el) => ({ text: el.textContent, height: el.getBoundingClientRect().height }));
    assert.deepEqual(after, before);
    assert.equal(await page.locator('[data-highlight]').count(), 0);
    const violations = await page.evaluate(() => (globalThis as unknown as PageWindow).__violations);
    assert.deepEqual(violations, []);
  });

  it('loads the math library only when a reply starts a formula, not with the view nor for a reply without math', async () => {
    assert.doesNotMatch(readFileSync(join(root, 'dist', 'webview', 'main.js'), 'utf8'), /defineSymbol/, "KaTeX is not in the first paint's script");
    await reply(page, PROSE);
    await page.locator('[data-role="assistant"] table').waitFor();
    assert.equal(await page.locator('script[src*="katex"]').count(), 0);
    await reply(page, 'Euler: $e^{i\\pi}+1=0$.\n');
    await page.locator('script[src*="katex"]').waitFor({ state: 'attached' });
    await page.locator('[data-role="assistant"] [data-math="inline"] math').waitFor();
  });

  it('draws a formula shown before the math library came into the element that showed its source', async () => {
    const release = await holdChunk(page, 'katex.js');
    await reply(page, 'Area: $\\pi r^2$ and\n\n$$\n\\frac{1}{2}\n$$\n\nBroken: $\\frac{1$.\n');
    const shown = page.locator('[data-role="assistant"] .md .math');
    assert.equal(await shown.count(), 3);
    const first = await shown.evaluateAll((els) => els.map((el) => ({ text: el.textContent, pending: el.hasAttribute('data-math-pending') })));
    assert.deepEqual(first, [
      { text: '\\pi r^2', pending: true },
      { text: '\\frac{1}{2}\n', pending: true },
      { text: '\\frac{1', pending: true },
    ]);
    const handles = await shown.elementHandles();
    await release();
    await page.waitForFunction(
      () => (globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector('[data-math-pending]') === null,
    );
    for (const el of handles) assert.equal(await el.evaluate((e) => e.isConnected), true, 'drawn in place');
    assert.equal(await page.locator('[data-math="inline"] math').count(), 1);
    assert.equal(await page.locator('[data-math="block"] math[display="block"]').count(), 1);
    const failed = page.locator('[data-math][data-math-error]');
    assert.equal(await failed.innerText(), '\\frac{1');
    assert.ok(await failed.getAttribute('title'), 'the parser says why');
  });
});
