/** Session states the chat shows beside the transcript (headless Chromium): a failed summary that Pi retries. */

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { useChatPage, batch } from './harness.ts';

type G = { document: { querySelector(s: string): { textContent: string | null } | null } };

describe('session states in the chat webview (headless Chromium)', function () {
  this.timeout(60_000);
  let page: Page;
  useChatPage((p) => {
    page = p;
  });

  it('a summary retry during compaction: the error and a countdown, then the attempt, then the compaction alone, announced per change', async () => {
    const now = await page.evaluate(() => Date.now());
    await batch(page, [
      { type: 'compactionStart', reason: 'threshold', at: now },
      { type: 'noticeMessage', level: 'warning', text: 'Summarizing the conversation failed (overloaded); Pi retries (attempt 1 of 3) in 30 s.' },
      { type: 'summaryRetry', phase: 'scheduled', attempt: 1, maxAttempts: 3, delayMs: 30_000, errorMessage: 'overloaded', at: now },
    ]);
    const line = page.locator('.status-line');
    assert.equal(await page.getAttribute('body', 'data-run-state'), 'compacting');
    assert.match(await line.innerText(), /^Summarizing failed: overloaded — retry 1\/3 in (30|29) s$/);
    assert.match((await page.locator('#announce-status').textContent()) ?? '', /Summarizing failed: overloaded/);
    // The countdown ticks on its own.
    const first = await line.innerText();
    await page.waitForFunction((t) => (globalThis as unknown as G).document.querySelector('.status-line .status-text')!.textContent !== t, first, {
      timeout: 10_000,
    });

    await batch(page, [{ type: 'summaryRetry', phase: 'attempt', source: 'compaction', at: now + 30_000 }]);
    assert.equal(await line.innerText(), 'Writing the summary again (attempt 1/3)…');
    assert.match((await page.locator('#announce-status').textContent()) ?? '', /Writing the summary again/);

    await batch(page, [{ type: 'summaryRetry', phase: 'finished', at: now + 31_000 }]);
    assert.equal(await line.innerText(), 'Compacting the conversation (threshold)…');
    await batch(page, [{ type: 'compactionEnd', reason: 'threshold', aborted: false, willRetry: false, at: now + 32_000 }]);
    assert.equal(await line.isHidden(), true);
    assert.equal(await page.getAttribute('body', 'data-run-state'), 'idle');
    // The notice stays in the transcript as the record of what happened.
    assert.match(await page.locator('[data-role="notice"]').innerText(), /Summarizing the conversation failed \(overloaded\)/);
  });

  it('a branch summary retried outside a run says what it summarizes, and leaves the run idle', async () => {
    const now = await page.evaluate(() => Date.now());
    await batch(page, [
      { type: 'summaryRetry', phase: 'scheduled', attempt: 2, maxAttempts: 3, delayMs: 0, errorMessage: '500', at: now },
      { type: 'summaryRetry', phase: 'attempt', source: 'branchSummary', at: now },
    ]);
    assert.equal(await page.locator('.status-line').innerText(), 'Writing the branch summary again (attempt 2/3)…');
    assert.equal(await page.getAttribute('body', 'data-run-state'), 'idle');
  });
});
