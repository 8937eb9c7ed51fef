/** Calls a tool makes (a codemode script's MCP calls) as cards inside that tool's card (headless Chromium). */

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { useChatPage, batch } from './harness.ts';

describe('nested tool calls in the chat webview (headless Chromium)', function () {
  this.timeout(60_000);
  let page: Page;
  useChatPage((p) => {
    page = p;
  });

  it("shows a codemode script's MCP calls as ordinary cards inside its card, each with its own status and output", async () => {
    const at = 1_700_000_000_000;
    await batch(page, [
      { type: 'runStart' },
      { type: 'assistantStart', at },
      { type: 'blockStart', index: 0, kind: 'toolCall', toolCallId: 'cm', toolName: 'codemode', at },
      { type: 'delta', index: 0, text: '{"code":"return await tools.mcp__stub__echo({ text: \\"hi\\" })"}' },
      { type: 'blockEnd', index: 0, at },
      { type: 'assistantEnd', stopReason: 'toolUse', at },
      { type: 'toolStart', toolCallId: 'cm', toolName: 'codemode', at },
      { type: 'toolStart', toolCallId: 'n1', toolName: 'mcp__stub__echo', args: '{"text":"hi"}', parentToolCallId: 'cm', at },
    ]);
    const parent = page.locator('[data-tool-call-id="cm"]');
    const nested = parent.locator('[data-tool-call-id="n1"]');
    assert.equal(await nested.getAttribute('data-tool-name'), 'mcp__stub__echo');
    assert.equal(await nested.getAttribute('data-status'), 'running');
    assert.equal(await page.locator('[data-tool-call-id="n1"]').count(), 1, 'shown once, inside its parent only');

    await batch(page, [{ type: 'toolEnd', toolCallId: 'n1', isError: false, output: 'echo: hi', durationMs: 12 }]);
    assert.equal(await nested.getAttribute('data-status'), 'done');
    assert.equal(await nested.getAttribute('data-duration-ms'), '12');
    assert.match(await nested.locator('.tool-output').innerText(), /echo: hi/);
    assert.equal(await parent.getAttribute('data-status'), 'running', "the script's card runs on");

    await batch(page, [
      { type: 'toolStart', toolCallId: 'n2', toolName: 'mcp__stub__echo', args: '{"text":"again"}', parentToolCallId: 'cm', at },
      { type: 'toolEnd', toolCallId: 'n2', isError: true, output: 'unknown tool', durationMs: 3 },
      { type: 'toolEnd', toolCallId: 'cm', isError: false, output: 'Script completed', durationMs: 40 },
    ]);
    assert.deepEqual(
      await parent
        .locator('.tool-children > [data-tool-call-id]')
        .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-tool-call-id')}:${e.getAttribute('data-status')}`)),
      ['n1:done', 'n2:error'],
    );
    assert.equal(await parent.getAttribute('data-status'), 'done');
  });
});
