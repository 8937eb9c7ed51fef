/** The webview pages a long transcript in from the host: a capped snapshot, `loadEarlier` at the top, replies prepended in place. */

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { earlierPage, pageBefore, recentPart, SNAPSHOT_ROWS } from '../../src/shared/transcript/paging.ts';
import { reduce } from '../../src/shared/transcript/reduce.ts';
import type { TranscriptState } from '../../src/shared/transcript/rows.ts';
import { longTranscript, T0 } from './builders.ts';
import { batch, deliver, posted, session, useChatPage } from './harness.ts';

const ROWS = '[data-testid="transcript"] [data-role]';

/** The ids of the rows in the DOM, top to bottom. */
function domIds(page: Page): Promise<number[]> {
  return page.locator(ROWS).evaluateAll((els) => els.map((el) => Number(el.getAttribute('data-msg-id'))));
}

/** Scrolls the transcript to its very top, as a user dragging up would. */
async function scrollToTop(page: Page): Promise<void> {
  await page.locator('main.scroller').evaluate((el) => {
    el.scrollTop = 0;
  });
}

/** Where the row `id` is on screen (px from the viewport's top). */
function topOf(page: Page, id: number): Promise<number> {
  return page.locator(`[data-msg-id="${id}"]`).evaluate((el) => el.getBoundingClientRect().top);
}

