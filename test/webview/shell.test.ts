/** `!` shell commands in the chat webview (headless Chromium): the composer sends them to the host, a running row streams, a finished row keeps its status. */

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { posted, useChatPage, batch } from './harness.ts';

describe('! shell rows in the chat webview (headless Chromium)', function () {
  this.timeout(60_000);
  let page: Page;
  useChatPage((p) => {
    page = p;
  });

  it('sends !command and !!command to the host as shell commands, not to the model', async () => {
    const box = page.locator('[data-testid="composer"]');
    await box.fill('!ls -la');
    await box.press('Enter');
    await box.fill('!!cat secret.txt');
    await box.press('Enter');
    await box.fill('! ');
    await box.press('Enter');
    const sent = (await posted(page)).filter((m) => m.type === 'bash' || m.type === 'send');
    assert.deepEqual(sent, [
      { type: 'bash', command: 'ls -la', excluded: false },
      { type: 'bash', command: 'cat secret.txt', excluded: true },
      { type: 'send', text: '! ', mode: 'prompt' },
    ]);
  });

  it('streams a running command into a shell row, then shows the finished row with its status; Cancel is offered meanwhile', async () => {
    await batch(page, [
      { type: 'bashStart', id: 'b1', command: 'make', excluded: true, at: 1 },
      { type: 'bashOutput', id: 'b1', delta: 'compiling…\n' },
    ]);
    const live = page.locator('.shell-live [data-role="bash"]');
    assert.equal(await live.getAttribute('data-status'), 'running');
    assert.equal(await live.getAttribute('data-excluded'), 'true');
    assert.match(await live.innerText(), /\$ make[\s\S]*compiling…/);
    assert.equal(await page.getAttribute('body', 'data-run-state'), 'running');
    assert.equal(await page.locator('[data-testid="cancel"]').isVisible(), true);
    await batch(page, [{ type: 'bashEnd', id: 'b1', command: 'make', output: 'compiling…\nfailed\n', exitCode: 2, cancelled: false, excluded: true }]);
    assert.equal(await page.locator('.shell-live [data-role="bash"]').count(), 0);
    const row = page.locator('[data-testid="transcript"] [data-role="bash"]');
    assert.equal(await row.getAttribute('data-status'), 'error');
    assert.equal(await row.getAttribute('data-excluded'), 'true');
    assert.match(await row.innerText(), /\$ make[\s\S]*failed/);
    await batch(page, [{ type: 'bashEnd', command: 'echo ok', output: 'ok', exitCode: 0, cancelled: false, excluded: false }]);
    assert.equal(await page.locator('[data-testid="transcript"] [data-role="bash"]').nth(1).getAttribute('data-status'), 'done');
    assert.equal(await page.getAttribute('body', 'data-run-state'), 'idle');
  });
});
