/** A view shown again (headless Chromium): the host draws the view's last picture into the new page, so it paints before the script loads, as text only. */

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { pictureHtml } from '../../src/shared/savedPicture.ts';
import { build, exchange, T0 } from './builders.ts';
import { asHostSends, deliver, openView, pageHtml, posted, session, useBrowser } from './harness.ts';

/** Text a reply may hold that would run, load or break out if the picture were HTML from content. */
const HOSTILE = [
  '<script>globalThis.__pwned = 1</script>',
  '</div><img src=x onerror="globalThis.__pwned = 2">',
  '{{constructor.constructor("globalThis.__pwned = 3")()}}',
  '</script><meta http-equiv="Content-Security-Policy" content="script-src *">',
  '"><svg onload="globalThis.__pwned = 4">',
];
const LAST = 'The last reply, as the user left it.';

describe('a view shown again paints the picture the host put into its page (headless Chromium)', function () {
  this.timeout(120_000);
  const env = useBrowser();

  it('posts its picture to the host; the new page shows it before main.js runs, hostile text as text, and the live rows replace it', async () => {
    const state = build([
      ...exchange(0),
      { type: 'userMessage', text: 'Show me the tricky strings', images: 0, entryId: 'u9' },
      { type: 'runStart' },
      { type: 'assistantStart', at: T0 },
      { type: 'blockStart', index: 0, kind: 'text', at: T0 },
      { type: 'delta', index: 0, text: `Here they are:\n\n\`\`\`html\n${HOSTILE.join('\n')}\n\`\`\`\n\nInline: \`${HOSTILE[1]}\`\n\n${LAST}` },
      { type: 'blockEnd', index: 0, at: T0 },
      { type: 'assistantEnd', stopReason: 'stop', at: T0 },
      { type: 'settled', aborted: false, at: T0 },
    ]);
    const first = await openView(env.browser, env.server.origin, 'dark-modern', { width: 360, height: 700 });
    let rows: unknown;
    try {
      await deliver(first, { type: 'snapshot', state, session });
      await first.waitForFunction(() => (globalThis as unknown as { __posted: { type: string }[] }).__posted.some((m) => m.type === 'savedPicture'));
      rows = (await posted(first, true)).findLast((m) => m.type === 'savedPicture')?.rows;
    } finally {
      await first.close();
    }
    assert.ok(JSON.stringify(rows).includes(LAST), 'the picture holds the last reply');

    // The page of the view created again, as the host makes it; its script waits until the picture was looked at.
    const page: Page = await env.browser.newPage({ viewport: { width: 360, height: 700 } });
    try {
      const origin = env.server.origin;
      await page.route(`${origin}/`, (route) =>
        route.fulfill({ contentType: 'text/html; charset=utf-8', body: pageHtml(origin, { theme: 'dark-modern', picture: pictureHtml(rows) }) }),
      );
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route(`${origin}/dist/webview/main.js`, async (route) => {
        await held;
        await route.continue();
      });
      // The page parses up to its script and waits there: what is drawn now is drawn without it.
      await page.goto(`${origin}/`, { waitUntil: 'commit' });
      const picture = page.locator('.saved-render');
      await picture.getByText(LAST).waitFor();
      const box = await picture.getByText(LAST).boundingBox();
      assert.ok(box && box.y >= 0 && box.y + box.height <= 700, `the last reply is in sight before the script runs (at ${JSON.stringify(box)})`);
      const text = (await picture.textContent()) ?? '';
      for (const s of HOSTILE) assert.ok(text.includes(s), `shown as text: ${s}`);
      assert.equal(
        await page.locator('img, svg, iframe, meta[http-equiv="Content-Security-Policy"] ~ meta, #app script').count(),
        0,
        'no element from the text',
      );
      assert.equal(await page.locator('meta[http-equiv="Content-Security-Policy"]').count(), 1, 'the page keeps its one policy');
      assert.equal(await picture.locator('[onerror], [onload], [data-testid], [data-action], a, button').count(), 0);
      assert.equal(await picture.getAttribute('aria-hidden'), 'true');

      release();
      await page.waitForFunction(() => (globalThis as unknown as { __posted: { type: string }[] }).__posted.some((m) => m.type === 'ready'));
      assert.equal(await page.locator('.saved-render').getByText(LAST).isVisible(), true, 'the app keeps showing it until the host answers');
      await deliver(page, { type: 'snapshot', state, session });
      assert.equal(await page.locator('.saved-render').count(), 0, 'the live rows replaced it');
      assert.equal(await page.locator('[data-testid="transcript"]').getByText(LAST).isVisible(), true);
      assert.equal(await page.evaluate(() => (globalThis as unknown as { __pwned: number }).__pwned), 0, 'nothing from the text ran');
    } finally {
      await page.close();
    }
  });
  it('loads before main.js is fetched (VS Code shows a new page once it has loaded), and keeps a message sent meanwhile for the script', async () => {
    const state = build([
      ...exchange(0),
      { type: 'userMessage', text: 'And then?', images: 0, entryId: 'u9' },
      { type: 'runStart' },
      { type: 'assistantStart', at: T0 },
      { type: 'blockStart', index: 0, kind: 'text', at: T0 },
      { type: 'delta', index: 0, text: LAST },
      { type: 'blockEnd', index: 0, at: T0 },
      { type: 'assistantEnd', stopReason: 'stop', at: T0 },
      { type: 'settled', aborted: false, at: T0 },
    ]);
    const page: Page = await env.browser.newPage({ viewport: { width: 360, height: 700 } });
    try {
      const origin = env.server.origin;
      await page.route(`${origin}/`, (route) =>
        route.fulfill({
          contentType: 'text/html; charset=utf-8',
          body: pageHtml(origin, { theme: 'dark-modern', picture: pictureHtml([['div', 'row', LAST]]) }),
        }),
      );
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route(`${origin}/dist/webview/main.js`, async (route) => {
        await held;
        await route.continue();
      });
      // Held, main.js would keep the load event (and so the page on screen) waiting if the page waited for it.
      await page.goto(`${origin}/`, { waitUntil: 'load', timeout: 20_000 });
      assert.equal(await page.locator('.saved-render').getByText(LAST).isVisible(), true, 'the picture is there when the page has loaded');
      // The host's snapshot may come before the script: VS Code hands messages to a page as soon as it has loaded.
      await page.evaluate(
        (m) => {
          const w = globalThis as unknown as { dispatchEvent(e: unknown): void; MessageEvent: new (t: string, i: unknown) => unknown };
          w.dispatchEvent(new w.MessageEvent('message', { data: m }));
        },
        asHostSends(page, { type: 'snapshot', state, session }),
      );
      release();
      await page.waitForFunction(() => (globalThis as unknown as { __posted: { type: string }[] }).__posted.some((m) => m.type === 'ready'));
      await page.locator('[data-testid="transcript"]').getByText(LAST).waitFor({ timeout: 20_000 });
      assert.equal(await page.locator('.saved-render').count(), 0, 'the snapshot sent before the script was applied: the live rows replaced the picture');
    } finally {
      await page.close();
    }
  });
});

