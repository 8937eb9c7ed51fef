/** Big tool arguments and outputs in headless Chromium: clipped, opened lazily, closed again, the toggle keeping focus. */

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { initialTranscript } from '../../src/shared/transcript/reduce.ts';
import { T0 } from './builders.ts';
import { deliver, session, useChatPage } from './harness.ts';

/** A finished call of `toolName` with `args`, run to the end with `output`. */
function toolRun(id: string, toolName: string, args: string, output: string): WireEvent[] {
  const at = T0;
  return [
    { type: 'assistantStart', at },
    { type: 'blockStart', index: 0, kind: 'toolCall', at, toolCallId: id, toolName },
    { type: 'delta', index: 0, text: args },
    { type: 'blockEnd', index: 0, at },
    { type: 'assistantEnd', stopReason: 'toolUse', at },
    { type: 'toolStart', toolCallId: id, toolName, at },
    { type: 'toolEnd', toolCallId: id, isError: false, output, durationMs: 5 },
  ];
}

const focused = (page: Page) =>
  page.evaluate(
    () =>
      (globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string | null } | null } }).document.activeElement?.getAttribute(
        'data-action',
      ) ?? null,
  );

describe('big tool arguments and outputs (headless Chromium)', function () {
  this.timeout(120_000);
  let page: Page;
  useChatPage(async (p) => {
    page = p;
    await deliver(page, { type: 'snapshot', state: initialTranscript, session });
  });

  it("clips an unknown tool's 20,000-entry arguments, shows them all lazily and clips them again, keeping focus on the toggle", async () => {
    const args = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`key${i}`, i]));
    await deliver(page, { type: 'batch', events: toolRun('call_big', 'my_custom_tool', JSON.stringify(args), 'ok') });
    const card = page.locator('[data-tool-call-id="call_big"]');
    const pre = card.locator('.tool-args-json');
    const clipped = await pre.innerText();
    assert.ok(clipped.length < 10_000, `clipped arguments are ${clipped.length} characters`);
    assert.ok(clipped.startsWith('{\n  "key0": 0,\n  "key1": 1,'), clipped.slice(0, 60));
    const toggle = card.locator('[data-action="tool-args-show-all"]');
    assert.equal(await toggle.innerText(), 'Show all');

    await toggle.focus();
    await page.keyboard.press('Enter');
    // Filled over several frames; aria-busy goes once the whole text is in.
    for (let i = 0; i < 600 && (await pre.getAttribute('aria-busy')) !== null; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await pre.getAttribute('aria-busy'), null, 'the whole text arrived');
    assert.equal((await pre.textContent())!.trimEnd(), JSON.stringify(args, null, 2));
    assert.equal(await toggle.innerText(), 'Show less');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    assert.equal(await focused(page), 'tool-args-show-all', 'focus stays on the toggle after Show all');

    await page.keyboard.press('Enter');
    assert.equal(await pre.innerText(), clipped);
    assert.equal(await toggle.innerText(), 'Show all');
    assert.equal(await focused(page), 'tool-args-show-all', 'focus stays on the toggle after Show less');
  });

  it('clips long output with Show all and Show less, keeping focus on the toggle', async () => {
    const output = Array.from({ length: 500 }, (_, i) => `line ${i}`).join('\n');
    await deliver(page, { type: 'batch', events: toolRun('call_out', 'bash', '{"command":"seq 500"}', output) });
    const card = page.locator('[data-tool-call-id="call_out"]');
    const toggle = card.locator('[data-action="tool-show-all"]');
    assert.equal(await toggle.innerText(), 'Show all (500 lines)');
    assert.ok(!(await card.locator('.tool-output-text').innerText()).includes('line 499'));
    await toggle.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() =>
      (globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }).document
        .querySelector('.tool-output-text')
        ?.textContent.includes('line 499'),
    );
    assert.equal(await toggle.innerText(), 'Show less');
    assert.equal(await focused(page), 'tool-show-all');
    await page.keyboard.press('Enter');
    assert.equal(await toggle.innerText(), 'Show all (500 lines)');
    assert.equal(await focused(page), 'tool-show-all');
  });

  it('shows the newest lines of arguments still streaming, without parsing them on every frame', async () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join('\\n');
    await deliver(page, {
      type: 'batch',
      events: [
        { type: 'assistantStart', at: T0 },
        { type: 'blockStart', index: 0, kind: 'toolCall', at: T0, toolCallId: 'call_w', toolName: 'write' },
        { type: 'delta', index: 0, text: `{"path":"a.txt","content":"${lines}` },
      ],
    });
    const raw = page.locator('[data-tool-call-id="call_w"] .tool-args-raw');
    const text = await raw.innerText();
    assert.ok(text.length <= 6000, `${text.length} characters shown while streaming`);
    assert.ok(text.endsWith('line 1999'), text.slice(-40));
  });
});
