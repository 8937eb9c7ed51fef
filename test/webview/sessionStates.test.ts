/** Session states the chat shows beside the transcript (headless Chromium): a failed summary that Pi retries, tool calls a failed reply never ran. */

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { useChatPage, batch, deliver, session } from './harness.ts';
import { initialTranscript } from '../../src/shared/transcript/reduce.ts';
import { replayOnto } from '../../src/worker/replay.ts';

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

  it('a reply that ended in an error shows its tool calls failed with the reason, live and when the session is resumed', async () => {
    await batch(page, [
      { type: 'runStart' },
      { type: 'assistantStart', at: 1 },
      { type: 'blockStart', index: 0, kind: 'toolCall', toolCallId: 'live-1', toolName: 'bash', at: 1 },
      { type: 'delta', index: 0, text: '{"command":"ls"}' },
      { type: 'assistantEnd', stopReason: 'error', errorMessage: 'overloaded', at: 2 },
      { type: 'settled', aborted: false, at: 3 },
    ]);
    const live = page.locator('.tool-card[data-tool-call-id="live-1"]');
    assert.equal(await live.getAttribute('data-status'), 'error');
    assert.match(await live.innerText(), /overloaded/);

    const call = (id: string) => ({ type: 'toolCall', id, name: 'bash', arguments: { command: 'ls' } });
    const state = replayOnto(
      initialTranscript,
      [
        { role: 'user', content: 'go', timestamp: 0 },
        { role: 'assistant', content: [call('old-1'), call('old-2')], stopReason: 'error', errorMessage: 'terminated', timestamp: 0 },
        { role: 'assistant', content: [call('old-3')], stopReason: 'aborted', timestamp: 0 },
      ],
      0,
    );
    await deliver(page, { type: 'snapshot', state, session });
    for (const id of ['old-1', 'old-2', 'old-3'])
      assert.equal(await page.locator(`.tool-card[data-tool-call-id="${id}"]`).getAttribute('data-status'), 'error', id);
    assert.equal(await page.locator('.tool-card[data-status="pending"]').count(), 0, 'no call is left pending');
    assert.match(await page.locator('.tool-card[data-tool-call-id="old-3"]').innerText(), /Operation aborted/);
  });
});
