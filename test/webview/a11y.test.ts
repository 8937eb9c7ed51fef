/**
 * Accessibility of the chat webview in headless Chromium, dressed as VS Code dresses it (captured theme
 * variables, body classes and default stylesheet): axe-core finds no serious or critical violation in
 * four themes and several states, every control works from the keyboard, focus survives streaming
 * re-renders, rings are visible and unclipped, and reduced motion and high contrast are honoured.
 */

import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { initialTranscript } from '../../src/shared/transcript/reduce.ts';
import type { TranscriptState } from '../../src/shared/transcript/rows.ts';
import { build, exchange, T0 } from './builders.ts';
import { deliver, openView, type PageWindow, posted, root, session, THEME_KEYS, useBrowser } from './harness.ts';

const AXE_SOURCE = readFileSync(join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const SHOTS = join(root, 'test-results', 'a11y');

/** The test page's DOM, typed loosely (the test tsconfig has no DOM lib). */
type Doc = {
  activeElement: El | null;
  body: El;
  querySelector(s: string): El | null;
  querySelectorAll(s: string): ArrayLike<El>;
};
type El = {
  tagName: string;
  textContent: string | null;
  parentElement: El | null;
  isConnected: boolean;
  getAttribute(n: string): string | null;
  closest(s: string): El | null;
  getBoundingClientRect(): { left: number; top: number; right: number; bottom: number };
};
/** The page's globals, inside page functions (which cannot close over test-side values). */
type G = { document: Doc; getComputedStyle(e: El, pseudo?: string): Record<string, string> };

interface Violation {
  id: string;
  impact: string;
  help: string;
  nodes: string[];
}

/** Runs axe-core (WCAG 2.1 A/AA and best practices, plus the accessible-name rule) in the page; returns serious and critical violations. */
async function axe(page: Page): Promise<Violation[]> {
  // Evaluated through the debugger protocol, so the page's CSP (no inline scripts) does not apply.
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const w = globalThis as unknown as {
      axe: {
        run(
          ctx: unknown,
          opts: unknown,
        ): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[]; failureSummary: string }[] }[] }>;
      };
      document: unknown;
    };
    const result = await w.axe.run(w.document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      // Experimental in axe 4, and the audit's first finding: a visible label must be part of the name.
      rules: { 'label-content-name-mismatch': { enabled: true } },
      resultTypes: ['violations'],
    });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 6).map((n) => `${n.target.join(' ')} — ${n.failureSummary}`) }));
  });
}

const MARKDOWN = [
  '## Plan',
  '',
  'Read [the plan docs](https://example.com/docs) and `src/app.ts`, then:',
  '',
  '- check **types**',
  '- run the *tests*',
  '',
  '| file | lines |',
  '|:-----|------:|',
  '| a.ts | 120 |',
  '| b.ts | 7 |',
  '',
  '> Quoted note.',
  '',
  '```ts',
  '// greet someone',
  'export function greet(name: string): string {',
  '  const n = 42;',
  "  return `hi ${name}` + 'x' + n + true;",
  '}',
  'class Greeter { private readonly who = "you"; }',
  '```',
  '',
].join('\n');

