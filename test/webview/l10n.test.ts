/**
 * The chat in Simplified Chinese and Vietnamese at the sidebar's narrowest width: the page reads the bundle the
 * shell embeds, buttons, placeholders, approval choices and screen-reader names are translated (each choice
 * keeping its English `data-choice`), user rows' actions are icon buttons shown on hover and focus, nothing
 * overflows, and axe-core finds no serious or critical violation.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { build, exchange, T0 } from './builders.ts';
import { batch, deliver, openView, root, session, useBrowser } from './harness.ts';

const AXE_SOURCE = readFileSync(join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const bundle = (locale: string) => JSON.parse(readFileSync(join(root, 'l10n', `bundle.l10n.${locale}.json`), 'utf8')) as Record<string, string>;

async function seriousAxeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const w = globalThis as unknown as {
      axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
      document: unknown;
    };
    const r = await w.axe.run(w.document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

describe('the chat in the display language (zh-cn, vi) at the narrowest sidebar', function () {
  const env = useBrowser();

  for (const locale of ['zh-cn', 'vi']) {
    it(`shows the panel's own text in ${locale}, approval choices keeping their English data-choice`, async () => {
      const tr = bundle(locale);
      const page = await openView(env.browser, env.server.origin, 'dark-modern', { width: 240, height: 700 }, { locale });
      try {
        await deliver(page, { type: 'snapshot', state: build(exchange(1)), session });
        assert.equal(await page.getAttribute('[data-testid="composer"]', 'placeholder'), tr['Ask Pi… (Enter to send, Shift+Enter for a new line)']);
        assert.equal((await page.innerText('[data-testid="send"]')).trim(), tr['Send']);
        assert.equal(await page.getAttribute('html', 'lang'), locale);

        // User rows: icon buttons named in the language, hidden until the row is hovered or focused.
        const edit = page.locator('[data-role="user"] [data-action="edit-resend"]').first();
        assert.equal(await edit.getAttribute('aria-label'), tr['Edit and resend']);
        assert.equal(await page.locator('[data-role="user"] [data-action="fork-here"]').first().getAttribute('aria-label'), tr['Fork from here']);
        const opacity = () =>
          edit.evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { opacity: string } }).getComputedStyle(el.parentElement).opacity);
        await page.mouse.move(0, 0);
        assert.equal(await opacity(), '0', 'hidden while the row is neither hovered nor focused');
        await edit.focus();
        assert.equal(await opacity(), '1', 'shown on keyboard focus');

        await batch(page, [
          { type: 'runStart' },
          {
            type: 'dialogOpen',
            dialog: {
              id: 'a1',
              kind: 'select',
              title: tr['Pi wants to run a command']!,
              message: 'npm test',
              options: ['Allow', 'Allow for session', 'Deny'],
              approval: true,
              at: T0,
            },
          },
        ]);
        const card = page.locator('[data-testid="dialog"]');
        assert.deepEqual(await card.locator('button[data-choice]').evaluateAll((bs) => bs.map((b) => [b.getAttribute('data-choice'), b.textContent])), [
          ['Allow', tr['Allow']],
          ['Allow for session', tr['Allow for session']],
          ['Deny', tr['Deny']],
        ]);
        assert.equal(await card.locator('.dialog-reason').getAttribute('placeholder'), tr['Reason for Deny (optional), sent to Pi']);
        const overflow = await page.evaluate(() => {
          const d = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document;
          return d.documentElement.scrollWidth - d.documentElement.clientWidth;
        });
        assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px at 240 px`);
        assert.deepEqual(await seriousAxeViolations(page), []);
      } finally {
        await page.close();
      }
    });
  }
});
