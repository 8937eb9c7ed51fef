/** Plan mode in the chat webview (headless Chromium): the Plan toggle and header badge, the plan's actions, the checklist with done / current / left, announced as items are ticked, collapsible. */

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { PlanView } from '../../src/shared/plan.ts';
import { batch, posted, useChatPage } from './harness.ts';

const plan = (over: Partial<PlanView>): PlanView => ({ on: false, items: [], ...over });
const items = (done: number) => ['Read the notes', 'Write the summary', 'Check it'].map((text, i) => ({ text, done: i < done }));

describe('plan mode in the chat webview (headless Chromium)', function () {
  this.timeout(60_000);
  let page: Page;
  useChatPage((p) => {
    page = p;
  });

  it('shows plan mode on the toggle and in the header, and the toggle runs the command', async () => {
    const toggle = page.locator('[data-testid="plan-toggle"]');
    assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
    assert.equal(await page.locator('[data-testid="plan-mode"]').isVisible(), false);
    await batch(page, [{ type: 'plan', plan: plan({ on: true }) }]);
    assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
    assert.equal(await page.locator('[data-testid="plan-mode"]').isVisible(), true);
    assert.equal(await page.getAttribute('body', 'data-plan-mode'), 'on');
    await toggle.click();
    assert.deepEqual(
      (await posted(page)).filter((m) => m.type === 'runCommand'),
      [{ type: 'runCommand', command: 'togglePlanMode' }],
    );
  });

  it('offers Open Plan and Act on Plan when the plan reply has ended', async () => {
    assert.equal(await page.locator('[data-testid="plan-strip"]').isVisible(), false);
    await batch(page, [{ type: 'plan', plan: plan({ on: true, draft: '1. a\n2. b' }) }]);
    await page.locator('[data-testid="open-plan"]').click();
    await page.locator('[data-testid="act-on-plan"]').click();
    assert.deepEqual(
      (await posted(page)).filter((m) => m.type === 'runCommand').map((m) => m.command),
      ['openPlan', 'actOnPlan'],
    );
  });

  it('shows the checklist as done, current and left, announces each tick, and folds', async () => {
    await batch(page, [{ type: 'plan', plan: plan({ items: items(0) }) }]);
    const list = page.locator('[data-testid="plan-checklist"]');
    assert.equal(await list.getAttribute('data-done'), '0');
    await batch(page, [{ type: 'plan', plan: plan({ items: items(2) }) }]);
    assert.equal(await list.getAttribute('data-done'), '2');
    assert.equal(await list.getAttribute('data-total'), '3');
    assert.deepEqual(await list.locator('li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-status'))), ['done', 'done', 'current']);
    assert.match(await list.locator('li[aria-current="step"]').innerText(), /Check it$/);
    assert.match((await page.locator('#announce-plan').textContent()) ?? '', /Plan: 2 of 3 done\. Next: Check it/);
    await list.locator('summary').click();
    assert.equal(await list.evaluate((d) => (d as unknown as { open: boolean }).open), false);
    assert.equal(await list.locator('li').first().isVisible(), false);
  });
});
