/**
 * The compact, icon-led look at the sidebar's narrowest width: actions are codicon buttons named by their
 * tooltip in every display language, in toolbars that show on hover and focus and never wrap onto a line of
 * their own; a blocked or failed edit reads as a proposal that did not run; the Changes row is a compact list.
 */

import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { initialTranscript } from '../../src/shared/transcript/reduce.ts';
import { build, exchange, T0 } from './builders.ts';
import { batch, deliver, openView, posted, root, session, useBrowser } from './harness.ts';

const AXE_SOURCE = readFileSync(join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const bundle = (locale: string): Record<string, string> =>
  locale === 'en' ? {} : (JSON.parse(readFileSync(join(root, 'l10n', `bundle.l10n.${locale}.json`), 'utf8')) as Record<string, string>);

/** One `edit` call of `id` on `path`; `error` makes it fail (or be blocked) with that reason. */
function editCall(id: string, path: string, error?: string): WireEvent[] {
  const args = JSON.stringify({ path: `/work/${path}`, edits: [{ oldText: 'const a = 1;', newText: 'const a = 2;' }] });
  return [
    { type: 'assistantStart', at: T0 },
    { type: 'blockStart', index: 0, kind: 'toolCall', at: T0, toolCallId: id, toolName: 'edit' },
    { type: 'delta', index: 0, text: args },
    { type: 'blockEnd', index: 0, at: T0 },
    { type: 'assistantEnd', stopReason: 'toolUse', at: T0 },
    { type: 'toolStart', toolCallId: id, toolName: 'edit', args, at: T0 },
    { type: 'toolEnd', toolCallId: id, isError: error !== undefined, output: error ?? 'Successfully replaced 1 block(s).', durationMs: 3 },
    { type: 'toolResult', toolCallId: id, toolName: 'edit', isError: error !== undefined },
  ];
}

const CHANGES: WireEvent = {
  type: 'changes',
  runId: 'r1',
  files: [
    { path: 'src/a-rather-long-file-name-for-the-sidebar.ts', added: 12, removed: 3, created: false },
    { path: 'new.txt', added: 3, removed: 0, created: true },
  ],
};

async function axeMismatches(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const w = globalThis as unknown as {
      axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
      document: unknown;
    };
    const r = await w.axe.run(w.document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      rules: { 'label-content-name-mismatch': { enabled: true } },
    });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

/** Asserts `b` is an icon button: a codicon glyph, no visible text, named exactly as its tooltip. */
async function assertIconButton(b: Locator, name: string): Promise<void> {
  assert.equal(await b.count(), 1, `one ${name} button`);
  assert.equal(await b.locator('.codicon').count(), 1, `${name} shows a codicon`);
  assert.equal(((await b.textContent()) ?? '').trim(), '', `${name} has no visible text`);
  const label = await b.getAttribute('aria-label');
  assert.ok(label, `${name} has an accessible name`);
  assert.equal(await b.getAttribute('title'), label, `${name}'s tooltip is its accessible name`);
}

const opacityOf = (l: Locator) =>
  l.evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { opacity: string } }).getComputedStyle(el).opacity);

async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const d = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document;
    return d.documentElement.scrollWidth - d.documentElement.clientWidth;
  });
}