/** A finished conversation: markdown, code, tables, a clipped tool output, a failed tool, an error reply, a length stop. */
function finished(): TranscriptState {
  const at = T0;
  return build([
    ...exchange(0),
    { type: 'userMessage', text: 'Explain the plan.', images: 0 },
    { type: 'runStart' },
    { type: 'assistantStart', at },
    { type: 'blockStart', index: 0, kind: 'thinking', at },
    { type: 'delta', index: 0, text: 'Think about it.' },
    { type: 'blockEnd', index: 0, at: at + 2000 },
    { type: 'blockStart', index: 1, kind: 'text', at },
    { type: 'delta', index: 1, text: MARKDOWN },
    { type: 'blockEnd', index: 1, at },
    { type: 'blockStart', index: 2, kind: 'toolCall', at, toolCallId: 'bad', toolName: 'read' },
    { type: 'delta', index: 2, text: '{"path":"missing.ts"}' },
    { type: 'blockEnd', index: 2, at },
    { type: 'assistantEnd', stopReason: 'toolUse', at, usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, cost: 0 } },
    { type: 'toolStart', toolCallId: 'bad', toolName: 'read', args: '{"path":"missing.ts"}', at },
    { type: 'toolEnd', toolCallId: 'bad', isError: true, output: 'ENOENT: no such file or directory, open missing.ts', durationMs: 3 },
    { type: 'toolResult', toolCallId: 'bad', toolName: 'read', isError: true },
    { type: 'assistantStart', at },
    { type: 'assistantEnd', stopReason: 'error', errorMessage: '400 The provider rejected the request.', at },
    { type: 'assistantStart', at },
    { type: 'blockStart', index: 0, kind: 'text', at },
    { type: 'delta', index: 0, text: 'This reply was cut' },
    { type: 'blockEnd', index: 0, at },
    { type: 'assistantEnd', stopReason: 'length', at },
    { type: 'settled', aborted: false, at },
  ]);
}

/** A run in progress: streaming markdown, a running tool, queued messages (one long), and a stall offering "Cancel and retry". */
function running(): TranscriptState {
  const at = Date.now();
  return build(
    [
      { type: 'userMessage', text: 'Now run the tests.', images: 0 },
      { type: 'runStart' },
      { type: 'assistantStart', at },
      { type: 'blockStart', index: 0, kind: 'toolCall', at, toolCallId: 'run', toolName: 'bash' },
      { type: 'delta', index: 0, text: '{"command":"npm test"}' },
      { type: 'blockEnd', index: 0, at },
      { type: 'assistantEnd', stopReason: 'toolUse', at },
      { type: 'toolStart', toolCallId: 'run', toolName: 'bash', args: '{"command":"npm test"}', at },
      { type: 'toolUpdate', toolCallId: 'run', output: Array.from({ length: 50 }, (_, i) => `ok ${i} - test number ${i}`).join('\n') },
      { type: 'toolResult', toolCallId: 'run', toolName: 'bash', isError: false },
      { type: 'assistantStart', at },
      { type: 'blockStart', index: 0, kind: 'text', at },
      { type: 'delta', index: 0, text: 'Tests are running; see [the log](https://example.com/log) and\n\n```sh\nnpm test\n```\n\nMore soon' },
      { type: 'queue', steering: ['Also check lint.'], followUp: [`Then summarise: ${'every file that changed, '.repeat(12)}end.`] },
      { type: 'stalled', at, since: at - 65_000 },
    ],
    build(exchange(0)),
  );
}

/** A provider error being retried: the status line counts down. */
function retrying(): TranscriptState {
  const at = Date.now();
  return build([
    { type: 'userMessage', text: 'Try it.', images: 0 },
    { type: 'runStart' },
    { type: 'assistantStart', at },
    { type: 'assistantEnd', stopReason: 'error', errorMessage: '429 rate limited', at },
    { type: 'retryStart', attempt: 1, maxAttempts: 3, delayMs: 60_000, errorMessage: '429 rate limited', at },
  ]);
}

/** Notices of each level, with their actions. */
function notices(): TranscriptState {
  return build([
    { type: 'noticeMessage', level: 'info', text: 'Compacted the conversation.' },
    { type: 'noticeMessage', level: 'warning', text: 'Pi did not confirm the cancel.', code: 'settleTimeout' },
    { type: 'noticeMessage', level: 'error', text: 'No model configured.', code: 'noModel' },
    { type: 'noticeMessage', level: 'error', text: 'Provider failed.', code: 'providerError' },
  ]);
}

/** A run that has just started (the "Working…" indicator), then compacting. */
function starting(): TranscriptState {
  return build([{ type: 'userMessage', text: 'Go.', images: 0 }, { type: 'runStart' }, { type: 'compactionStart', reason: 'threshold', at: Date.now() }]);
}

