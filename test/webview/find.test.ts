/** Find in chat (headless Chromium): the whole session is searched through the host, a match far above is paged in and marked. */

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { findRows } from '../../src/shared/transcript/find.ts';
import { aroundBefore, earlierPage, pageBefore, recentPart } from '../../src/shared/transcript/paging.ts';
import { reduce } from '../../src/shared/transcript/reduce.ts';
import type { TranscriptState } from '../../src/shared/transcript/rows.ts';
import type { HostToWebview } from '../../src/shared/wire/webviewProtocol.ts';
import { exchange, longTranscript } from './builders.ts';
import { deliver, posted, session, useChatPage } from './harness.ts';

/** Answers the page's `find` and `loadEarlier` messages from `host` until `done` says stop. */
async function serve(page: Page, host: TranscriptState, done: () => Promise<boolean>): Promise<void> {
  let answered = 0;
  for (let i = 0; i < 400 && !(await done()); i++) {
    const asks = (await posted(page)).slice(answered);
    answered += asks.length;
    for (const m of asks) {
      if (m.type === 'find') await deliver(page, { type: 'found', seq: m.seq as number, ...findRows(host, m.query as string) });
      else if (m.type === 'loadAround') await deliver(page, aroundReply(host, m.id as number, m.count as number));
      else if (m.type === 'loadEarlier')
        await deliver(page, {
          type: 'earlier',
          before: m.before as number,
          ...JSON.parse(JSON.stringify(earlierPage(host, m.before as number, m.count as number)!)),
        });
    }
    if (!asks.length) await page.waitForTimeout(20);
  }
}