describe('the compact, icon-led look (headless Chromium, 240 px)', function () {
  this.timeout(120_000);
  const env = useBrowser();

  async function open(locale: string): Promise<Page> {
    const page = await openView(env.browser, env.server.origin, 'dark-modern', { width: 240, height: 800 }, locale === 'en' ? {} : { locale });
    await deliver(page, { type: 'snapshot', state: initialTranscript, session });
    return page;
  }

  for (const locale of ['en', 'zh-cn', 'vi']) {
    it(`shows Open Diff, Undo and Undo all as icon buttons named by their tooltip, in a toolbar on the card's own line, in ${locale}`, async () => {
      const tr = bundle(locale);
      const page = await open(locale);
      try {
        await batch(page, [
          { type: 'userMessage', text: 'Edit a.ts.', images: 0, entryId: 'u1' },
          { type: 'runStart' },
          ...editCall('e1', 'src/a-rather-long-file-name-for-the-sidebar.ts'),
          { type: 'settled', aborted: false, at: T0 },
          CHANGES,
        ]);
        const card = page.locator('.tool-card[data-tool-call-id="e1"]');
        const diff = card.locator('[data-action="open-diff"]');
        await assertIconButton(diff, 'Open Diff');
        const fontLoaded = await page.evaluate(async () => {
          const fonts = (
            globalThis as unknown as { document: { fonts: { ready: Promise<unknown>; forEach(cb: (f: { family: string; status: string }) => void): void } } }
          ).document.fonts;
          await fonts.ready;
          let loaded = false;
          fonts.forEach((f) => (loaded ||= f.family.replace(/"/g, '') === 'codicon' && f.status === 'loaded'));
          return loaded;
        });
        assert.ok(fontLoaded, 'the codicon font loaded under the CSP');
        assert.equal(
          await diff.getAttribute('aria-label'),
          (tr['Open diff of {0}'] ?? 'Open diff of {0}').replace('{0}', 'src/a-rather-long-file-name-for-the-sidebar.ts'),
        );
        assert.equal(await diff.getAttribute('data-path'), 'src/a-rather-long-file-name-for-the-sidebar.ts');

        // The toolbar sits on the card's head line, hidden until the card is hovered or focused.
        const head = await card.locator('.tool-head').boundingBox();
        const box = await diff.boundingBox();
        assert.ok(head && box && box.y >= head.y - 1 && box.y + box.height <= head.y + head.height + 1, 'Open Diff is on the head line, not a line of its own');
        await page.mouse.move(0, 0);
        const toolbar = card.locator('.toolbar');
        assert.equal(await opacityOf(toolbar), '0', 'hidden while the card is neither hovered nor focused');
        await diff.focus();
        assert.equal(await opacityOf(toolbar), '1', 'shown on keyboard focus');
        await page.keyboard.press('Enter');
        assert.deepEqual((await posted(page)).filter((m) => m.type === 'openDiff').at(-1), {
          type: 'openDiff',
          path: 'src/a-rather-long-file-name-for-the-sidebar.ts',
        });

        const row = page.locator('[data-testid="changes"]');
        await assertIconButton(row.locator('[data-action="undo-all"]'), 'Undo all');
        for (const path of ['src/a-rather-long-file-name-for-the-sidebar.ts', 'new.txt']) {
          const item = row.locator(`li[data-path="${path}"]`);
          await assertIconButton(item.locator(`[data-action="open-diff"][data-path="${path}"]`), `Open Diff of ${path}`);
          await assertIconButton(item.locator(`[data-action="undo-file"][data-path="${path}"]`), `Undo of ${path}`);
          // One line per file: name, counts and actions side by side.
          const lines = await item.evaluate((el) => {
            const tops = new Set<number>();
            for (const c of Array.from((el as unknown as { children: ArrayLike<{ getBoundingClientRect(): { top: number; height: number } }> }).children)) {
              const r = c.getBoundingClientRect();
              if (r.height > 0) tops.add(Math.round(r.top + r.height / 2));
            }
            return tops.size;
          });
          assert.ok(lines <= 1 || (await item.evaluate((el) => el.getBoundingClientRect().height)) < 30, `${path}'s entry stays one line`);
        }
        assert.ok((await sidewaysOverflow(page)) <= 0, 'nothing scrolls sideways at 240 px');
        assert.deepEqual(await axeMismatches(page), []);
      } finally {
        await page.close();
      }
    });
  }

  for (const [what, reason] of [
    ['blocked by plan mode', 'Plan mode is on: only read-only tools may run, so "edit" was not run. Propose the change in your plan instead.'],
    ['failed', 'Could not find the exact text in src/a.ts. The old text must match exactly including all whitespace and newlines.'],
  ] as const) {
    it(`shows an edit ${what} as a proposal that did not run, its reason on one line and no Open Diff`, async () => {
      const page = await open('en');
      try {
        await batch(page, [{ type: 'userMessage', text: 'Edit a.ts.', images: 0, entryId: 'u1' }, { type: 'runStart' }, ...editCall('b1', 'src/a.ts', reason)]);
        const card = page.locator('.tool-card[data-tool-call-id="b1"]');
        assert.equal(await card.getAttribute('data-status'), 'error', 'the hook still says error');
        assert.equal(await card.locator('[data-action="open-diff"]:visible').count(), 0, 'no Open Diff for a change that never happened');
        assert.equal(await card.getAttribute('data-applied'), 'false');
        assert.match((await card.locator('.tool-proposal-label').textContent()) ?? '', /not applied/i);
        const shown = card.locator('.tool-reason');
        assert.equal(await shown.count(), 1);
        assert.equal(await shown.textContent(), reason, 'the whole reason is in the DOM (and panel.txt)');
        const style = await shown.evaluate((el) => {
          const s = (
            globalThis as unknown as { getComputedStyle(e: unknown): { fontFamily: string; lineHeight: string; whiteSpace: string } }
          ).getComputedStyle(el);
          return { font: s.fontFamily, height: el.getBoundingClientRect().height, line: s.lineHeight, ws: s.whiteSpace };
        });
        assert.doesNotMatch(style.font, /mono|courier|consolas|menlo/i, 'not a monospace paragraph');
        assert.ok(style.height < 24, `one line (${style.height} px)`);
        assert.equal(await card.locator('.tool-output:visible').count(), 0, 'no red output paragraph');
        assert.ok((await sidewaysOverflow(page)) <= 0);
      } finally {
        await page.close();
      }
    });
  }
});

/** One read-only call `name` of `id` in its own assistant message, with its result row; `error` makes it fail. */
function readCall(id: string, name: string, args: Record<string, unknown>, error?: string): WireEvent[] {
  const text = JSON.stringify(args);
  return [
    { type: 'assistantStart', at: T0 },
    { type: 'blockStart', index: 0, kind: 'toolCall', at: T0, toolCallId: id, toolName: name },
    { type: 'delta', index: 0, text },
    { type: 'blockEnd', index: 0, at: T0 },
    { type: 'assistantEnd', stopReason: 'toolUse', at: T0 },
    { type: 'toolStart', toolCallId: id, toolName: name, args: text, at: T0 },
    { type: 'toolEnd', toolCallId: id, isError: error !== undefined, output: error ?? `output of ${id}`, durationMs: 2 },
    { type: 'toolResult', toolCallId: id, toolName: name, isError: error !== undefined },
  ];
}

describe('read-only tool calls grouped into one line (headless Chromium)', function () {
  this.timeout(120_000);
  const env = useBrowser();

  it('folds consecutive reads and searches into one expandable line; edits and a failing call stand alone; every card stays in the DOM', async () => {
    const page = await openView(env.browser, env.server.origin, 'dark-modern', { width: 240, height: 900 });
    try {
      await deliver(page, { type: 'snapshot', state: initialTranscript, session });
      await batch(page, [
        { type: 'userMessage', text: 'Look around, then edit.', images: 0, entryId: 'u1' },
        { type: 'runStart' },
        ...readCall('r1', 'read', { path: 'a.ts' }),
        ...readCall('r2', 'read', { path: 'b.ts' }),
        ...readCall('g1', 'grep', { pattern: 'foo' }),
        ...readCall('r3', 'read', { path: 'c.ts' }),
        ...readCall('g2', 'grep', { pattern: 'bar' }),
        ...readCall('r4', 'read', { path: 'd.ts' }),
        ...readCall('r5', 'read', { path: 'e.ts' }),
        ...editCall('e1', 'src/a.ts'),
        ...readCall('r6', 'read', { path: 'f.ts' }),
        ...readCall('bad', 'read', { path: 'missing.ts' }, 'ENOENT: no such file'),
        ...readCall('r7', 'ls', { path: '.' }),
      ]);
      const groups = page.locator('.tool-group-summary');
      assert.equal(await groups.count(), 1, 'one group: a lone read before a failing call, and one after it, stay cards');
      const summary = groups.first();
      assert.equal(
        (await summary.innerText())
          .trim()
          .replace(/\s+/g, ' ')
          .replace(/^[^A-Za-z]+/, ''),
        'Read 5 files, searched 2 patterns',
      );
      assert.equal(await summary.getAttribute('aria-expanded'), 'false');
      for (const id of ['r1', 'r2', 'g1', 'r3', 'g2', 'r4', 'r5']) {
        const card = page.locator(`.tool-card[data-tool-call-id="${id}"]`);
        assert.equal(await card.count(), 1, `${id} is still in the DOM`);
        assert.equal(await card.getAttribute('data-status'), 'done');
        assert.equal(await card.isVisible(), false, `${id} is folded into the group`);
      }
      for (const id of ['e1', 'r6', 'bad', 'r7'])
        assert.equal(await page.locator(`.tool-card[data-tool-call-id="${id}"]`).isVisible(), true, `${id} stands alone`);
      assert.equal(await page.locator('.tool-card[data-tool-call-id="e1"] .tool-diff').isVisible(), true, 'the edit keeps its diff');

      await summary.click();
      assert.equal(await summary.getAttribute('aria-expanded'), 'true');
      for (const id of ['r1', 'g2', 'r5'])
        assert.equal(await page.locator(`.tool-card[data-tool-call-id="${id}"]`).isVisible(), true, `${id} shows once expanded`);
      await summary.focus();
      await page.keyboard.press('Enter');
      assert.equal(await summary.getAttribute('aria-expanded'), 'false', 'Enter folds it again');
      assert.equal(
        await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { className: string } } }).document.activeElement.className),
        'tool-group-summary',
        'focus stays on the line',
      );
      assert.ok((await sidewaysOverflow(page)) <= 0);
    } finally {
      await page.close();
    }
  });
});