/** Pi's extensions asking: a dialog card of each kind open at once (the run waits for the user). */
function dialogs(): TranscriptState {
  const at = Date.now();
  return build([
    { type: 'userMessage', text: 'Write the file.', images: 0 },
    { type: 'runStart' },
    { type: 'dialogOpen', dialog: { id: 'd1', kind: 'select', title: 'Allow Pi to write out.txt?', options: ['Allow', 'Block'], at } },
    { type: 'dialogOpen', dialog: { id: 'd2', kind: 'confirm', title: 'Overwrite it?', message: 'out.txt exists.', at } },
    { type: 'dialogOpen', dialog: { id: 'd3', kind: 'input', title: 'Commit message', placeholder: 'Describe the change', at } },
    { type: 'dialogOpen', dialog: { id: 'd4', kind: 'editor', title: 'Edit the plan', prefill: '1. Read\n2. Write', at } },
  ]);
}

/** Compacting while a failed summary waits for its retry: the status line counts down. */
function summaryRetrying(): TranscriptState {
  const at = Date.now();
  return build([
    { type: 'compactionStart', reason: 'threshold', at },
    { type: 'summaryRetry', phase: 'scheduled', attempt: 1, maxAttempts: 3, delayMs: 60_000, errorMessage: 'overloaded', at },
  ]);
}

const PNG = readFileSync(join(root, 'test', 'fixtures', 'images', 'red-square.png')).toString('base64');

/** Images: a user row's thumbnail and placeholder, a tool card's thumbnail (the composer's chips are added in the audit). */
function images(): TranscriptState {
  const at = T0;
  return build([
    {
      type: 'userMessage',
      text: 'What is this?',
      images: 2,
      media: [
        { mimeType: 'image/png', bytes: 79, data: PNG },
        { mimeType: 'image/png', bytes: 9_000_000 },
      ],
    },
    { type: 'runStart' },
    { type: 'assistantStart', at },
    { type: 'blockStart', index: 0, kind: 'toolCall', at, toolCallId: 'img', toolName: 'read' },
    { type: 'delta', index: 0, text: '{"path":"a.png"}' },
    { type: 'blockEnd', index: 0, at },
    { type: 'assistantEnd', stopReason: 'toolUse', at },
    { type: 'toolStart', toolCallId: 'img', toolName: 'read', at },
    { type: 'toolEnd', toolCallId: 'img', isError: false, output: 'Read image file [image/png]', media: [{ mimeType: 'image/png', bytes: 79, data: PNG }] },
    { type: 'settled', aborted: false, at },
  ]);
}

/** States the audit covers. */
const STATES: Record<string, () => TranscriptState> = { finished, running, retrying, starting, notices, dialogs, summaryRetrying, images };

const richSession = { ...session, model: 'Claude Test', modelId: 'anthropic/claude-test', contextPercent: 42 };

async function show(page: Page, state: TranscriptState): Promise<void> {
  // From empty: swapping one snapshot for an unrelated one whose ids collide is a different case.
  await deliver(page, { type: 'snapshot', state: initialTranscript, session: richSession });
  await deliver(page, { type: 'snapshot', state, session: richSession });
}

/** Streams a long table into the open reply, so that its rows go into continuation tables (chunks). */
async function streamLongTable(page: Page): Promise<void> {
  const rows = Array.from({ length: 200 }, (_, i) => `| ${i + 1} | [item ${i}](https://example.com/${i}) | ${i * 3} |\n`);
  const texts = ['\n\n| # | item | count |\n| --- | --- | --: |\n', ...Array.from({ length: 5 }, (_, k) => rows.slice(k * 40, k * 40 + 40).join(''))];
  for (const text of texts) await deliver(page, { type: 'batch', events: [{ type: 'delta', index: 0, text }] });
  assert.ok((await page.locator('[data-role="assistant"] table.md-rows').count()) > 0, 'the table streams in chunks');
}

