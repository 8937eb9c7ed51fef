/** The queue strip's edits in headless Chromium: each queued message's buttons (§7 hooks), Edit through the composer, and the edit a click sends. */

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { build } from './builders.ts';
import { batch, deliver, openView, posted, session, useBrowser } from './harness.ts';

describe('queue edits (headless Chromium)', function () {
  this.timeout(60_000);
  const env = useBrowser();
  let page: Page;

  beforeEach(async () => {
    page = await openView(env.browser, env.server.origin);
    await deliver(page, { type: 'snapshot', state: build([{ type: 'userMessage', text: 'hi', images: 0 }, { type: 'runStart' }]), session });
    await batch(page, [{ type: 'queue', steering: ['steer me'], followUp: ['later 1', 'later 2'] }]);
  });
  afterEach(async () => {
    await page?.close();
  });

  const edits = async () => (await posted(page)).filter((m) => m.type === 'editQueue');

  it('gives each queued message Edit and Remove, and a follow-up Send now', async () => {
    const hooks = await page.$$eval('[data-queue]', (els) =>
      els.map((e) => `${e.getAttribute('data-queue')}:${[...e.querySelectorAll('[data-action]')].map((b) => b.getAttribute('data-action')).join(',')}`),
    );
    assert.deepEqual(hooks, [
      'steering:edit-queued,remove-queued',
      'followUp:edit-queued,move-queued-down,send-now,remove-queued',
      'followUp:edit-queued,move-queued-up,send-now,remove-queued',
    ]);
  });

  it('sends Remove, Send now and Move up naming the message by its place and text', async () => {
    await page.locator('[data-queue="followUp"]').nth(1).hover();
    await page.locator('[data-queue="followUp"]').nth(1).locator('[data-action="move-queued-up"]').click();
    await page.locator('[data-queue="followUp"]').nth(0).hover();
    await page.locator('[data-queue="followUp"]').nth(0).locator('[data-action="send-now"]').click();
    await page.locator('[data-queue="steering"]').hover();
    await page.locator('[data-queue="steering"] [data-action="remove-queued"]').click();
    assert.deepEqual(await edits(), [
      { type: 'editQueue', queue: 'followUp', index: 1, text: 'later 2', op: 'up' },
      { type: 'editQueue', queue: 'followUp', index: 0, text: 'later 1', op: 'sendNow' },
      { type: 'editQueue', queue: 'steering', index: 0, text: 'steer me', op: 'remove' },
    ]);
  });

  it('edits in the composer: Enter saves the new text into the message instead of sending, and the draft comes back', async () => {
    const box = page.locator('[data-testid="composer"]');
    await box.fill('my draft');
    await page.locator('[data-queue="followUp"]').nth(0).hover();
    await page.locator('[data-queue="followUp"]').nth(0).locator('[data-action="edit-queued"]').click();
    assert.equal(await box.inputValue(), 'later 1');
    await box.fill('later 1, edited');
    await box.press('Enter');
    assert.deepEqual(await edits(), [{ type: 'editQueue', queue: 'followUp', index: 0, text: 'later 1', op: 'edit', newText: 'later 1, edited' }]);
    assert.equal((await posted(page)).filter((m) => m.type === 'send').length, 0, 'nothing was sent as a new message');
    assert.equal(await box.inputValue(), 'my draft');
  });

  it('Escape stops editing without changing the message or cancelling the run', async () => {
    const box = page.locator('[data-testid="composer"]');
    await page.locator('[data-queue="steering"]').hover();
    await page.locator('[data-queue="steering"] [data-action="edit-queued"]').click();
    await box.press('Escape');
    assert.equal(await box.inputValue(), '');
    assert.deepEqual(await edits(), []);
    assert.equal((await posted(page)).filter((m) => m.type === 'cancel').length, 0);
  });
});