describe('the header at sidebar width (headless Chromium)', function () {
  this.timeout(120_000);
  const env = useBrowser();

  for (const locale of ['en', 'zh-cn', 'vi']) {
    it(`keeps every header control inside the header with Plan mode on at 240 px, in ${locale}`, async () => {
      const page = await openView(env.browser, env.server.origin, 'dark-modern', { width: 240, height: 700 }, locale === 'en' ? {} : { locale });
      try {
        // A transcript taller than the view: the header must hold its height against it.
        await deliver(page, {
          type: 'snapshot',
          state: build([...exchange(0), ...exchange(1), ...exchange(2)]),
          session: { ...session, model: 'Claude Sonnet 4.5 (extended)', modelId: 'anthropic/claude-sonnet-4-5', contextPercent: 42 },
        });
        await batch(page, [
          { type: 'plan', plan: { on: true, items: [] } },
          { type: 'sessionInfo', name: 'Refactor the payment module' },
          { type: 'thinkingLevel', level: 'high' },
        ] as WireEvent[]);
        assert.equal(await page.locator('[data-testid="plan-mode"]').isVisible(), true);
        const boxes = await page.evaluate(() => {
          const d = (
            globalThis as unknown as {
              document: { querySelector(s: string): { getBoundingClientRect(): DOMRectLike; querySelectorAll(s: string): ArrayLike<Element> } };
            }
          ).document;
          type DOMRectLike = { left: number; right: number; top: number; bottom: number; width: number };
          type Element = { getBoundingClientRect(): DOMRectLike; getAttribute(n: string): string | null; className: string; hidden: boolean };
          const header = d.querySelector('.header');
          const transcript = d.querySelector('.scroller');
          const hb = header.getBoundingClientRect();
          const items = Array.from(header.querySelectorAll(':scope > *'))
            .filter((e) => !e.hidden && e.getBoundingClientRect().width > 0)
            .map((e) => ({ what: e.getAttribute('data-action') ?? e.getAttribute('data-testid') ?? e.className, r: e.getBoundingClientRect() }));
          return { header: hb, transcriptTop: transcript.getBoundingClientRect().top, items };
        });
        for (const { what, r } of boxes.items) {
          assert.ok(
            r.left >= boxes.header.left - 0.5 && r.right <= boxes.header.right + 0.5,
            `${what} is clipped sideways (${r.left}–${r.right} in ${boxes.header.left}–${boxes.header.right})`,
          );
          assert.ok(r.bottom <= boxes.header.bottom + 0.5, `${what} slides under the transcript (${r.bottom} > ${boxes.header.bottom})`);
        }
        assert.ok(boxes.header.bottom <= boxes.transcriptTop + 0.5, `the transcript starts below the header (${boxes.header.bottom} > ${boxes.transcriptTop})`);
        for (const action of ['show-sessions', 'show-tree', 'select-model']) {
          const b = page.locator(`.header [data-action="${action}"]`);
          if ((await b.count()) === 1) assert.equal(await b.isVisible(), true, `${action} is on screen`);
        }
        assert.ok((await sidewaysOverflow(page)) <= 0);
      } finally {
        await page.close();
      }
    });
  }
});