describe('chat webview paging from the host (headless Chromium)', function () {
  this.timeout(60_000);
  let page: Page;
  useChatPage((p) => {
    page = p;
  });

  it('shows 200 of 5,000 messages, asks for the earlier page at the top and prepends it in place while a live batch lands', async () => {
    let host: TranscriptState = longTranscript(5000);
    const part = recentPart(host);
    assert.equal(part.state.messages.length, SNAPSHOT_ROWS);
    await deliver(page, { type: 'snapshot', state: part.state, session, earlier: part.earlier });
    const ids = (s: TranscriptState, n: number) => s.messages.slice(-n).map((m) => m.id);
    assert.deepEqual(await domIds(page), ids(host, 100));
    assert.match(await page.locator('.load-earlier').innerText(), new RegExp(`\\(${host.messages.length - 100} not shown\\)`));

    // The first scroll to the top shows the rows the snapshot holds; nothing is asked of the host yet.
    await scrollToTop(page);
    await page.waitForFunction(
      (sel) => (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<unknown> } }).document.querySelectorAll(sel).length === 200,
      ROWS,
    );
    assert.ok(!(await posted(page)).some((m) => m.type === 'loadEarlier'));

    // The next one asks for the page before the first row held.
    await scrollToTop(page);
    await page.waitForFunction(() => (globalThis as unknown as { __posted: { type: string }[] }).__posted.some((m) => m.type === 'loadEarlier'));
    const asks = (await posted(page)).filter((m) => m.type === 'loadEarlier');
    const firstHeld = part.state.messages[0]!.id;
    assert.deepEqual(asks, [{ type: 'loadEarlier', before: firstHeld, count: 100 }]);

    // A live batch lands while the page is on its way.
    const live: WireEvent[] = [
      { type: 'userMessage', text: 'One more thing', images: 0 },
      { type: 'runStart' },
      { type: 'assistantStart', at: T0 },
      { type: 'blockStart', index: 0, kind: 'text', at: T0 },
      { type: 'delta', index: 0, text: 'Streaming on' },
    ];
    host = reduce(host, live);
    await deliver(page, { type: 'batch', events: live });

    const anchorTop = await topOf(page, firstHeld);
    const reply = earlierPage(host, firstHeld, 100)!;
    await deliver(page, { type: 'earlier', before: firstHeld, ...JSON.parse(JSON.stringify(reply)) });
    assert.deepEqual(await domIds(page), ids(host, 302), 'the page sits above the rows held, the live rows below');
    assert.ok(Math.abs((await topOf(page, firstHeld)) - anchorTop) <= 1, 'the row the user was looking at stays where it was');
    assert.match(await page.locator('.load-earlier').innerText(), new RegExp(`\\(${reply.earlier} not shown\\)`));
    // The paged-in tool cards are the host's.
    const card = reply.messages.find((m) => m.role === 'toolResult')!.toolCallId!;
    assert.equal(await page.locator(`.tool-card[data-tool-call-id="${card}"]`).getAttribute('data-status'), 'done');

    // A reply to a question not asked (or asked of a replaced transcript) changes nothing.
    await deliver(page, { type: 'earlier', before: firstHeld, ...JSON.parse(JSON.stringify(reply)) });
    assert.equal(await page.locator(ROWS).count(), 302);
  });

  it('forgets the earlier rows on a new session, and drops a page that arrives after it', async () => {
    const host = longTranscript(1000);
    const part = recentPart(host);
    await deliver(page, { type: 'snapshot', state: part.state, session, earlier: part.earlier });
    await page.locator('.load-earlier').click();
    await page.locator('.load-earlier').click();
    const ask = (await posted(page)).find((m) => m.type === 'loadEarlier');
    assert.ok(ask, 'asked the host');
    await deliver(page, { type: 'batch', events: [{ type: 'reset' }, { type: 'userMessage', text: 'fresh start', images: 0 }] });
    const reply = earlierPage(host, part.state.messages[0]!.id, 100)!;
    await deliver(page, { type: 'earlier', before: part.state.messages[0]!.id, ...JSON.parse(JSON.stringify(reply)) });
    assert.equal(await page.locator(ROWS).count(), 1);
    assert.equal(await page.locator('.load-earlier').isHidden(), true);
  });

  it('keeps a bounded window of rows scrolled up or following while 1,500 more stream, and pages older ones back from the host', async () => {
    const host = longTranscript(300);
    const part = recentPart(host);
    await deliver(page, { type: 'snapshot', state: part.state, session, earlier: part.earlier });
    const turns = (from: number, n: number): WireEvent[] =>
      Array.from({ length: n }, (_, i): WireEvent => ({ type: 'noticeMessage', level: 'info', text: `turn ${from + i}` }));
    const newest = async () => (await domIds(page)).at(-1)!;

    // Scrolled up: what the user reads stays, the DOM stops growing, newer rows wait below.
    await scrollToTop(page);
    const reading = (await domIds(page))[0]!;
    const readingTop = await topOf(page, reading);
    for (let i = 0; i < 15; i++) await batch(page, turns(i * 100, 100));
    const scrolledUp = await domIds(page);
    assert.ok(scrolledUp.length <= 400, `at most 400 rows in the DOM scrolled up (${scrolledUp.length})`);
    assert.ok(scrolledUp.includes(reading) && Math.abs((await topOf(page, reading)) - readingTop) <= 1, 'the row read stays in place');

    // Scrolling down pages the newer rows in, a window at a time; "jump to latest" shows the newest.
    await page.locator('main.scroller').evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    await page.waitForFunction(
      ([sel, first]) =>
        Number(
          (globalThis as unknown as { document: { querySelector(s: string): { getAttribute(a: string): string } | null } }).document
            .querySelector(sel as string)
            ?.getAttribute('data-msg-id'),
        ) > (first as number),
      [ROWS, scrolledUp[0]!] as const,
    );
    assert.ok((await domIds(page)).length <= 400);
    await page.locator('.jump-latest').click();
    await page.locator(`[data-msg-id="${part.state.nextId + 1499}"]`).waitFor();

    // Following: the DOM stays small, and the rows far above it have gone back to the host.
    for (let i = 15; i < 20; i++) await batch(page, turns(i * 100, 100));
    const following = await domIds(page);
    assert.ok(following.length <= 200, `at most 200 rows following (${following.length})`);
    assert.equal(await newest(), part.state.nextId + 1999);
    await scrollToTop(page);
    await scrollToTop(page);
    await page.waitForFunction(() => (globalThis as unknown as { __posted: { type: string }[] }).__posted.some((m) => m.type === 'loadEarlier'));
    const ask = (await posted(page)).find((m) => m.type === 'loadEarlier')!;
    assert.ok(Number(ask.before) > part.state.nextId, `the state no longer holds the snapshot's rows (asked before ${String(ask.before)})`);
  });

  it('updates a tool card still running in the rows read back while many rows arrive below them', async function () {
    this.timeout(300_000);
    const host = longTranscript(300);
    const part = recentPart(host);
    await deliver(page, { type: 'snapshot', state: part.state, session, earlier: part.earlier });
    await batch(page, [
      { type: 'userMessage', text: 'run the slow one', images: 0 },
      { type: 'runStart' },
      { type: 'assistantStart', at: T0 },
      { type: 'blockStart', index: 0, kind: 'toolCall', at: T0, toolCallId: 'slow', toolName: 'bash' },
      { type: 'delta', index: 0, text: '{"command":"sleep 600"}' },
      { type: 'blockEnd', index: 0, at: T0 },
      { type: 'assistantEnd', stopReason: 'toolUse', at: T0 },
      { type: 'toolStart', toolCallId: 'slow', toolName: 'bash', args: '{"command":"sleep 600"}', at: T0 },
    ]);
    const card = page.locator('[data-tool-call-id="slow"]');
    await card.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await page.locator('main.scroller').evaluate((el) => {
      el.scrollTop -= 40;
    });
    // Many turns below it (another chat's extension, parallel tools): the rows read are held apart.
    for (let i = 0; i < 8; i++)
      await batch(
        page,
        Array.from({ length: 100 }, (_, k): WireEvent[] => [
          { type: 'userMessage', text: `prompt ${i}-${k}`, images: 0 },
          { type: 'noticeMessage', level: 'info', text: `note ${i}-${k}` },
        ]).flat(),
      );
    const held = await page.evaluate(() => (globalThis as unknown as { __piPanelHeld(): { rows: number; cards: number } }).__piPanelHeld());
    assert.ok(held.rows < 1300, `the rows between went back to the host (${held.rows} held)`);
    assert.equal(await card.getAttribute('data-status'), 'running');
    await batch(page, [{ type: 'toolUpdate', toolCallId: 'slow', output: 'halfway there' }]);
    await page.waitForFunction(() =>
      (globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }).document
        .querySelector('[data-tool-call-id="slow"]')
        ?.textContent.includes('halfway there'),
    );
    await batch(page, [{ type: 'toolEnd', toolCallId: 'slow', isError: false, output: 'all done', durationMs: 600_000 }]);
    assert.equal(await card.getAttribute('data-status'), 'done');
  });

  it('shows an Undo on a Changes row read back on that row while many rows arrived below it (the update names the row)', async function () {
    this.timeout(300_000);
    const host = longTranscript(300);
    const part = recentPart(host);
    await deliver(page, { type: 'snapshot', state: part.state, session, earlier: part.earlier });
    const rowId = part.state.nextId;
    const file = { path: 'src/undo-me.ts', added: 3, removed: 1, created: false };
    await batch(page, [{ type: 'changes', runId: 'run_read', files: [file], replace: false, rowId }]);
    const changed = page.locator(`[data-msg-id="${rowId}"] .change-file[data-path="src/undo-me.ts"]`);
    await changed.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await page.locator('main.scroller').evaluate((el) => {
      el.scrollTop -= 40;
    });
    // Many rows below it: the rows read are held apart from the newest.
    let next = rowId + 1;
    for (let i = 0; i < 8; i++)
      await batch(
        page,
        Array.from({ length: 100 }, (_, k): WireEvent[] => [
          { type: 'userMessage', text: `prompt ${i}-${k}`, images: 0, rowId: next++ },
          { type: 'noticeMessage', level: 'info', text: `note ${i}-${k}`, rowId: next++ },
        ]).flat(),
      );
    const held = await page.evaluate(() => (globalThis as unknown as { __piPanelHeld(): { rows: number; cards: number } }).__piPanelHeld());
    assert.ok(held.rows < 1300, `the rows between went back to the host (${held.rows} held)`);
    assert.equal(await changed.getAttribute('data-undone'), null);
    // The user clicked Undo on it: the worker updates that row.
    await batch(page, [{ type: 'changes', runId: 'run_read', files: [{ ...file, undone: true }], replace: true, rowId }]);
    await page.waitForFunction(
      (id) =>
        (globalThis as unknown as { document: { querySelector(s: string): { getAttribute(a: string): string | null } | null } }).document
          .querySelector(`[data-msg-id="${id}"] .change-file[data-path="src/undo-me.ts"]`)
          ?.getAttribute('data-undone') === 'true',
      rowId,
      { timeout: 5000 },
    );
  });

  it('holds a bounded number of rows and cards while the user reads back and 3,000 more arrive, and fills in the rows between as they scroll down', async function () {
    // Thousands of rows through a headless page, on a machine the other tests share: no speed is asserted.
    this.timeout(300_000);
    let host = longTranscript(300);
    const part = recentPart(host);
    await deliver(page, { type: 'snapshot', state: part.state, session, earlier: part.earlier });
    // A turn: the user's prompt, a tool card and its result.
    const turns = (from: number, n: number): WireEvent[] =>
      Array.from({ length: n }, (_, k): WireEvent[] => {
        const i = from + k;
        return [
          { type: 'userMessage', text: `prompt ${i}`, images: 0, entryId: `live${i}` },
          { type: 'toolStart', toolCallId: `live_${i}`, toolName: 'bash', args: '{}', at: T0 },
          { type: 'toolEnd', toolCallId: `live_${i}`, isError: false, output: `output ${i}`, durationMs: 1 },
          { type: 'toolResult', toolCallId: `live_${i}`, toolName: 'bash', isError: false },
        ];
      }).flat();
    const held = () => page.evaluate(() => (globalThis as unknown as { __piPanelHeld(): { rows: number; cards: number } }).__piPanelHeld());
    // Answers the view's loadEarlier questions as the host does, from every row.
    const answer = async () => {
      for (const ask of (await posted(page)).filter((m) => m.type === 'loadEarlier').slice(answered)) {
        answered++;
        const reply = pageBefore(host, Number(ask.before), Number(ask.count));
        await deliver(page, { type: 'earlier', before: Number(ask.before), ...JSON.parse(JSON.stringify(reply)) });
      }
    };
    let answered = 0;

    await scrollToTop(page);
    const reading = (await domIds(page))[0]!;
    const sizes: number[] = [];
    for (let i = 0; i < 15; i++) {
      const events = turns(i * 100, 100);
      host = reduce(host, events);
      await batch(page, events);
      const h = await held();
      sizes.push(h.rows);
      assert.ok(h.rows <= 1200 && h.cards <= 1200, `after ${(i + 1) * 100} turns the view holds ${h.rows} rows, ${h.cards} cards`);
    }
    assert.ok(sizes.at(-1)! <= sizes[4]! + 100, `flat while reading back: ${sizes.join(', ')}`);
    assert.ok((await domIds(page)).includes(reading), 'the row read is still on screen');

    // Fork from a user row read back: it is named by its session entry, whatever is held apart after it.
    const user = page.locator('[data-testid="transcript"] [data-role="user"]').first();
    const userId = Number(await user.getAttribute('data-msg-id'));
    await user.hover();
    await user.locator('[data-action="fork-here"]').click();
    const fork = (await posted(page)).find((m) => m.type === 'forkHere')!;
    const forked = host.messages.find((m) => m.id === userId);
    assert.equal(forked?.role === 'user' ? forked.entryId : undefined, fork.entryId);
    assert.ok(fork.entryId);

    // Scrolling down shows every row after those read, in order, the rows between fetched from the host.
    const seen = new Set(await domIds(page));
    for (let step = 0; step < 10; step++) {
      await page.locator('main.scroller').evaluate((el) => {
        el.scrollTop = el.scrollHeight;
      });
      await page.evaluate(
        () =>
          new Promise<void>((r) => {
            const w = globalThis as unknown as { requestAnimationFrame(cb: () => void): number };
            w.requestAnimationFrame(() => w.requestAnimationFrame(r));
          }),
      );
      await answer();
      for (const id of await domIds(page)) seen.add(id);
    }
    const ids = [...seen].sort((a, b) => a - b);
    const all = host.messages.map((m) => m.id);
    const from = all.indexOf(ids[0]!);
    assert.deepEqual(ids, all.slice(from, from + ids.length), 'no row skipped');
    assert.ok(ids.length > 900, `scrolled through ${ids.length} rows`);
    assert.ok(answered > 0, 'the rows between came from the host');
    assert.ok((await held()).rows <= 1500, `${(await held()).rows} rows held after scrolling down`);

    // "Jump to latest" shows the newest rows again.
    await page.locator('.jump-latest').click();
    await page.locator(`[data-msg-id="${host.messages.at(-1)!.id}"]`).waitFor({ state: 'attached' });
    assert.ok((await held()).rows <= 1200);
  });
});