describe('find in chat (headless Chromium)', function () {
  this.timeout(120_000);
  let page: Page;
  useChatPage((p) => {
    page = p;
  });

  it('opens with Ctrl+F, finds a word on a page far above, pages it in, marks and counts it, and Escape closes', async () => {
    // The word is in the third exchange of about 1,500 rows: the snapshot holds the newest 200.
    let host = reduce(longTranscript(8), [{ type: 'userMessage', text: 'Where is the zebra config?', images: 0, entryId: 'zebra1' }]);
    for (let n = 100; host.messages.length < 1500; n++) host = reduce(host, exchange(n));
    const part = recentPart(host);
    await deliver(page, { type: 'snapshot', state: part.state, session, earlier: part.earlier });
    await page.locator('[data-testid="composer"]').click();
    await page.keyboard.press('Control+f');
    const box = page.locator('[data-testid="find"]');
    assert.ok(await box.isVisible(), 'the find box opened');
    assert.ok(
      await box.evaluate((el) => (el as unknown as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement === el),
      'it has the cursor',
    );
    await box.fill('ZEBRA');
    const mark = page.locator('mark[data-find]');
    await serve(page, host, async () => (await mark.count()) > 0);
    assert.equal(await mark.count(), 1);
    assert.equal(await mark.innerText(), 'zebra');
    assert.equal(await mark.getAttribute('data-find'), 'current');
    assert.equal(await page.locator('[data-testid="find-count"]').innerText(), '1 of 1');
    assert.ok(await mark.isVisible());
    const find = (await posted(page)).find((m) => m.type === 'find');
    assert.equal(find?.query, 'ZEBRA');
    await box.press('Escape');
    assert.equal(await box.isVisible(), false);
    assert.equal(await mark.count(), 0, 'the marks are gone');
    assert.match(await page.locator('[data-msg-id]', { hasText: 'zebra' }).innerText(), /Where is the zebra config\?/);
    assert.equal(await page.locator('body').getAttribute('data-run-state'), 'idle');
    assert.ok(!(await posted(page)).some((m) => m.type === 'cancel'), 'Escape in the find box cancels nothing');
  });

  it('counts every match of the session and moves between them with Enter and Shift+Enter', async () => {
    const host = longTranscript(300);
    await deliver(page, { type: 'snapshot', state: host, session });
    await page.keyboard.press('Control+f');
    await page.locator('[data-testid="find"]').fill('the docs');
    const count = page.locator('[data-testid="find-count"]');
    const total = findRows(host, 'the docs').total;
    assert.ok(total > 50);
    await serve(page, host, async () => (await count.innerText()) === `${total} of ${total}`);
    assert.equal(await count.innerText(), `${total} of ${total}`);
    await page.locator('[data-testid="find"]').press('Enter');
    assert.equal(await count.innerText(), `1 of ${total}`);
    await page.locator('[data-testid="find"]').press('Shift+Enter');
    assert.equal(await count.innerText(), `${total} of ${total}`);
    assert.equal(await page.locator('mark[data-find="current"]').count(), 1);
  });
});

/** Answers `loadAround` as the host does: the page of rows around the row, and how many rows come after it. */
function aroundReply(host: TranscriptState, id: number, count: number): HostToWebview {
  const page = pageBefore(host, aroundBefore(id, count), count);
  return { type: 'around', id, ...(JSON.parse(JSON.stringify(page)) as typeof page), later: host.messages.length - page.earlier - page.messages.length };
}

describe('find in chat, a match far above (headless Chromium)', function () {
  this.timeout(300_000);
  let page: Page;
  useChatPage((p) => {
    page = p;
  });

  it('moves to a match thousands of rows above with one request for the rows around it, and "Jump to latest" goes back', async () => {
    let host = reduce(longTranscript(150), [{ type: 'userMessage', text: 'Where is the zebra config?', images: 0, entryId: 'zebra1' }]);
    for (let n = 1000; host.messages.length < 6000; n += 50) host = reduce(host, Array.from({ length: 50 }, (_, i) => exchange(n + i)).flat());
    const part = recentPart(host);
    await deliver(page, { type: 'snapshot', state: part.state, session, earlier: part.earlier });
    await page.keyboard.press('Control+f');
    await page.locator('[data-testid="find"]').fill('zebra');
    const mark = page.locator('mark[data-find="current"]');
    let answered = 0;
    const asked: string[] = [];
    for (let i = 0; i < 400 && !(await mark.count()); i++) {
      const asks = (await posted(page)).slice(answered);
      answered += asks.length;
      for (const m of asks) {
        if (m.type === 'find') await deliver(page, { type: 'found', seq: m.seq as number, ...findRows(host, m.query as string) });
        else if (m.type === 'loadAround') {
          asked.push('loadAround');
          await deliver(page, aroundReply(host, m.id as number, m.count as number));
        } else if (m.type === 'loadEarlier') {
          asked.push('loadEarlier');
          await deliver(page, {
            type: 'earlier',
            before: m.before as number,
            ...JSON.parse(JSON.stringify(earlierPage(host, m.before as number, m.count as number)!)),
          });
        }
      }
      if (!asks.length) await page.waitForTimeout(20);
    }
    assert.deepEqual(asked, ['loadAround'], 'one page of rows, around the match');
    assert.equal(await mark.innerText(), 'zebra');
    assert.ok(await mark.isVisible());
    assert.ok((await page.locator('[data-msg-id]').count()) <= 200, 'only the page around the match is drawn');
    assert.ok(await page.locator('[data-action="load-earlier"]').isVisible(), 'the rows before it can still be paged in');
    // Back to the newest rows.
    await page.locator('[data-testid="find"]').press('Escape');
    const jump = page.locator('.jump-latest');
    assert.ok(await jump.isVisible(), '"Jump to latest" is offered');
    await jump.click();
    const newest = host.messages[host.messages.length - 1]!.id;
    await page.locator(`[data-msg-id="${newest}"]`).waitFor();
    assert.equal(await page.locator('[data-msg-id]', { hasText: 'zebra' }).count(), 0, 'the page read is gone');
  });
});

describe('find in chat, back down from a match far above (headless Chromium)', function () {
  this.timeout(300_000);
  let page: Page;
  useChatPage((p) => {
    page = p;
  });

  it('pages the rows between back in as the user scrolls down from the page around a match, until the newest rows join it', async () => {
    let host = reduce(longTranscript(150), [{ type: 'userMessage', text: 'Where is the zebra config?', images: 0, entryId: 'zebra1' }]);
    for (let n = 1000; host.messages.length < 1500; n++) host = reduce(host, exchange(n));
    const part = recentPart(host);
    await deliver(page, { type: 'snapshot', state: part.state, session, earlier: part.earlier });
    await page.keyboard.press('Control+f');
    await page.locator('[data-testid="find"]').fill('zebra');
    const newest = page.locator(`[data-msg-id="${host.messages[host.messages.length - 1]!.id}"]`);
    let answered = 0;
    let aroundAsked = 0;
    let marked = false;
    for (let i = 0; i < 300 && !(marked && (await newest.count())); i++) {
      const asks = (await posted(page)).slice(answered);
      answered += asks.length;
      for (const m of asks) {
        if (m.type === 'find') await deliver(page, { type: 'found', seq: m.seq as number, ...findRows(host, m.query as string) });
        else if (m.type === 'loadAround') {
          aroundAsked++;
          await deliver(page, aroundReply(host, m.id as number, m.count as number));
        } else if (m.type === 'loadEarlier')
          await deliver(page, {
            type: 'earlier',
            before: m.before as number,
            ...JSON.parse(JSON.stringify(pageBefore(host, m.before as number, m.count as number))),
          });
      }
      if (!marked && (await page.locator('mark[data-find="current"]').count()) > 0) {
        marked = true;
        assert.equal(await newest.count(), 0, 'the page around the match is read apart from the newest rows');
      }
      // Once the match is marked, the reader scrolls down, a screen at a time.
      if (marked)
        await page
          .locator('main.scroller')
          .evaluate(
            (el) => ((el as unknown as { scrollTop: number; scrollHeight: number }).scrollTop = (el as unknown as { scrollHeight: number }).scrollHeight),
          );
      if (!asks.length) await page.waitForTimeout(20);
    }
    assert.equal(aroundAsked, 1);
    assert.ok(marked, 'the match was marked first');
    assert.equal(await newest.count(), 1, 'scrolling down reached the newest rows');
    const held = await page.evaluate(() => (globalThis as unknown as { __piPanelHeld(): { rows: number } }).__piPanelHeld().rows);
    assert.ok(held < 1500, `the view holds a window of rows, not the whole session (${held})`);
  });
});