/** Describes the focused element, or `body` when focus fell to the page. */
async function focusedOn(page: Page): Promise<string> {
  return page.evaluate(() => {
    const d = (globalThis as unknown as { document: { activeElement: { tagName: string; getAttribute(n: string): string | null } | null; body: unknown } })
      .document;
    const el = d.activeElement;
    if (!el || el === d.body) return 'body';
    return `${el.tagName.toLowerCase()}[${el.getAttribute('data-action') ?? el.getAttribute('data-testid') ?? el.getAttribute('data-choice') ?? ''}]${el.getAttribute('data-index') ?? ''}`;
  });
}

const chip = (path: string, text: string) => ({ type: 'addChip', chip: { kind: 'selection', path, startLine: 1, endLine: 2, text } }) as const;

describe('focus, Escape and contrast on the newest surfaces (headless Chromium)', function () {
  this.timeout(120_000);
  const env = useBrowser();

  async function open(theme = 'dark-modern'): Promise<Page> {
    const page = await openView(env.browser, env.server.origin, theme, { width: 240, height: 800 });
    await deliver(page, { type: 'snapshot', state: initialTranscript, session });
    return page;
  }

  it('keeps focus on a chip when its text expands, closes the preview with Escape, and moves focus to the next chip or the composer when one is removed', async () => {
    const page = await open();
    try {
      await deliver(page, chip('src/a.ts', 'let a = 1;\nlet b = 2;\n'));
      await deliver(page, chip('src/b.ts', 'let c = 3;\n'));
      const strip = page.locator('[data-testid="composer-chips"]');
      await strip.locator('[data-action="expand-chip"]').first().focus();
      await page.keyboard.press('Enter');
      assert.equal(await page.locator('[data-testid="chip-preview"]').isVisible(), true, 'the preview opened');
      assert.equal(await focusedOn(page), 'button[expand-chip]0', 'focus stays on the chip that expanded');
      await page.keyboard.press('Escape');
      assert.equal(await page.locator('[data-testid="chip-preview"]').isVisible(), false, 'Escape closed the preview');
      assert.equal(await focusedOn(page), 'button[expand-chip]0');
      assert.equal(await page.getAttribute('body', 'data-run-state'), 'idle');

      await strip.locator('[data-action="remove-chip"]').first().focus();
      await page.keyboard.press('Enter');
      assert.equal(await strip.locator('.chip').count(), 1);
      assert.equal(await focusedOn(page), 'button[remove-chip]0', "focus moves to the next chip's remove button");
      await page.keyboard.press('Enter');
      assert.equal(await focusedOn(page), 'textarea[composer]', 'the last chip removed: focus goes to the composer');
    } finally {
      await page.close();
    }
  });

  for (const how of ['a choice', 'Escape']) {
    it(`returns focus to the Restore button, not the page body, once the restore card is answered by ${how}`, async () => {
      const page = await open();
      try {
        await batch(page, [
          { type: 'userMessage', text: 'Edit a.ts.', images: 0, entryId: 'u1' },
          { type: 'runStart' },
          ...editCall('e1', 'src/a.ts'),
          { type: 'settled', aborted: false, at: T0 },
        ]);
        const restore = page.locator('[data-role="user"] [data-action="restore"]');
        await restore.focus();
        await page.keyboard.press('Enter');
        const choices = ['Code and conversation', 'Conversation only', 'Code only'];
        await batch(page, [
          {
            type: 'dialogOpen',
            dialog: {
              id: 'dialog-1',
              kind: 'select',
              title: 'Restore to this message?',
              options: choices,
              panel: true,
              restore: { checkpoint: 'a'.repeat(40), files: [] },
              at: T0,
            },
          },
        ]);
        assert.match(await focusedOn(page), /^button\[/, 'the card took focus');
        if (how === 'Escape') await page.keyboard.press('Escape');
        else await page.locator('[data-choice="Conversation only"]').press('Enter');
        assert.notEqual(await focusedOn(page), 'body', 'focus stays in the answered card until it closes');
        await batch(page, [{ type: 'dialogClose', id: 'dialog-1', outcome: 'answered' }]);
        assert.equal(await focusedOn(page), 'button[restore]', 'focus goes back to what opened the card');
      } finally {
        await page.close();
      }
    });
  }

  for (const theme of ['dark-modern', 'light-modern']) {
    it(`draws +N/−N counts and chip sizes at 4.5:1 and focus rings on Open Diff and chip buttons at 3:1, unclipped, in ${theme}`, async () => {
      const page = await open(theme);
      try {
        await batch(page, [
          { type: 'userMessage', text: 'Edit a.ts.', images: 0, entryId: 'u1' },
          { type: 'runStart' },
          ...editCall('e1', 'src/a.ts'),
          { type: 'settled', aborted: false, at: T0 },
          CHANGES,
          // The Restore card lists the files changed since, with the same counts.
          {
            type: 'dialogOpen',
            dialog: {
              id: 'dialog-1',
              kind: 'select',
              title: 'Restore to this message?',
              options: ['Code and conversation', 'Conversation only', 'Code only'],
              panel: true,
              restore: { checkpoint: 'a'.repeat(40), files: [{ path: 'src/a.ts', added: 4, removed: 2, created: false }] },
              at: T0,
            },
          },
        ]);
        await deliver(page, chip('src/a.ts', 'let a = 1;\n'));
        const ratios = await page.evaluate(() => {
          type El = { parentElement: El | null; getBoundingClientRect(): { left: number; right: number; top: number; bottom: number } };
          const g = globalThis as unknown as {
            document: { querySelectorAll(s: string): ArrayLike<El> };
            getComputedStyle(e: El): Record<string, string>;
          };
          const rgb = (c: string): number[] => {
            const m = /rgba?\(([^)]+)\)/.exec(c);
            if (m)
              return m[1]!
                .split(/[ ,/]+/)
                .filter(Boolean)
                .map(Number);
            const s = /srgb ([\d.]+) ([\d.]+) ([\d.]+)(?: \/ ([\d.]+))?/.exec(c);
            if (s) return [Number(s[1]) * 255, Number(s[2]) * 255, Number(s[3]) * 255, s[4] === undefined ? 1 : Number(s[4])];
            throw new Error(`colour ${c}`);
          };
          const lum = (c: number[]) => {
            const [r, gg, b] = c.slice(0, 3).map((v) => {
              const x = v / 255;
              return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
            });
            return 0.2126 * r! + 0.7152 * gg! + 0.0722 * b!;
          };
          const ratio = (a: number[], b: number[]) => (Math.max(lum(a), lum(b)) + 0.05) / (Math.min(lum(a), lum(b)) + 0.05);
          /** The first opaque background at or above `el`. */
          const bgOf = (el: El | null): number[] => {
            for (let e = el; e; e = e.parentElement) {
              const c = rgb(g.getComputedStyle(e).backgroundColor!);
              if ((c[3] ?? 1) > 0.5) return c;
            }
            return rgb(g.getComputedStyle((globalThis as unknown as { document: { body: El } }).document.body).backgroundColor!);
          };
          const out: Record<string, number> = {};
          for (const sel of [
            '[data-testid="changes"] .change-added',
            '[data-testid="changes"] .change-removed',
            '[data-testid="dialog"] .change-added',
            '[data-testid="dialog"] .change-removed',
            '.chip-size',
          ]) {
            const el = g.document.querySelectorAll(sel)[0]!;
            // Opacity fades the text into what is behind it.
            const bg = bgOf(el);
            const op = Number(g.getComputedStyle(el).opacity);
            const fg = rgb(g.getComputedStyle(el).color!)
              .slice(0, 3)
              .map((v, i) => v * op + bg[i]! * (1 - op));
            out[sel] = ratio(fg, bg);
          }
          return out;
        });
        for (const [sel, r] of Object.entries(ratios)) assert.ok(r >= 4.5, `${sel}: ${r.toFixed(2)}:1`);

        for (const sel of [
          '.tool-card [data-action="open-diff"]',
          '[data-testid="changes"] [data-action="undo-file"]',
          '[data-testid="composer-chips"] [data-action="remove-chip"]',
          '[data-testid="composer-chips"] [data-action="expand-chip"]',
        ]) {
          // Keyboard focus, so :focus-visible applies.
          await page
            .locator(sel)
            .first()
            .evaluate((el) => (el as unknown as { focus(o: unknown): void }).focus({ focusVisible: true }));
          const ring = await page
            .locator(sel)
            .first()
            .evaluate((el) => {
              type E = { parentElement: E | null; getBoundingClientRect(): { left: number; right: number; top: number; bottom: number } };
              const g = globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> };
              const s = g.getComputedStyle(el);
              const width = parseFloat(s.outlineWidth!);
              const offset = parseFloat(s.outlineOffset!);
              const r = (el as unknown as E).getBoundingClientRect();
              const outer = { left: r.left - offset - width, right: r.right + offset + width, top: r.top - offset - width, bottom: r.bottom + offset + width };
              // The ring's colour against what lies beside it: inside the button (its offset is negative) or around it.
              let bgEl: E | null = offset < 0 ? (el as unknown as E) : (el as unknown as E).parentElement;
              let bg = 'rgba(0, 0, 0, 0)';
              for (; bgEl; bgEl = bgEl.parentElement) {
                const c = g.getComputedStyle(bgEl).backgroundColor!;
                if (!/rgba\(.*, 0\)$/.test(c) && c !== 'transparent') {
                  bg = c;
                  break;
                }
              }
              let clipped = '';
              for (let p = (el as unknown as E).parentElement; p; p = p.parentElement) {
                const ps = g.getComputedStyle(p);
                if (ps.overflowX === 'visible' && ps.overflowY === 'visible') continue;
                const pr = p.getBoundingClientRect();
                if (outer.left < pr.left - 0.5 || outer.right > pr.right + 0.5 || outer.top < pr.top - 0.5 || outer.bottom > pr.bottom + 0.5)
                  clipped = `${ps.overflowX}/${ps.overflowY}`;
              }
              return { style: s.outlineStyle, width, color: s.outlineColor, bg, clipped };
            });
          assert.notEqual(ring.style, 'none', `${sel} shows a ring`);
          assert.ok(ring.width >= 1, `${sel} ring width ${ring.width}`);
          assert.equal(ring.clipped, '', `${sel}'s ring is clipped by an ancestor`);
          const contrast = await page.evaluate(
            ([a, b]) => {
              const rgb = (c: string) => {
                const m = /rgba?\(([^)]+)\)/.exec(c);
                if (m)
                  return m[1]!
                    .split(/[ ,/]+/)
                    .filter(Boolean)
                    .map(Number);
                const s = /srgb ([\d.]+) ([\d.]+) ([\d.]+)/.exec(c)!;
                return [Number(s[1]) * 255, Number(s[2]) * 255, Number(s[3]) * 255];
              };
              const lum = (c: number[]) =>
                c
                  .slice(0, 3)
                  .map((v) => {
                    const x = v / 255;
                    return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
                  })
                  .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i]!, 0);
              const la = lum(rgb(a!));
              const lb = lum(rgb(b!));
              return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
            },
            [ring.color, ring.bg],
          );
          assert.ok(contrast >= 3, `${sel}'s ring ${ring.color} on ${ring.bg}: ${contrast.toFixed(2)}:1`);
        }
      } finally {
        await page.close();
      }
    });
  }
});

