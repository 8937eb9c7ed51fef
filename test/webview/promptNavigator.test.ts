/** The prompt navigator (headless Chromium): Alt+Up/Down between the user's own messages, and the outline of prompts. */

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { longTranscript } from './builders.ts';
import { deliver, session, useChatPage } from './harness.ts';

/** The text of the focused row and how far its top is from the top of the conversation's view (px). */
async function focusedRow(page: Page): Promise<{ text: string; offset: number }> {
  return page.evaluate(() => {
    interface El {
      readonly textContent: string | null;
      getAttribute(name: string): string | null;
      getBoundingClientRect(): { top: number };
      readonly tagName: string;
    }
    const d = (globalThis as unknown as { document: { activeElement: El; querySelector(s: string): El | null } }).document;
    const row = d.activeElement;
    const scroller = d.querySelector('.scroller')!;
    return {
      text: row.getAttribute('data-role') === 'user' ? (row.textContent ?? '') : `not a user row: ${row.tagName}`,
      offset: Math.round(row.getBoundingClientRect().top - scroller.getBoundingClientRect().top),
    };
  });
}

describe('prompt navigator (headless Chromium)', function () {
  this.timeout(120_000);
  let page: Page;
  useChatPage(async (p) => {
    page = p;
    await deliver(p, { type: 'snapshot', state: longTranscript(40), session });
  });

  it('moves to the previous and next of your messages with Alt+Up and Alt+Down', async () => {
    await page.keyboard.press('Alt+ArrowUp');
    let row = await focusedRow(page);
    assert.match(row.text, /Question 9:/);
    assert.ok(Math.abs(row.offset) <= 2, `at the top of the view (${row.offset})`);
    await page.keyboard.press('Alt+ArrowUp');
    assert.match((await focusedRow(page)).text, /Question 8:/);
    await page.keyboard.press('Alt+ArrowUp');
    assert.match((await focusedRow(page)).text, /Question 7:/);
    await page.keyboard.press('Alt+ArrowDown');
    row = await focusedRow(page);
    assert.match(row.text, /Question 8:/);
  });

  it('lists your prompts in an outline and jumps to the one chosen', async () => {
    await page.locator('[data-action="toggle-prompt-outline"]').click();
    const items = page.locator('[data-testid="prompt-outline"] [data-prompt-id]');
    assert.equal(await items.count(), 10);
    assert.match(await items.nth(2).innerText(), /^Question 2: what is in src\/2\?$/);
    await items.nth(2).click();
    assert.equal(await page.locator('[data-testid="prompt-outline"]').isVisible(), false);
    const row = await focusedRow(page);
    assert.match(row.text, /Question 2:/);
    assert.ok(Math.abs(row.offset) <= 2, `at the top of the view (${row.offset})`);
  });
});
