/** The header's context gauge and its breakdown in the chat webview (headless Chromium): parts, costs, compaction warning, Drop from context, keyboard. */

import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { ContextBreakdownView } from '../../src/shared/contextGauge.ts';
import { exchange } from './builders.ts';
import { batch, deliver, posted, root, session, useChatPage } from './harness.ts';

const breakdown = (over: Partial<ContextBreakdownView> = {}): ContextBreakdownView => ({
  contextWindow: 100_000,
  used: 42_000,
  usedEstimated: false,
  parts: [
    { part: 'system', tokens: 3000, share: 3, estimated: true },
    { part: 'tools', tokens: 2000, share: 2, estimated: true },
    { part: 'messages', tokens: 5000, share: 5, estimated: true },
    { part: 'toolResults', tokens: 30_000, share: 30, estimated: true },
    { part: 'images', tokens: 2000, share: 2, estimated: true },
    { part: 'free', tokens: 58_000, share: 58, estimated: false },
  ],
  largest: [{ entryId: 'e-big', toolCallId: 'call_1', toolName: 'bash', tokens: 25_000 }],
  dropped: [],
  canDrop: true,
  lastReply: { input: 40_000, output: 200, cacheRead: 38_000, cacheWrite: 1000, cost: 0.0123, billed: true },
  session: { cost: 0.05, billed: false },
  compaction: { enabled: true, threshold: 83_616, keepRecentTokens: 20_000, near: false },
  ...over,
});

/** axe-core's serious and critical findings (WCAG 2.1 AA, best practices, visible label in the name) in the page. */
async function axe(page: Page): Promise<string[]> {
  await page.evaluate(readFileSync(join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
  return page.evaluate(async () => {
    const w = globalThis as unknown as {
      axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
      document: unknown;
    };
    const result = await w.axe.run(w.document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      rules: { 'label-content-name-mismatch': { enabled: true } },
      resultTypes: ['violations'],
    });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

const showInfo = (page: Page, context: ContextBreakdownView) => deliver(page, { type: 'session', session: { ...session, contextPercent: 42, context } });

describe('context gauge in the chat webview (headless Chromium)', function () {
  this.timeout(60_000);
  let page: Page;
  useChatPage((p) => {
    page = p;
  });

  it('opens the breakdown from the gauge with every part in tokens and share, the costs and what compaction keeps', async () => {
    await showInfo(page, breakdown());
    const gauge = page.locator('[data-testid="context-gauge"]');
    assert.equal(await gauge.evaluate((e) => e.tagName), 'BUTTON');
    assert.match(await gauge.innerText(), /context 42%/);
    assert.equal(await page.locator('[data-testid="context-breakdown"]').isVisible(), false);
    await gauge.click();
    const panel = page.locator('[data-testid="context-breakdown"]');
    assert.equal(await panel.isVisible(), true);
    assert.equal(await gauge.getAttribute('aria-expanded'), 'true');
    assert.deepEqual(await panel.locator('[data-part]').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-part'))), [
      'system',
      'tools',
      'messages',
      'toolResults',
      'images',
      'free',
    ]);
    assert.match(await panel.locator('[data-part="toolResults"]').innerText(), /≈ 30,000 tokens \(30%\)/);
    assert.doesNotMatch(await panel.locator('[data-part="free"]').innerText(), /≈/, 'free room is Pi’s own figure here');
    assert.match(await panel.innerText(), /≈ estimated: Pi's count of 4 characters a token/);
    const text = await panel.innerText();
    assert.match(text, /42,000 of 100,000 tokens in use/);
    assert.match(text, /cache 38,000 read \/ 1,000 write, \$0\.0123 \(billed\)/);
    assert.match(text, /Session: \$0\.0500 \(estimated\)/);
    assert.match(text, /keeps the system prompt, the tools and about the last 20,000 tokens/);
  });

  it('warns on the gauge and in the breakdown when auto-compaction is near', async () => {
    await showInfo(page, breakdown({ compaction: { enabled: true, threshold: 83_616, keepRecentTokens: 20_000, near: true } }));
    const gauge = page.locator('[data-testid="context-gauge"]');
    assert.match((await gauge.getAttribute('title')) ?? '', /compact the context soon/);
    await gauge.click();
    assert.match(
      await page.locator('[data-testid="context-breakdown"] [role="alert"]').innerText(),
      /Pi will compact the context soon: it does at 83,616 tokens/,
    );
  });

  it('asks the worker to drop a large tool output, and marks its card once the worker says it is dropped', async () => {
    await batch(page, exchange(1));
    await showInfo(page, breakdown());
    await page.locator('[data-testid="context-gauge"]').click();
    const drop = page.locator('[data-testid="context-breakdown"] [data-action="drop-from-context"]');
    assert.match((await drop.getAttribute('aria-label')) ?? '', /^Drop from context: bash output, 25,000 tokens$/);
    await drop.click();
    assert.deepEqual(
      (await posted(page)).filter((m) => m.type === 'dropFromContext'),
      [{ type: 'dropFromContext', entryId: 'e-big' }],
    );
    await showInfo(page, breakdown({ largest: [], dropped: ['call_1'] }));
    const card = page.locator('.tool-card[data-tool-call-id="call_1"]');
    assert.equal(await card.getAttribute('data-dropped-from-context'), 'true');
    assert.match(await card.innerText(), /dropped from context/);
    assert.equal(await drop.count(), 0);
  });

  it('lets Drop wait while a run is active', async () => {
    await showInfo(page, breakdown());
    await page.locator('[data-testid="context-gauge"]').click();
    const drop = page.locator('[data-action="drop-from-context"]');
    await batch(page, [{ type: 'userMessage', text: 'go', images: 0 }, { type: 'runStart' }]);
    assert.equal(await drop.isDisabled(), true);
    await batch(page, [{ type: 'settled', aborted: false, at: 1 }]);
    assert.equal(await drop.isDisabled(), false);
  });

  it('offers no Drop when the SDK cannot edit the context', async () => {
    await showInfo(page, breakdown({ canDrop: false }));
    await page.locator('[data-testid="context-gauge"]').click();
    assert.equal(await page.locator('[data-action="drop-from-context"]').count(), 0);
    assert.match(await page.locator('[data-testid="context-breakdown"]').innerText(), /bash/);
  });

  it('works from the keyboard: Enter on the gauge opens it, Escape inside it closes it and gives the gauge focus back', async () => {
    await showInfo(page, breakdown());
    await page.locator('[data-testid="context-gauge"]').focus();
    await page.keyboard.press('Enter');
    assert.equal(await page.locator('[data-testid="context-breakdown"]').isVisible(), true);
    await page.locator('[data-action="drop-from-context"]').focus();
    await page.keyboard.press('Escape');
    assert.equal(await page.locator('[data-testid="context-breakdown"]').isVisible(), false);
    assert.equal(
      await page.evaluate(() =>
        (globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string | null } } }).document.activeElement.getAttribute(
          'data-testid',
        ),
      ),
      'context-gauge',
    );
  });

  it('has no serious or critical axe violation with the breakdown open and compaction near', async () => {
    await batch(page, exchange(1));
    await showInfo(page, breakdown({ compaction: { enabled: true, threshold: 83_616, keepRecentTokens: 20_000, near: true }, dropped: ['call_1'] }));
    await page.locator('[data-testid="context-gauge"]').click();
    assert.deepEqual(await axe(page), []);
  });
});