describe('a view shown again draws its last picture at once (headless Chromium)', function () {
  this.timeout(120_000);
  const env = useBrowser();

  async function openWith(state: unknown): Promise<Page> {
    const page = await env.browser.newPage({ viewport: { width: 360, height: 700 } });
    await page.addInitScript((s) => {
      (globalThis as unknown as { __uiState: unknown }).__uiState = s;
    }, state);
    await page.goto(`${env.server.origin}/`);
    await page.waitForFunction(() => (globalThis as unknown as { __posted: { type: string }[] }).__posted.some((m) => m.type === 'ready'));
    return page;
  }

  it('saves a picture of the rows on screen, shows it before the snapshot (inert, no hooks), and drops it for the live rows', async () => {
    const first = await openView(env.browser, env.server.origin, 'dark-modern', { width: 360, height: 700 });
    const last = 'The last reply, as the user left it.';
    const state = build([
      ...exchange(0),
      { type: 'userMessage', text: 'And now?', images: 0, entryId: 'u9' },
      { type: 'runStart' },
      ...editCall('e1', 'src/a.ts'),
      { type: 'assistantStart', at: T0 },
      { type: 'blockStart', index: 0, kind: 'text', at: T0 },
      { type: 'delta', index: 0, text: `Some **markdown** and [a link](https://example.com).\n\n${last}` },
      { type: 'blockEnd', index: 0, at: T0 },
      { type: 'assistantEnd', stopReason: 'stop', at: T0 },
      { type: 'settled', aborted: false, at: T0 },
    ]);
    let saved: unknown;
    try {
      await deliver(first, { type: 'snapshot', state, session });
      await first.waitForFunction(
        (text) => JSON.stringify((globalThis as unknown as { __uiState?: { render?: unknown } }).__uiState?.render ?? '').includes(text),
        last,
      );
      saved = await first.evaluate(() => (globalThis as unknown as { __uiState: unknown }).__uiState);
    } finally {
      await first.close();
    }

    const again = await openWith(saved);
    try {
      const picture = again.locator('.saved-render');
      assert.equal(await picture.count(), 1, 'the picture is drawn before any message from the host');
      assert.equal(await picture.getByText(last).isVisible(), true, 'the last reply is on screen at once');
      assert.equal(await picture.getAttribute('aria-hidden'), 'true');
      assert.equal(await picture.getAttribute('inert'), '');
      assert.equal(
        await picture.locator('[data-testid], [data-tool-call-id], [data-action], [data-role], a, button, img, script').count(),
        0,
        'no hooks, links or controls',
      );
      assert.equal(await again.locator('[data-testid="transcript"]').getByText(last).count(), 0, 'the transcript itself is still empty');
      await deliver(again, { type: 'snapshot', state, session });
      assert.equal(await again.locator('.saved-render').count(), 0, 'the live rows replaced it');
      assert.equal(await again.locator('[data-testid="transcript"]').getByText(last).isVisible(), true);
    } finally {
      await again.close();
    }
  });

  it('draws only known tags and plain class names from a saved picture, whatever the state holds', async () => {
    const page = await openWith({
      render: [
        ['script', '', 'globalThis.__pwned = 1'],
        ['div', 'row" onclick="x', ['img', ''], 'kept text', ['iframe', '', 'no']],
        ['div', 'row row-assistant', ['p', '', 'plain ', ['strong', '', 'bold']]],
        { tag: 'div' },
      ],
    });
    try {
      const picture = page.locator('.saved-render');
      assert.equal(await picture.count(), 1);
      assert.equal(((await picture.textContent()) ?? '').replace(/\s+/g, ' ').trim(), 'kept textplain bold');
      assert.equal(await picture.locator('script, img, iframe, [onclick]').count(), 0);
      assert.equal(await picture.locator('div.row.row-assistant strong').count(), 1);
      assert.equal(await page.evaluate(() => (globalThis as unknown as { __pwned: number }).__pwned), 0);
    } finally {
      await page.close();
    }
  });
});