/** Describes the focused element: tag, action or testid, text. */
async function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = (globalThis as unknown as G).document.activeElement;
    if (!el || el === (globalThis as unknown as G).document.body) return 'body';
    const what = el.getAttribute('data-action') ?? el.getAttribute('data-testid') ?? el.getAttribute('aria-label') ?? '';
    return `${el.tagName.toLowerCase()}[${what}] ${(el.textContent ?? '').trim().slice(0, 30)}`;
  });
}

describe('accessibility (axe-core, keyboard, focus, themes)', function () {
  this.timeout(120_000);
  const env = useBrowser();
  let page: Page;
  let pageErrors: string[] = [];

  before(() => {
    mkdirSync(SHOTS, { recursive: true });
  });
  afterEach(async () => {
    await page?.close();
    assert.deepEqual(pageErrors, [], 'the page threw');
  });

  async function open(theme = 'dark-modern', options: { reduceMotion?: boolean; underlineLinks?: boolean } = {}): Promise<Page> {
    pageErrors = [];
    page = await openView(env.browser, env.server.origin, theme, { width: 420, height: 900 }, options);
    page.on('pageerror', (e) => pageErrors.push(e.message));
    return page;
  }

  for (const theme of THEME_KEYS) {
    it(`has no serious or critical axe violation in ${theme} (${Object.keys(STATES).join(', ')})`, async () => {
      await open(theme);
      const found: string[] = [];
      for (const [name, make] of Object.entries(STATES)) {
        await show(page, make());
        if (name === 'dialogs') assert.equal(await page.locator('[data-testid="dialog"]').count(), 4, 'every dialog card is on screen');
        if (name === 'images') await deliver(page, { type: 'restoreInput', texts: [], images: [{ mimeType: 'image/png', data: PNG, name: 'shot.png' }] });
        if (name === 'running') await streamLongTable(page);
        for (const v of await axe(page)) found.push(`${name}: ${v.id} (${v.impact}) ${v.help}\n    ${v.nodes.join('\n    ')}`);
        if (name === 'images') {
          await page.locator('[data-role="user"] [data-image="thumb"]').click();
          await page.locator('[data-testid="image-viewer"]').waitFor();
          for (const v of await axe(page)) found.push(`image viewer: ${v.id} (${v.impact}) ${v.help}\n    ${v.nodes.join('\n    ')}`);
          await page.keyboard.press('Escape');
        }
      }
      assert.deepEqual(found, [], found.join('\n'));
      const csp = await page.evaluate(() => (globalThis as unknown as PageWindow).__violations);
      assert.deepEqual(csp, [], 'the CSP reported a violation (an inline style?)');
    });
  }

  it('names the header pickers by what they show', async () => {
    await open();
    await show(page, initialTranscript);
    assert.equal(await page.getByRole('button', { name: 'Claude Test' }).count(), 1);
    assert.equal(await page.getByRole('button', { name: 'thinking: medium' }).count(), 1);
  });

  it('reaches every control with Tab and operates each from the keyboard, "Cancel and retry" included', async () => {
    await open();
    await show(page, running());
    // Tab through the whole view once: every visible control is in the order.
    const controls = await page.evaluate(() => {
      const out: string[] = [];
      for (const el of Array.from((globalThis as unknown as G).document.querySelectorAll('button, a[href], textarea, [tabindex="0"]'))) {
        const r = el.getBoundingClientRect();
        if (r.right > r.left && r.bottom > r.top) out.push(el.getAttribute('data-action') ?? el.getAttribute('data-testid') ?? el.tagName.toLowerCase());
      }
      return out;
    });
    const reached = new Set<string>();
    await page.locator('header .model').focus();
    for (let i = 0; i < controls.length + 5; i++) {
      reached.add(
        await page.evaluate(() => {
          const el = (globalThis as unknown as G).document.activeElement!;
          return el.getAttribute('data-action') ?? el.getAttribute('data-testid') ?? el.tagName.toLowerCase();
        }),
      );
      await page.keyboard.press('Tab');
    }
    for (const c of controls) assert.ok(reached.has(c), `${c} is not reached by Tab (reached: ${[...reached].join(', ')})`);

    const before = (await posted(page)).length;
    // Enter and Space on buttons, Enter on a link: each does what a click does.
    await page.getByRole('button', { name: 'Cancel and retry' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Cancel and retry' }).focus();
    await page.keyboard.press('Space');
    await page.getByRole('button', { name: 'Claude Test' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'thinking: medium' }).focus();
    await page.keyboard.press('Space');
    await page.getByRole('link', { name: 'the log' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Insert code at cursor' }).last().focus();
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="cancel"]').focus();
    await page.keyboard.press('Enter');
    const sent = (await posted(page)).slice(before);
    assert.deepEqual(sent, [
      { type: 'retryLast' },
      { type: 'retryLast' },
      { type: 'runCommand', command: 'selectModel' },
      { type: 'runCommand', command: 'setThinkingLevel' },
      { type: 'openLink', href: 'https://example.com/log' },
      { type: 'insertCode', text: 'npm test\n' },
      { type: 'cancel' },
    ]);
    // And by mouse.
    await page.getByRole('button', { name: 'Cancel and retry' }).click();
    assert.deepEqual((await posted(page)).slice(-1), [{ type: 'retryLast' }]);
    assert.deepEqual(await page.evaluate(() => (globalThis as unknown as PageWindow).__hostOpened), []);
    // Once the host cancels, the button hides: focus moves to the composer, not to the page body.
    await page.getByRole('button', { name: 'Cancel and retry' }).focus();
    await deliver(page, { type: 'batch', events: [{ type: 'cancelRequested', at: Date.now() }] });
    assert.match(await focused(page), /^textarea\[composer\]/);
  });

  it('operates the thinking toggle and notice actions from the keyboard', async () => {
    await open();
    await show(page, finished());
    const toggle = page.locator('.thinking-toggle').last();
    const was = await toggle.getAttribute('aria-expanded');
    await toggle.focus();
    await page.keyboard.press('Enter');
    assert.notEqual(await toggle.getAttribute('aria-expanded'), was);
    assert.match(await focused(page), /toggle-block/, 'focus stays on the toggle');
    await show(page, notices());
    const before = (await posted(page)).length;
    for (const name of ['Force idle', 'Show Log', 'Retry']) {
      await page.getByRole('button', { name, exact: true }).focus();
      await page.keyboard.press('Enter');
    }
    assert.deepEqual(
      (await posted(page)).slice(before).map((m) => m.type),
      ['forceIdle', 'showLog', 'retryLast'],
    );
  });

  it('keeps focus on a Copy button and on a link while their answer streams and ends', async () => {
    await open();
    const at = T0;
    await show(
      page,
      build([
        { type: 'runStart' },
        { type: 'assistantStart', at },
        { type: 'blockStart', index: 0, kind: 'text', at },
        { type: 'delta', index: 0, text: 'Intro.\n\n```js\nconst a = 1;\n' },
      ]),
    );
    const block = page.locator('[data-content-index="0"]');
    // The open fence is the streaming tail: its Copy button is replaced when the fence closes and the
    // next block begins (the fence is then rendered as finished markdown), and again when the answer ends.
    await block.getByRole('button', { name: 'Copy code' }).focus();
    await deliver(page, { type: 'batch', events: [{ type: 'delta', index: 0, text: 'const b = 2;\n' }] });
    const copy = await page.evaluateHandle(() => (globalThis as unknown as G).document.activeElement);
    await deliver(page, { type: 'batch', events: [{ type: 'delta', index: 0, text: '```\n\nSee [docs](https://example.com/d) and' }] });
    assert.equal(await copy.evaluate((el) => (el as unknown as El).isConnected), false, 'the focused Copy button was replaced');
    assert.match(await focused(page), /^button\[copy-code\]/, 'focus moved to its replacement, not to the body');
    await deliver(page, { type: 'batch', events: [{ type: 'delta', index: 0, text: ' more words' }] });
    assert.match(await focused(page), /^button\[copy-code\]/);

    await block.getByRole('link', { name: 'docs' }).last().focus();
    for (const text of [' and', ' again', ' and again']) {
      await deliver(page, { type: 'batch', events: [{ type: 'delta', index: 0, text }] });
      assert.match(await focused(page), /^a\[\] docs/, `focus stays on the link after "${text}"`);
    }
    await deliver(page, {
      type: 'batch',
      events: [
        { type: 'blockEnd', index: 0, at },
        { type: 'assistantEnd', stopReason: 'stop', at },
        { type: 'settled', aborted: false, at },
      ],
    });
    assert.match(await focused(page), /^a\[\] docs/, 'focus stays on the link when the answer is final');
    assert.equal(await page.evaluate(() => (globalThis as unknown as G).document.activeElement!.closest('[data-content-index]') !== null), true);
  });

  it('announces "Copied" and says the status once per change, not per countdown tick', async () => {
    await open();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.server.origin });
    await show(page, finished());
    await page.getByRole('button', { name: 'Copy code' }).first().click();
    await page.waitForFunction(() => /Copied/.test((globalThis as unknown as G).document.querySelector('#announce-status')!.textContent ?? ''));

    await show(page, retrying());
    const status = page.locator('.status-line .status-text');
    const first = await status.textContent();
    assert.match((await page.locator('#announce-status').textContent()) ?? '', /retry 1\/3/);
    assert.equal(await page.locator('.status-line').getAttribute('role'), null, 'the ticking line is not itself a live region');
    await page.evaluate(() => {
      const w = globalThis as unknown as { __said: number; MutationObserver: new (cb: () => void) => { observe(n: unknown, o: unknown): void } };
      w.__said = 0;
      new w.MutationObserver(() => w.__said++).observe((globalThis as unknown as G).document.querySelector('#announce-status'), {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    // Wait for the countdown to tick (the visible text changes), then check nothing was announced.
    await page.waitForFunction((t) => (globalThis as unknown as G).document.querySelector('.status-line .status-text')!.textContent !== t, first, {
      timeout: 10_000,
    });
    assert.equal(await page.evaluate(() => (globalThis as unknown as { __said: number }).__said), 0);
  });

  for (const theme of THEME_KEYS) {
    it(`shows an unclipped focus ring on a link, the pickers and a tool output in ${theme} (screenshot)`, async () => {
      await open(theme);
      await show(page, finished());
      for (const target of [
        page.getByRole('link', { name: 'the plan docs' }),
        page.locator('header .model'),
        page.locator('header .thinking-level'),
        page.locator('[data-tool-call-id="bad"] .tool-output-text'),
      ]) {
        // Focus it from the keyboard, as :focus-visible requires.
        await target.evaluate((e) => (e as unknown as { focus(): void }).focus());
        await page.keyboard.press('Shift+Tab');
        await page.keyboard.press('Tab');
        const ring = await target.evaluate((e) => {
          const el = e as unknown as El;
          const s = (globalThis as unknown as G).getComputedStyle(el);
          const width = parseFloat(s.outlineWidth);
          const offset = parseFloat(s.outlineOffset);
          const r = el.getBoundingClientRect();
          const grow = width + offset;
          const box = { left: r.left - grow, top: r.top - grow, right: r.right + grow, bottom: r.bottom + grow };
          const clippedBy: string[] = [];
          for (let p = el.parentElement; p; p = p.parentElement) {
            const ps = (globalThis as unknown as G).getComputedStyle(p);
            if (ps.overflowX === 'visible' && ps.overflowY === 'visible') continue;
            const pr = p.getBoundingClientRect();
            if (box.left < pr.left || box.right > pr.right || (ps.overflowY !== 'visible' && (box.top < pr.top || box.bottom > pr.bottom)))
              clippedBy.push(`${p.tagName}.${p.getAttribute('class')}`);
          }
          return { focused: (globalThis as unknown as G).document.activeElement === el, style: s.outlineStyle, width, color: s.outlineColor, clippedBy };
        });
        assert.equal(ring.focused, true);
        assert.notEqual(ring.style, 'none', 'a focus ring is drawn');
        assert.ok(ring.width >= 1, `ring width ${ring.width}`);
        assert.doesNotMatch(ring.color, /rgba\(.*, 0\)$/, 'the ring is not transparent');
        assert.deepEqual(ring.clippedBy, [], 'the ring is clipped');
      }
      await page.getByRole('link', { name: 'the plan docs' }).evaluate((e) => (e as unknown as { focus(): void }).focus());
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('Tab');
      await page.screenshot({ path: join(SHOTS, `focus-link-${theme}.png`) });
    });
  }

  it('underlines links, honouring VS Code\'s "underline links" option too', async () => {
    for (const underlineLinks of [false, true]) {
      await open('light-modern', { underlineLinks });
      await show(page, finished());
      const deco = await page
        .getByRole('link', { name: 'the plan docs' })
        .evaluate((e) => (globalThis as unknown as G).getComputedStyle(e as unknown as El).textDecorationLine);
      assert.equal(deco, 'underline');
      await page.close();
    }
    page = await open();
  });

  it('gives the header pickers and the thinking toggle a border and a hover cue in high contrast', async () => {
    for (const theme of ['dark-hc', 'light-hc']) {
      await open(theme);
      await show(page, finished());
      for (const sel of ['header .model', '.thinking-toggle']) {
        const el = page.locator(sel).first();
        const border = () => el.evaluate((e) => (globalThis as unknown as G).getComputedStyle(e as unknown as El).borderTopStyle);
        assert.equal(await border(), 'solid', `${theme} ${sel}`);
        await el.hover();
        assert.equal(await border(), 'dashed', `${theme} ${sel} on hover`);
      }
      await page.close();
    }
    page = await open();
  });

  it('stops the spinners under reduced motion, from the OS or from VS Code', async () => {
    const spinning = async () => {
      await show(page, build([{ type: 'userMessage', text: 'go', images: 0 }, { type: 'runStart' }]));
      return page.locator('.spinner').evaluate((e) => (globalThis as unknown as G).getComputedStyle(e as unknown as El).animationName);
    };
    await open();
    assert.equal(await spinning(), 'pi-spin');
    await page.emulateMedia({ reducedMotion: 'reduce' });
    assert.equal(await spinning(), 'none');
    await page.close();
    await open('dark-modern', { reduceMotion: true });
    assert.equal(await spinning(), 'none');
  });

  it('shows long queued messages in full and aligns table columns without inline styles', async () => {
    await open();
    const long = `Then summarise: ${'every file that changed, '.repeat(12)}end.`;
    await show(page, running());
    const item = page.locator('[data-queue="followUp"] .queue-text');
    assert.equal(await item.innerText(), long);
    const fits = await item.evaluate((e) => {
      const el = e as unknown as El & { scrollWidth: number; clientWidth: number };
      return el.scrollWidth <= el.clientWidth;
    });
    assert.equal(fits, true, 'the text wraps instead of being cut');
    await show(page, finished());
    const cells = page.locator('.md td');
    assert.equal(await cells.nth(1).evaluate((e) => (globalThis as unknown as G).getComputedStyle(e as unknown as El).textAlign), 'right');
    assert.equal(await cells.nth(0).evaluate((e) => (globalThis as unknown as G).getComputedStyle(e as unknown as El).textAlign), 'left');
    assert.equal(await page.locator('.md [style]').count(), 0);
    assert.deepEqual(await page.evaluate(() => (globalThis as unknown as PageWindow).__violations), []);
  });
});
