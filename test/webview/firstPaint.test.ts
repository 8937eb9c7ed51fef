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

const PROSE =
  '## Plan\n\nThe function **reads** the file and `returns` its rows; see [the docs](https://example.com).\n\n- one\n- two\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n';

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
    await reply(page, `${PROSE}\n\`\`\`ts\nconst x: number = 1;\nexport function f(): string {\n  return 'a';\n}\n\`\`\`\n`);
    const code = await page.locator('[data-role="assistant"] .md pre code').elementHandle();
    assert.ok(code);
    const before = await code.evaluate((el) => ({ text: el.textContent, height: el.getBoundingClientRect().height }));
    await page.waitForFunction((el) => el.querySelector('.hljs-keyword') !== null, code);
    assert.equal(await code.evaluate((el) => el.isConnected), true, 'the block drawn first is the one coloured');
    const after = await code.evaluate((el) => ({ text: el.textContent, height: el.getBoundingClientRect().height }));
    assert.deepEqual(after, before);
    assert.equal(await page.locator('[data-highlight]').count(), 0);
    const violations = await page.evaluate(() => (globalThis as unknown as PageWindow).__violations);
    assert.deepEqual(violations, []);
  });
});