describe('a view shown again gives the focus back where the user left it (headless Chromium)', function () {
  this.timeout(120_000);
  const env = useBrowser();

  /**
   * The UI state a page saved, once it says `composerFocus: want`. Writes are coalesced (200 ms): an earlier write may
   * hold the value before the last move of the focus, so the wait is for the value the case's last step makes.
   */
  async function savedState(page: Page, want: boolean): Promise<Record<string, unknown>> {
    await page.waitForFunction((w) => {
      const s = (globalThis as unknown as { __uiState?: { composerFocus?: unknown } }).__uiState;
      return s?.composerFocus === w;
    }, want);
    return page.evaluate(() => (globalThis as unknown as { __uiState: Record<string, unknown> }).__uiState);
  }

  /** The page made again from `saved` (VS Code hands it the state the last page saved), focused as VS Code focuses a tab shown again. */
  async function shownAgain(saved: Record<string, unknown>): Promise<Page> {
    const page = await env.browser.newPage({ viewport: { width: 360, height: 700 } });
    await page.addInitScript((s) => {
      (globalThis as unknown as { __uiState: unknown }).__uiState = s;
    }, saved);
    await page.goto(`${env.server.origin}/?theme=dark-modern`);
    await page.waitForFunction(() => (globalThis as unknown as { __posted: { type: string }[] }).__posted.some((m) => m.type === 'ready'));
    await page.evaluate(() => {
      const w = globalThis as unknown as { dispatchEvent(e: unknown): void; FocusEvent: new (t: string) => unknown };
      w.dispatchEvent(new w.FocusEvent('focus'));
    });
    return page;
  }

  const composerFocused = (page: Page): Promise<boolean> =>
    page.evaluate(() => {
      const d = (globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string | null } | null } }).document;
      return d.activeElement?.getAttribute('data-testid') === 'composer';
    });

  it('puts the focus back in the composer when the composer had it as the page went (another tab took its place)', async () => {
    const first = await openView(env.browser, env.server.origin, 'dark-modern', { width: 360, height: 700 });
    let saved: Record<string, unknown>;
    try {
      await first.locator('[data-testid="composer"]').click();
      // The focus leaves the page (the user clicks another editor's tab): no element of the page takes it.
      await first.evaluate(() => (globalThis as unknown as { document: { activeElement: { blur(): void } } }).document.activeElement.blur());
      saved = await savedState(first, true);
    } finally {
      await first.close();
    }
    const page = await shownAgain(saved);
    try {
      assert.equal(await composerFocused(page), true, 'the composer has the focus again');
    } finally {
      await page.close();
    }
  });

  it('leaves the composer alone when the user had moved the focus elsewhere in the page', async () => {
    const first = await openView(env.browser, env.server.origin, 'dark-modern', { width: 360, height: 700 });
    let saved: Record<string, unknown>;
    try {
      await first.locator('[data-testid="composer"]').click();
      await first.locator('main[aria-label]').focus();
      saved = await savedState(first, false);
    } finally {
      await first.close();
    }
    assert.equal(saved.composerFocus, false);
    const page = await shownAgain(saved);
    try {
      assert.equal(await composerFocused(page), false, 'the focus is not put into the composer');
    } finally {
      await page.close();
    }
  });
});
