/** The chat webview in headless Chromium: §7 attributes, incremental rendering, composer and actions. */

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { initialTranscript, reduce } from '../../src/shared/transcript/reduce.ts';
import type { TranscriptState } from '../../src/shared/transcript/rows.ts';
import { build, exchange, longTranscript, T0 } from './builders.ts';
import { asHostSends, batch, deliver, openView, type PageWindow, posted, projectFixture, session, useBrowser } from './harness.ts';

async function snapshot(page: Page, state: TranscriptState): Promise<void> {
  await deliver(page, { type: 'snapshot', state, session });
}

/** Records the transcript's DOM mutations during `action`; returns, per record, its target described. */
async function mutationsDuring(page: Page, action: () => Promise<void>): Promise<{ inside: (selector: string) => boolean; count: number; describe: string[] }> {
  // Code drawn before the highlighter's chunk came is coloured in place once it is here: that one drawing is not what is watched.
  await page.waitForFunction(
    () => (globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector('[data-highlight="pending"]') === null,
  );
  await page.evaluate(() => {
    const w = globalThis as unknown as { __records: unknown[]; __observer: { disconnect(): void } } & Record<string, unknown>;
    const doc = (globalThis as unknown as { document: { querySelector(s: string): unknown } }).document;
    w.__records = [];
    const Observer = (
      globalThis as unknown as { MutationObserver: new (cb: (r: unknown[]) => void) => { observe(n: unknown, o: unknown): void; disconnect(): void } }
    ).MutationObserver;
    const observer = new Observer((records) => w.__records.push(...records));
    w.__observer = observer;
    observer.observe(doc.querySelector('[data-testid="transcript"]'), { subtree: true, childList: true, attributes: true, characterData: true });
  });
  await action();
  const paths = await page.evaluate(() => {
    const w = globalThis as unknown as {
      __records: { target: { nodeType: number; parentElement: unknown } & Record<string, unknown> }[];
      __observer: { disconnect(): void };
    };
    w.__observer.disconnect();
    return w.__records.map((r) => {
      // The closest element of the target and the path of block/row ids up to the transcript.
      let el = (r.target.nodeType === 1 ? r.target : r.target.parentElement) as {
        getAttribute(n: string): string | null;
        parentElement: unknown;
        tagName: string;
      } | null;
      const chain: string[] = [];
      while (el && el.getAttribute('data-testid') !== 'transcript') {
        const id = el.getAttribute('data-msg-id');
        const block = el.getAttribute('data-content-index');
        const card = el.getAttribute('data-tool-call-id');
        if (id) chain.push(`row:${id}`);
        if (block) chain.push(`block:${block}`);
        if (card) chain.push(`card:${card}`);
        el = el.parentElement as typeof el;
      }
      return chain.reverse().join('/') || '(transcript)';
    });
  });
  return { count: paths.length, describe: paths, inside: (prefix: string) => paths.every((p) => p.startsWith(prefix)) };
}

describe('chat webview (headless Chromium)', function () {
  this.timeout(60_000);
  const env = useBrowser();
  let page: Page;
  let pageErrors: string[] = [];

  beforeEach(async () => {
    pageErrors = [];
    page = await openView(env.browser, env.server.origin);
    page.on('pageerror', (e) => pageErrors.push(`${e.message}\n${e.stack ?? ''}`));
  });
  afterEach(async () => {
    await page?.close();
    assert.deepEqual(pageErrors, [], 'the page threw');
  });

  it('draws a replayed history whose row ids now name other kinds of rows (a restore, a tree move) without throwing', async () => {
    const at = T0;
    await snapshot(
      page,
      build([
        { type: 'userMessage', text: 'First question', images: 0 },
        { type: 'assistantStart', at },
        { type: 'blockStart', index: 0, kind: 'text', at },
        { type: 'delta', index: 0, text: 'First answer' },
        { type: 'blockEnd', index: 0, at },
        { type: 'assistantEnd', stopReason: 'stop', at },
      ]),
    );
    const roles = () =>
      page
        .locator('[data-testid="transcript"] [data-role]')
        .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-msg-id')}:${e.getAttribute('data-role')}`));
    assert.deepEqual(await roles(), ['1:user', '2:assistant']);
    // The same ids, numbered afresh: 1 is a notice now, 2 the question.
    await snapshot(
      page,
      build([
        { type: 'noticeMessage', level: 'info', text: 'Restored the conversation.' },
        { type: 'userMessage', text: 'Asked again', images: 0 },
      ]),
    );
    assert.deepEqual(await roles(), ['1:notice', '2:user']);
    assert.match(await page.locator('[data-testid="transcript"]').innerText(), /Restored the conversation\.[\s\S]*Asked again/);
  });

  it('says ready on load and marks the body idle', async () => {
    assert.deepEqual((await posted(page))[0], { type: 'ready' });
    assert.equal(await page.getAttribute('body', 'data-run-state'), 'idle');
    assert.equal(await page.locator('[data-testid="composer"]').evaluate((e) => e.tagName), 'TEXTAREA');
    assert.equal(await page.locator('[data-testid="send"]').count(), 1);
    assert.equal(await page.locator('[data-testid="steer"]').count(), 0);
  });

  it('renders a recorded tool-then-answer run with the §7 attributes', async () => {
    const { batches } = projectFixture('tool-then-answer.json');
    await snapshot(page, initialTranscript);
    for (const b of batches) await batch(page, b);
    const roles = await page.$$eval('[data-testid="transcript"] [data-role]', (els) => els.map((e) => e.getAttribute('data-role')));
    assert.deepEqual(roles, ['user', 'assistant', 'toolResult', 'assistant']);
    const stops = await page.$$eval('[data-role="assistant"]', (els) => els.map((e) => e.getAttribute('data-stop-reason')));
    assert.deepEqual(stops, ['toolUse', 'stop']);
    const blocks = await page.$$eval('[data-role="assistant"] [data-block]', (els) =>
      els.map((e) => `${e.getAttribute('data-block')}@${e.getAttribute('data-content-index')}`),
    );
    assert.deepEqual(blocks, ['thinking@0', 'text@1', 'toolCall@2', 'text@0']);
    const card = page.locator('[data-tool-call-id="call_1"]');
    assert.equal(await card.getAttribute('data-tool-name'), 'bash');
    assert.equal(await card.getAttribute('data-status'), 'done');
    assert.match((await card.getAttribute('data-duration-ms')) ?? '', /^\d+$/);
    assert.match(await card.innerText(), /scripted-tool-output/);
    assert.equal(await page.getAttribute('body', 'data-run-state'), 'idle');
  });

  it('shows a tool call with no execution yet as pending, then running, then done only at its end', async () => {
    const at = T0;
    await snapshot(page, initialTranscript);
    await batch(page, [
      { type: 'runStart' },
      { type: 'assistantStart', at },
      { type: 'blockStart', index: 0, kind: 'toolCall', at, toolCallId: 'c1', toolName: 'read' },
      { type: 'delta', index: 0, text: '{"path":"src/a' },
    ]);
    const card = page.locator('[data-tool-call-id="c1"]');
    assert.equal(await card.getAttribute('data-status'), 'pending');
    assert.equal(await card.getAttribute('data-duration-ms'), null);
    await batch(page, [
      { type: 'delta', index: 0, text: '.ts"}' },
      { type: 'blockEnd', index: 0, at },
      { type: 'assistantEnd', stopReason: 'toolUse', at },
    ]);
    assert.equal(await card.getAttribute('data-status'), 'pending');
    assert.match(await card.innerText(), /src\/a\.ts/);
    await batch(page, [
      { type: 'toolStart', toolCallId: 'c1', toolName: 'read', args: '{"path":"src/a.ts"}', at },
      { type: 'toolUpdate', toolCallId: 'c1', output: 'partial 1' },
    ]);
    assert.equal(await card.getAttribute('data-status'), 'running');
    await batch(page, [{ type: 'toolUpdate', toolCallId: 'c1', output: 'partial 2' }]);
    const text = await card.innerText();
    assert.match(text, /partial 2/);
    assert.doesNotMatch(text, /partial 1/, 'an update replaces the output, it does not append');
    await batch(page, [{ type: 'toolEnd', toolCallId: 'c1', isError: true, output: 'ENOENT', durationMs: 7 }]);
    assert.equal(await card.getAttribute('data-status'), 'error');
    assert.equal(await card.getAttribute('data-duration-ms'), '7');
  });

  it('keeps parallel calls of the same tool apart by toolCallId', async () => {
    const { batches, state } = projectFixture('parallel-tools.json');
    await snapshot(page, initialTranscript);
    for (const b of batches) await batch(page, b);
    const ids = Object.keys(state.tools);
    assert.ok(ids.length >= 2);
    for (const id of ids) {
      const card = page.locator(`[data-tool-call-id="${id}"]`);
      assert.equal(await card.count(), 1);
      assert.equal(await card.getAttribute('data-status'), state.tools[id]!.status);
      const out = state.tools[id]!.output.trim();
      if (out) assert.ok((await card.innerText()).includes(out.split('\n')[0]!), `card ${id} shows its own output`);
    }
  });

  it('touches only the streaming block when a delta arrives', async () => {
    const at = T0;
    const prior = longTranscript(40);
    const open = build(
      [
        { type: 'userMessage', text: 'go', images: 0 },
        { type: 'runStart' },
        { type: 'assistantStart', at },
        { type: 'blockStart', index: 0, kind: 'thinking', at },
        { type: 'delta', index: 0, text: 'hmm' },
        { type: 'blockEnd', index: 0, at },
        { type: 'blockStart', index: 1, kind: 'text', at },
        { type: 'delta', index: 1, text: '# Title\n\nFirst paragraph.\n\n```js\nconst a = 1;\n```\n\nSecond para' },
      ],
      prior,
    );
    // The highlighter's chunk comes late, as on a busy machine: its colouring of earlier rows must not land in the
    // watched delta (mutationsDuring waits for it; without that wait this case fails).
    await page.route('**/dist/webview/highlight*', async (r) => {
      await new Promise((res) => setTimeout(res, 300));
      await r.continue();
    });
    await snapshot(page, open);
    const rowId = open.messages[open.openIndex]!.id;
    const text = await mutationsDuring(page, () =>
      batch(page, [
        { type: 'delta', index: 1, text: 'graph goes on' },
        { type: 'delta', index: 1, text: ' and on.' },
      ]),
    );
    assert.ok(text.count > 0, 'the delta changed the DOM');
    assert.ok(text.inside(`row:${rowId}/block:1`), `mutations outside block 1: ${text.describe.join(', ')}`);
    // Finished top-level blocks of the streaming text are not rebuilt.
    const heading = await page.locator(`[data-msg-id="${rowId}"] [data-content-index="1"] h1`).elementHandle();
    await batch(page, [{ type: 'delta', index: 1, text: '\n\nThird.' }]);
    assert.equal(await heading!.evaluate((e) => e.isConnected), true, 'the committed heading node stays');

    // A streaming tool call touches only its block; a tool update touches only its card.
    await batch(page, [
      { type: 'blockEnd', index: 1, at },
      { type: 'blockStart', index: 2, kind: 'toolCall', at, toolCallId: 'tc', toolName: 'bash' },
      { type: 'delta', index: 2, text: '{"command":"ec' },
    ]);
    const args = await mutationsDuring(page, () => batch(page, [{ type: 'delta', index: 2, text: 'ho hi"' }]));
    assert.ok(args.count > 0 && args.inside(`row:${rowId}/block:2`), `mutations outside block 2: ${args.describe.join(', ')}`);
    await batch(page, [
      { type: 'delta', index: 2, text: '}' },
      { type: 'blockEnd', index: 2, at },
      { type: 'assistantEnd', stopReason: 'toolUse', at },
      { type: 'toolStart', toolCallId: 'tc', toolName: 'bash', args: '{"command":"echo hi"}', at },
    ]);
    const out = await mutationsDuring(page, () => batch(page, [{ type: 'toolUpdate', toolCallId: 'tc', output: 'hi\n' }]));
    assert.ok(out.count > 0 && out.inside(`row:${rowId}/block:2/card:tc`), `mutations outside the card: ${out.describe.join(', ')}`);
  });

  it('renders no row again once it is final', async () => {
    await snapshot(page, longTranscript(20));
    const m = await mutationsDuring(page, () => batch(page, exchange(99)));
    const before = new Set(longTranscript(20).messages.map((x) => `row:${x.id}`));
    const touched = m.describe.filter((p) => before.has(p.split('/')[0]!));
    assert.deepEqual(touched, []);
  });

  it('switches Send to Steer / Follow-up / Cancel while running and shows the queue', async () => {
    await snapshot(page, build([{ type: 'userMessage', text: 'hi', images: 0 }, { type: 'runStart' }]));
    assert.equal(await page.getAttribute('body', 'data-run-state'), 'running');
    assert.equal(await page.locator('[data-testid="send"]').count(), 0);
    for (const id of ['steer', 'followUp', 'cancel']) assert.equal(await page.locator(`[data-testid="${id}"]`).count(), 1, id);
    assert.equal(await page.locator('[data-testid="composer"]').isEnabled(), true);
    await batch(page, [{ type: 'queue', steering: ['steer me'], followUp: ['later 1', 'later 2'] }]);
    const q = await page.$$eval('[data-queue]', (els) => els.map((e) => `${e.getAttribute('data-queue')}:${e.querySelector('.queue-text')?.textContent}`));
    assert.deepEqual(q, ['steering:steer me', 'followUp:later 1', 'followUp:later 2']);
    await batch(page, [{ type: 'cancelRequested', at: T0 }]);
    assert.equal(await page.getAttribute('body', 'data-run-state'), 'cancelling');
    await batch(page, [
      { type: 'queue', steering: [], followUp: [] },
      { type: 'settled', aborted: true, at: T0 },
    ]);
    assert.equal(await page.getAttribute('body', 'data-run-state'), 'idle');
    assert.equal(await page.locator('[data-queue]').count(), 0);
    assert.equal(await page.locator('[data-testid="send"]').count(), 1);
  });

  it('sends with Enter and Ctrl+Enter, keeps Shift+Enter as a new line, steers, queues follow-ups and cancels by key', async () => {
    await snapshot(page, initialTranscript);
    const box = page.locator('[data-testid="composer"]');
    await box.click();
    await page.keyboard.type('line one');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('line two');
    await page.keyboard.press('Enter');
    await box.fill('second');
    await page.keyboard.press('Control+Enter');
    await batch(page, [{ type: 'runStart' }]);
    await box.fill('steer it');
    await page.keyboard.press('Enter');
    await box.fill('after that');
    await page.keyboard.press('Alt+Enter');
    await page.locator('[data-testid="followUp"]').waitFor();
    await box.fill('via button');
    await page.locator('[data-testid="followUp"]').click();
    await box.focus();
    await page.keyboard.press('Escape');
    const sent = (await posted(page)).filter((m) => m.type !== 'ready');
    assert.deepEqual(sent, [
      { type: 'send', text: 'line one\nline two', mode: 'prompt' },
      { type: 'send', text: 'second', mode: 'prompt' },
      { type: 'send', text: 'steer it', mode: 'steer' },
      { type: 'send', text: 'after that', mode: 'followUp' },
      { type: 'send', text: 'via button', mode: 'followUp' },
      { type: 'cancel' },
    ]);
    assert.equal(await box.inputValue(), '');
  });

  it('keeps a paste that is too long in the composer and says why it was not sent', async () => {
    await snapshot(page, initialTranscript);
    const before = (await posted(page)).length;
    await page.locator('[data-testid="composer"]').evaluate((ta: { value: string; dispatchEvent(e: Event): boolean }) => {
      ta.value = 'x'.repeat(1_000_001);
      ta.dispatchEvent(new Event('input'));
    });
    await page.locator('[data-testid="send"]').click();
    const sends = (await posted(page)).slice(before).filter((m) => m.type === 'send');
    assert.equal(sends.length, 0);
    assert.equal(await page.locator('[data-testid="composer"]').evaluate((t) => (t as unknown as { value: string }).value.length), 1_000_001);
    assert.match(await page.locator('.composer-error').innerText(), /1,000,001 characters/);
    await page.locator('[data-testid="composer"]').fill('');
  });

  it('walks input history with Up and Down without losing the draft', async () => {
    await snapshot(page, initialTranscript);
    const box = page.locator('[data-testid="composer"]');
    for (const t of ['first', 'second']) {
      await box.fill(t);
      await page.keyboard.press('Enter');
    }
    await box.fill('draft');
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowUp');
    assert.equal(await box.inputValue(), 'second');
    await page.keyboard.press('ArrowUp');
    assert.equal(await box.inputValue(), 'first');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.equal(await box.inputValue(), 'draft');
  });

  it('puts restored queue texts back after what is typed, separated by blank lines', async () => {
    await snapshot(page, initialTranscript);
    await page.locator('[data-testid="composer"]').fill('typed');
    await deliver(page, { type: 'restoreInput', texts: ['steer text', 'follow text'] });
    assert.equal(await page.locator('[data-testid="composer"]').inputValue(), 'typed\n\nsteer text\n\nfollow text');
    await deliver(page, { type: 'focusComposer' });
    assert.equal(
      await page.evaluate(() =>
        (globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string } } }).document.activeElement.getAttribute('data-testid'),
      ),
      'composer',
    );
  });

  it('keeps partial text on cancel, shows errors and length stops, and offers notice actions', async () => {
    const at = T0;
    await snapshot(page, initialTranscript);
    await batch(page, [
      { type: 'runStart' },
      { type: 'assistantStart', at },
      { type: 'blockStart', index: 0, kind: 'text', at },
      { type: 'delta', index: 0, text: 'Partial answ' },
      { type: 'assistantEnd', stopReason: 'aborted', at },
      { type: 'settled', aborted: true, at },
      { type: 'runStart' },
      { type: 'assistantStart', at },
      { type: 'assistantEnd', stopReason: 'error', errorMessage: '429 rate limited', at },
      { type: 'retryStart', attempt: 1, maxAttempts: 3, delayMs: 1000, errorMessage: '429 rate limited', at },
      { type: 'runStart' },
      { type: 'assistantStart', at },
      { type: 'blockStart', index: 0, kind: 'text', at },
      { type: 'delta', index: 0, text: 'Long' },
      { type: 'assistantEnd', stopReason: 'length', at },
      { type: 'noticeMessage', level: 'warning', text: 'Pi did not confirm the cancel.', code: 'settleTimeout' },
      { type: 'noticeMessage', level: 'error', text: 'No model configured.', code: 'noModel' },
      { type: 'noticeMessage', level: 'error', text: 'Provider failed.', code: 'providerError' },
    ]);
    const rows = page.locator('[data-role="assistant"]');
    assert.equal(await rows.nth(0).getAttribute('data-stop-reason'), 'aborted');
    assert.match(await rows.nth(0).innerText(), /Partial answ[\s\S]*Cancelled/);
    assert.equal(await rows.nth(1).getAttribute('data-stop-reason'), 'error');
    assert.match(await rows.nth(1).innerText(), /Attempt failed, retried[\s\S]*429 rate limited/);
    assert.equal(await rows.nth(2).getAttribute('data-stop-reason'), 'length');
    await page.getByRole('button', { name: 'Force idle' }).click();
    await page.getByRole('button', { name: 'Show Log' }).click();
    await page.getByRole('button', { name: 'Retry' }).click();
    const sent = (await posted(page)).map((m) => m.type);
    assert.deepEqual(sent.slice(-3), ['forceIdle', 'showLog', 'retryLast']);
  });

  it('renders markdown with highlighted code, Copy and Insert, and opens links only through the host', async () => {
    const at = T0;
    await snapshot(page, initialTranscript);
    await batch(page, [
      { type: 'assistantStart', at },
      { type: 'blockStart', index: 0, kind: 'text', at },
      {
        type: 'delta',
        index: 0,
        text: 'See [docs](https://example.com/a) and [file](src/app.ts) and [bad](javascript:alert(1)).\n\n```ts\nconst x: number = 1;\n```\n',
      },
      { type: 'blockEnd', index: 0, at },
      { type: 'assistantEnd', stopReason: 'stop', at },
    ]);
    const md = page.locator('[data-block="text"] .md');
    assert.equal((await md.locator('.hljs-keyword').count()) > 0, true, 'code is highlighted');
    // Real links for assistive technology, with only safe targets; the refused one is no link at all.
    assert.equal(await md.getByRole('link', { name: 'docs' }).getAttribute('href'), 'https://example.com/a');
    assert.equal(await md.getByRole('link', { name: 'file' }).getAttribute('href'), 'src/app.ts');
    assert.equal(await md.getByRole('link', { name: 'bad' }).count(), 0);
    assert.equal(await md.locator('a[href^="javascript"]').count(), 0);
    await md.getByText('docs').click();
    // By keyboard: focus the link and press Enter.
    await md.getByRole('link', { name: 'file' }).focus();
    await page.keyboard.press('Enter');
    await md.getByText('bad').click();
    await md.getByRole('button', { name: 'Insert code at cursor' }).click();
    const sent = (await posted(page)).filter((m) => m.type !== 'ready');
    assert.deepEqual(sent, [
      { type: 'openLink', href: 'https://example.com/a' },
      { type: 'openLink', href: 'src/app.ts' },
      { type: 'insertCode', text: 'const x: number = 1;\n' },
    ]);
    assert.deepEqual(await page.evaluate(() => (globalThis as unknown as PageWindow).__hostOpened), [], "VS Code's own link handler saw a click");
  });

  it("collapses thinking once the answer starts and remembers the user's choice", async () => {
    const at = T0;
    await snapshot(page, initialTranscript);
    await batch(page, [
      { type: 'assistantStart', at },
      { type: 'blockStart', index: 0, kind: 'thinking', at },
      { type: 'delta', index: 0, text: 'pondering' },
    ]);
    const toggle = page.locator('[data-block="thinking"] .thinking-toggle');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    assert.match(await toggle.innerText(), /Thinking/);
    await batch(page, [
      { type: 'blockEnd', index: 0, at: at + 3000 },
      { type: 'blockStart', index: 1, kind: 'text', at },
      { type: 'delta', index: 1, text: 'Answer' },
    ]);
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    assert.match(await toggle.innerText(), /Thought for 3 s/);
    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    await batch(page, [
      { type: 'delta', index: 1, text: ' more' },
      { type: 'assistantEnd', stopReason: 'stop', at },
    ]);
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  });

  it('shows the model, thinking level and context use, and opens the pickers from the header', async () => {
    await deliver(page, {
      type: 'snapshot',
      state: initialTranscript,
      session: { ...session, model: 'Claude Test', modelId: 'anthropic/claude-test', contextPercent: 42 },
    });
    const before = (await posted(page)).length;
    assert.match(await page.locator('header').innerText(), /Claude Test[\s\S]*thinking: medium[\s\S]*context 42%/);
    await page.locator('header .model').click();
    await page.locator('header .thinking-level').click();
    const commands = (await posted(page))
      .slice(before)
      .filter((m) => m.type === 'runCommand')
      .map((m) => m.command);
    assert.deepEqual(commands, ['selectModel', 'setThinkingLevel']);
    await deliver(page, { type: 'session', session });
  });

  it('keeps thinking open when the user turned folding off', async () => {
    const at = T0;
    await deliver(page, { type: 'snapshot', state: initialTranscript, session: { ...session, collapseThinking: false } });
    await batch(page, [
      { type: 'assistantStart', at },
      { type: 'blockStart', index: 0, kind: 'thinking', at },
      { type: 'delta', index: 0, text: 'pondering' },
    ]);
    await batch(page, [
      { type: 'blockEnd', index: 0, at: at + 1000 },
      { type: 'blockStart', index: 1, kind: 'text', at },
      { type: 'delta', index: 1, text: 'Answer' },
    ]);
    const toggle = page.locator('[data-block="thinking"] .thinking-toggle');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    await deliver(page, { type: 'session', session });
  });

  it('pages 2,000 messages and shows earlier ones on request', async () => {
    const state = longTranscript(2000);
    await snapshot(page, state);
    const rows = await page.locator('[data-testid="transcript"] [data-role]').count();
    assert.ok(rows <= 100, `${rows} rows rendered`);
    const last = state.messages[state.messages.length - 1]!;
    assert.equal(await page.locator(`[data-msg-id="${last.id}"]`).count(), 1);
    // A real click first scrolls the button into view, and reaching the top pages in rows by itself (a second
    // page when that scroll event lands before the click): press the button without scrolling.
    await page.locator('.load-earlier').dispatchEvent('click');
    assert.equal(await page.locator('[data-testid="transcript"] [data-role]').count(), rows + 100);
  });

  it("keeps rendered rows that are scrolled out of view in the transcript's innerText", async () => {
    // The e2e runner's panel.txt is the root's innerText; content-visibility would drop off-screen rows from it.
    await snapshot(page, longTranscript(60));
    const text = await page.locator('[data-testid="transcript"]').innerText();
    assert.ok(text.includes('Question 0: what is in src/0?'));
    assert.ok(text.includes('Done with 14.'));
  });

  it('announces finished replies in a polite live region, not every delta', async () => {
    const at = T0;
    await snapshot(page, initialTranscript);
    const live = page.locator('#announce-replies[role="status"][aria-live="polite"]');
    await batch(page, [
      { type: 'assistantStart', at },
      { type: 'blockStart', index: 0, kind: 'text', at },
      { type: 'delta', index: 0, text: 'Hello' },
    ]);
    assert.equal(await live.textContent(), '');
    await batch(page, [
      { type: 'delta', index: 0, text: ' **world**\n\n## Next\n\n| a | b |\n|---|--:|\n| 1 | 2 |\n\nSee [docs](https://example.com) and `code`.' },
      { type: 'assistantEnd', stopReason: 'stop', at },
    ]);
    // As rendered: no markdown characters, table cells apart, blocks on their own lines.
    assert.equal(await live.textContent(), 'Pi: Hello world\nNext\na b\n1 2\nSee docs and code.');
    await batch(page, [{ type: 'noticeMessage', level: 'info', text: 'Another thing.' }]);
    assert.equal(await live.textContent(), 'Another thing.', 'the reply is not announced again');
    assert.equal(await page.locator('[data-testid="transcript"]').getAttribute('role'), 'log');
  });

  it('announces the start of a long reply as rendered, its links resolved by definitions at its end', async () => {
    const at = T0;
    await snapshot(page, initialTranscript);
    const filler = Array.from({ length: 400 }, (_, i) => `Paragraph ${i} of a long answer.`).join('\n\n');
    await batch(page, [
      { type: 'assistantStart', at },
      { type: 'blockStart', index: 0, kind: 'text', at },
      { type: 'delta', index: 0, text: `See [the docs][1] first.\n\n${filler}\n\n[1]: https://example.com/docs\n` },
      { type: 'assistantEnd', stopReason: 'stop', at },
    ]);
    const said = (await page.locator('#announce-replies').textContent()) ?? '';
    assert.match(said, /^Pi: See the docs first\.\nParagraph 0 of a long answer\./);
    assert.ok(said.length <= 'Pi: '.length + 400, `${said.length} characters announced`);
  });

  it('ignores unknown host messages and wire events', async () => {
    await snapshot(page, initialTranscript);
    // The host sends the user's row as the worker's change; an event from a newer producer sits before it.
    const sent = asHostSends(page, { type: 'batch', events: [{ type: 'userMessage', text: 'still here', images: 0 }] });
    await page.evaluate(
      (changes) => {
        const w = globalThis as unknown as PageWindow;
        w.dispatchEvent(new w.MessageEvent('message', { data: { type: 'fromTheFuture' } }));
        w.dispatchEvent(new w.MessageEvent('message', { data: { type: 'batch', events: [{ type: 'newEvent' }, ...changes] } }));
      },
      sent.type === 'batch' ? sent.events : [],
    );
    await page.locator('[data-role="user"]').waitFor();
    assert.match(await page.locator('[data-role="user"]').innerText(), /still here/);
  });

  it('restores the same transcript from a snapshot, including a run still streaming', async () => {
    const { batches } = projectFixture('long-stream-cancel.json');
    let s = initialTranscript;
    for (const b of batches.slice(0, Math.floor(batches.length / 2))) s = reduce(s, b);
    await snapshot(page, s);
    const first = await page.locator('[data-testid="transcript"]').innerHTML();
    const again = await openView(env.browser, env.server.origin);
    await deliver(again, { type: 'snapshot', state: s, session });
    assert.equal(await again.locator('[data-testid="transcript"]').innerHTML(), first);
    assert.equal(await again.getAttribute('body', 'data-run-state'), await page.getAttribute('body', 'data-run-state'));
    await again.close();
  });

  it('follows the bottom while streaming, stays put when scrolled up, and jumps to latest on request', async () => {
    const at = T0;
    await snapshot(page, build([{ type: 'runStart' }, { type: 'assistantStart', at }, { type: 'blockStart', index: 0, kind: 'text', at }], longTranscript(40)));
    const metrics = () => page.locator('.scroller').evaluate((e) => ({ top: e.scrollTop, gap: e.scrollHeight - e.scrollTop - e.clientHeight }));
    const jump = page.locator('.jump-latest');
    assert.ok((await metrics()).gap <= 2, 'starts at the bottom');
    for (let i = 0; i < 5; i++) await batch(page, [{ type: 'delta', index: 0, text: `Paragraph ${i} ${'word '.repeat(60)}\n\n` }]);
    assert.ok((await metrics()).gap <= 2, 'still at the bottom after streaming');
    assert.equal(await jump.isVisible(), false);
    await page.locator('.scroller').evaluate((e) => e.scrollTo({ top: 200 }));
    // The scroll event is dispatched before the next frame's callbacks: after two frames the view has seen it.
    await page.evaluate(
      () =>
        new Promise<void>((r) =>
          (globalThis as unknown as PageWindow).requestAnimationFrame(() => (globalThis as unknown as PageWindow).requestAnimationFrame(() => r())),
        ),
    );
    for (let i = 0; i < 5; i++) await batch(page, [{ type: 'delta', index: 0, text: `More ${i} ${'word '.repeat(60)}\n\n` }]);
    assert.equal((await metrics()).top, 200, 'stays where the user scrolled');
    assert.equal(await jump.isVisible(), true);
    await jump.click();
    await page.locator('.scroller').evaluate(
      (e) =>
        new Promise<void>((resolve) => {
          const check = (): void =>
            e.scrollHeight - e.scrollTop - e.clientHeight <= 2 ? resolve() : void (globalThis as unknown as PageWindow).requestAnimationFrame(check);
          check();
        }),
    );
    assert.ok((await metrics()).gap <= 2, 'back at the bottom');
    assert.equal(await jump.isVisible(), false);
  });

  it('keeps the composer draft and opened blocks in webview UI state across a reload', async () => {
    const at = T0;
    const state = build([
      { type: 'assistantStart', at },
      { type: 'blockStart', index: 0, kind: 'thinking', at },
      { type: 'delta', index: 0, text: 'deep thought' },
      { type: 'blockEnd', index: 0, at },
      { type: 'blockStart', index: 1, kind: 'text', at },
      { type: 'delta', index: 1, text: 'answer' },
      { type: 'assistantEnd', stopReason: 'stop', at },
    ]);
    await snapshot(page, state);
    await page.locator('[data-testid="composer"]').fill('half-written thought');
    await page.locator('.thinking-toggle').click();
    // Saving is coalesced: wait for the save that holds both the draft and the opened block.
    await page.waitForFunction(() => {
      const s = (globalThis as unknown as PageWindow).__uiState as { draft?: string; toggled?: object } | undefined;
      return s?.draft === 'half-written thought' && Object.keys(s.toggled ?? {}).length > 0;
    });
    const saved = await page.evaluate(() => (globalThis as unknown as PageWindow).__uiState);
    // The picture of the rows on screen (savedRender.ts) is the one place the transcript's text may be kept.
    assert.equal(JSON.stringify({ ...(saved as object), render: undefined }).includes('deep thought'), false, 'UI state holds no transcript content');
    const again = await env.browser.newPage({ viewport: { width: 420, height: 800 } });
    await again.addInitScript((s) => {
      (globalThis as unknown as { __uiState: unknown }).__uiState = s;
    }, saved);
    await again.goto(`${env.server.origin}/`);
    await deliver(again, { type: 'snapshot', state, session });
    assert.equal(await again.locator('[data-testid="composer"]').inputValue(), 'half-written thought');
    assert.equal(await again.locator('.thinking-toggle').getAttribute('aria-expanded'), 'true');
    await again.close();
  });
});
