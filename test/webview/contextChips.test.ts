/** Context chips in the composer (headless Chromium): each shows its size, previews and expands to exactly what it sends; a starter prompt; URIs dropped from the workbench. */

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { CodeChip } from '../../src/shared/chips.ts';
import { deliver, posted, useChatPage } from './harness.ts';

const composer = '[data-testid="composer"]';
const terminal: CodeChip = {
  kind: 'terminal',
  path: 'bash',
  text: '# terminal "bash"\n$ npm test\n[… clipped: 40 earlier lines not included]\nFAIL src/a.test.ts\n[exit code 1]\n',
  detail: 'bash: npm test (exit code 1)',
};

/** The page's DOM as these tests use it (the test tsconfig has no DOM types). */
interface Dom {
  DataTransfer: new () => { setData(type: string, value: string): void };
  DragEvent: new (type: string, init: object) => { defaultPrevented: boolean };
  document: {
    querySelector(selector: string): { dispatchEvent(e: unknown): boolean } | null;
    activeElement: { getAttribute(n: string): string | null } | null;
  };
}

/** Drops a workbench drag (its data by type) on the composer; returns whether the composer took it. */
async function drop(page: Page, data: Record<string, string>): Promise<boolean> {
  return page.evaluate((data) => {
    const { DataTransfer, DragEvent, document } = globalThis as unknown as Dom;
    const dt = new DataTransfer();
    for (const [type, value] of Object.entries(data)) dt.setData(type, value);
    const over = new DragEvent('dragover', { bubbles: true, cancelable: true, dataTransfer: dt });
    document.querySelector('.composer')!.dispatchEvent(over);
    const e = new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: dt });
    document.querySelector('.composer')!.dispatchEvent(e);
    return over.defaultPrevented && e.defaultPrevented;
  }, data);
}

describe('context chips in the composer (headless Chromium)', function () {
  this.timeout(60_000);
  let page: Page;
  useChatPage((p) => {
    page = p;
  });
  const sent = async (type: string) => (await posted(page)).filter((m) => m.type === type);

  it('shows what a chip sends and its size, and sends exactly the text its expanded view showed', async () => {
    await deliver(page, { type: 'addChip', chip: terminal });
    const chip = page.locator('[data-testid="composer-chips"] [data-chip="terminal:bash"]');
    assert.equal(await chip.locator('.chip-size').textContent(), `${terminal.text.length} chars, 5 lines`);
    const title = (await chip.getAttribute('title')) ?? '';
    assert.ok(title.startsWith(`Terminal: bash: npm test (exit code 1)\n${terminal.text.length} chars, 5 lines sent`), title);
    assert.ok(title.includes('$ npm test\n[… clipped: 40 earlier lines not included]'), 'the hover previews the text, clip included');
    const preview = page.locator('[data-testid="chip-preview"]');
    assert.equal(await preview.isHidden(), true);
    await chip.locator('[data-action="expand-chip"]').click();
    assert.equal(await chip.locator('[data-action="expand-chip"]').getAttribute('aria-expanded'), 'true');
    const shown = await preview.textContent();
    assert.equal(shown, terminal.text);
    await page.locator(composer).fill('Why does it fail?');
    await page.locator('[data-testid="send"]').click();
    assert.deepEqual((await sent('send')).at(-1), {
      type: 'send',
      text: `<context ref="terminal:bash">\n${shown}</context>\n\nWhy does it fail?`,
      mode: 'prompt',
    });
    assert.equal(await preview.isHidden(), true, 'the preview goes with its chip');
  });

  it('puts a starter prompt into an empty composer with focus there, and keeps what the user already typed', async () => {
    const problem: CodeChip = { kind: 'problems', path: 'bad.json', startLine: 2, endLine: 2, text: '2:3 error: Expected comma\n\n> 2 | "b" 2\n' };
    await deliver(page, { type: 'addChip', chip: problem, prompt: 'Fix this problem.' });
    assert.equal(await page.locator(composer).inputValue(), 'Fix this problem.');
    assert.equal(await page.evaluate(() => (globalThis as unknown as Dom).document.activeElement?.getAttribute('data-testid')), 'composer');
    assert.equal(await page.locator('[data-chip="problems:bad.json:2"]').count(), 1);
    await page.locator(composer).fill('my own words');
    await deliver(page, { type: 'addChip', chip: terminal, prompt: 'Fix this.' });
    assert.equal(await page.locator(composer).inputValue(), 'my own words');
  });

  it("asks the host for chips of the files and folders dragged from the workbench, in VS Code's list or the standard one", async () => {
    assert.ok(await drop(page, { 'application/vnd.code.uri-list': 'file:///w/src/a.ts\r\nfile:///w/src', 'text/plain': '/w/src/a.ts' }));
    assert.deepEqual((await sent('dropUris')).at(-1), { type: 'dropUris', uris: ['file:///w/src/a.ts', 'file:///w/src'] });
    assert.ok(await drop(page, { 'text/uri-list': '# a comment\nfile:///w/README.md\n' }));
    assert.deepEqual((await sent('dropUris')).at(-1), { type: 'dropUris', uris: ['file:///w/README.md'] });
    assert.equal(await page.locator('[data-testid="composer-images"] [data-image-index]').count(), 0, 'no image chip');
    assert.equal(await drop(page, { 'text/plain': 'just text' }), false, 'plain text is left to the textarea');
    assert.equal((await sent('dropUris')).length, 2);
  });
});
