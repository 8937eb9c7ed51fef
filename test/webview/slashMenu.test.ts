/** The slash menu in the chat webview (headless Chromium): opens on `/`, filters, keys, built-ins run in the panel, Pi's commands go to Pi. */

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { builtinCommands, type SlashCommand } from '../../src/shared/slashCommands.ts';
import { deliver, posted, useChatPage } from './harness.ts';

const piCommands: SlashCommand[] = [
  { name: 'review', description: 'Review the diff (extension)', source: 'extension' },
  { name: 'fix-tests', description: 'Fix failing tests', source: 'prompt' },
  { name: 'skill:pdf', description: 'Work with PDF files', source: 'skill' },
];

const items = (page: Page) => page.locator('[data-testid="slash-menu"] [data-command]').evaluateAll((els) => els.map((e) => e.getAttribute('data-command')));
const selected = (page: Page) => page.locator('[data-testid="slash-menu"] [aria-selected="true"]').getAttribute('data-command');
const sent = async (page: Page) => (await posted(page)).filter((m) => m.type === 'send' || m.type === 'slash' || m.type === 'cancel');

describe('slash menu in the chat webview (headless Chromium)', function () {
  this.timeout(60_000);
  let page: Page;
  useChatPage(async (p) => {
    page = p;
    await p.locator('[data-testid="composer"]').focus();
  });

  async function openWithCommands(): Promise<void> {
    await page.keyboard.type('/');
    assert.ok(
      (await posted(page)).some((m) => m.type === 'listCommands'),
      'the menu asks the host for commands',
    );
    await deliver(page, { type: 'commands', commands: [...builtinCommands(), ...piCommands] });
  }

  it('opens on /, lists the built-ins and Pi commands with descriptions, and filters as the name is typed', async () => {
    await openWithCommands();
    const menu = page.locator('[data-testid="slash-menu"]');
    assert.equal(await menu.isVisible(), true);
    assert.deepEqual(await items(page), [
      'new',
      'resume',
      'compact',
      'model',
      'thinking',
      'name',
      'export',
      'copy',
      'plan',
      'review',
      'fix-tests',
      'skill:pdf',
    ]);
    assert.match(await menu.locator('[data-command="fix-tests"]').innerText(), /Fix failing tests/);
    assert.equal(await page.getAttribute('[data-testid="composer"]', 'aria-controls'), await menu.getAttribute('id'));
    await page.keyboard.type('re');
    assert.deepEqual(await items(page), ['resume', 'review']);
    await page.keyboard.type('x');
    assert.deepEqual(await items(page), []);
    for (let i = 0; i < 3; i++) await page.keyboard.press('Backspace');
    await page.keyboard.type('pdf');
    assert.deepEqual(await items(page), ['skill:pdf'], 'a name is also found by what it contains');
  });

  it('moves with the arrow keys, completes with Tab, and closes with Escape without cancelling a run', async () => {
    await deliver(page, { type: 'batch', events: [{ type: 'runStart' }] });
    await page.locator('[data-testid="composer"]').focus();
    await openWithCommands();
    assert.equal(await selected(page), 'new');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.equal(await selected(page), 'compact');
    assert.equal(await page.getAttribute('[data-testid="composer"]', 'aria-activedescendant'), 'slash-option-2');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    assert.equal(await selected(page), 'skill:pdf', 'Up from the first wraps to the last');
    await page.keyboard.press('Tab');
    assert.equal(await page.locator('[data-testid="composer"]').inputValue(), '/skill:pdf ');
    assert.equal(await page.locator('[data-testid="slash-menu"]').isHidden(), true);
    await page.locator('[data-testid="composer"]').fill('');
    await page.keyboard.type('/');
    await page.keyboard.press('Escape');
    assert.equal(await page.locator('[data-testid="slash-menu"]').isHidden(), true);
    assert.deepEqual(await sent(page), [], 'Escape closed the menu only');
  });

  it('runs a built-in without an argument on Enter in the panel, and sends built-ins with arguments as commands', async () => {
    await openWithCommands();
    await page.keyboard.type('exp');
    await page.keyboard.press('Enter');
    assert.deepEqual(await sent(page), [{ type: 'slash', name: 'export', args: '' }]);
    assert.equal(await page.locator('[data-testid="composer"]').inputValue(), '');
    await page.keyboard.type('/name');
    await page.keyboard.press('Enter');
    assert.equal(await page.locator('[data-testid="composer"]').inputValue(), '/name ', 'a command that needs an argument waits for it');
    await page.keyboard.type('Refactor plan');
    await page.keyboard.press('Enter');
    await page.keyboard.type('/compact keep the API decisions');
    await page.keyboard.press('Enter');
    assert.deepEqual((await sent(page)).slice(1), [
      { type: 'slash', name: 'name', args: 'Refactor plan' },
      { type: 'slash', name: 'compact', args: 'keep the API decisions' },
    ]);
  });

  it("sends Pi's commands to Pi as typed, a prompt when idle and a steer while a run is active", async () => {
    await openWithCommands();
    await page.keyboard.type('fix');
    await page.keyboard.press('Enter');
    assert.deepEqual(await sent(page), [{ type: 'send', text: '/fix-tests', mode: 'prompt' }]);
    await deliver(page, { type: 'batch', events: [{ type: 'runStart' }] });
    await page.locator('[data-testid="composer"]').focus();
    await page.keyboard.type('/review now');
    await page.keyboard.press('Enter');
    assert.deepEqual((await sent(page))[1], { type: 'send', text: '/review now', mode: 'steer' });
  });

  it('chooses an item with the mouse', async () => {
    await openWithCommands();
    await page.locator('[data-testid="slash-menu"] [data-command="model"]').click();
    assert.equal(await page.locator('[data-testid="composer"]').inputValue(), '/model ');
  });
});
