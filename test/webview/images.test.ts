/** Images in the chat webview (headless Chromium): paste, drop and pick into the composer, remove, send; thumbnails in the transcript. */

import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { initialTranscript, reduce } from '../../src/shared/transcript/reduce.ts';
import { deliver, posted, root, session, useChatPage } from './harness.ts';

const pngPath = join(root, 'test', 'fixtures', 'images', 'red-square.png');
const png = readFileSync(pngPath).toString('base64');
const composer = '[data-testid="composer"]';
const chips = '[data-testid="composer-images"] [data-image-index]';
const sends = async (page: Page) => (await posted(page)).filter((m) => m.type === 'send' || m.type === 'cancel');

/** The page's DOM as these tests use it (the test tsconfig has no DOM types). */
interface Dom {
  DataTransfer: new () => { items: { add(file: unknown): void }; setData(type: string, value: string): void };
  File: new (parts: unknown[], name: string, options: { type: string }) => unknown;
  ClipboardEvent: new (type: string, init: object) => unknown;
  DragEvent: new (type: string, init: object) => unknown;
  document: {
    querySelector(selector: string): { dispatchEvent(e: unknown): boolean; textContent: string | null } | null;
    activeElement: { getAttribute(name: string): string | null } | null;
  };
}

/** Pastes (or drops) files built in the page from base64: `{ name, type, base64 }`. */
async function transfer(page: Page, kind: 'paste' | 'drop', files: { name: string; type: string; base64: string }[], withText?: string): Promise<void> {
  await page.evaluate(
    ({ kind, files, withText }) => {
      const { DataTransfer, File, ClipboardEvent, DragEvent, document } = globalThis as unknown as Dom;
      const dt = new DataTransfer();
      for (const f of files) dt.items.add(new File([Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
      if (withText !== undefined) dt.setData('text/plain', withText);
      const target = document.querySelector(kind === 'paste' ? '[data-testid="composer"]' : '.composer')!;
      const init = { bubbles: true, cancelable: true };
      target.dispatchEvent(
        kind === 'paste' ? new ClipboardEvent('paste', { ...init, clipboardData: dt }) : new DragEvent('drop', { ...init, dataTransfer: dt }),
      );
    },
    { kind, files, withText },
  );
}

const shot = { name: 'shot.png', type: 'image/png', base64: png };

describe('images in the chat webview (headless Chromium)', function () {
  this.timeout(60_000);
  let page: Page;
  useChatPage(async (p) => {
    page = p;
    await p.locator(composer).focus();
  });

  it('pastes an image as a removable chip and sends it with the prompt, then clears it', async () => {
    await transfer(page, 'paste', [shot]);
    await page.locator(chips).first().waitFor();
    const remove = page.locator(`${chips} button[data-action="remove-image"]`);
    assert.equal(await remove.getAttribute('aria-label'), 'Remove image shot.png');
    assert.match((await page.locator(`${chips} img`).getAttribute('src')) ?? '', /^data:image\/png;base64,/);
    await page.locator(composer).fill('What is in this picture?');
    await page.keyboard.press('Enter');
    assert.deepEqual(await sends(page), [
      { type: 'send', text: 'What is in this picture?', mode: 'prompt', images: [{ mimeType: 'image/png', data: png, name: 'shot.png' }] },
    ]);
    assert.equal(await page.locator(chips).count(), 0, 'the images went with the message');
  });

  it('sends images without text, and as a steer or a follow-up while a run is active', async () => {
    await transfer(page, 'drop', [shot]);
    await page.locator(chips).first().waitFor();
    await page.locator('[data-testid="send"]').click();
    await deliver(page, { type: 'batch', events: [{ type: 'runStart' }] });
    await page.locator(composer).focus();
    await transfer(page, 'paste', [shot]);
    await page.locator(chips).first().waitFor();
    await page.keyboard.type('this one too');
    await page.keyboard.press('Enter');
    await transfer(page, 'paste', [shot, { ...shot, name: 'second.png' }]);
    await page.locator(chips).nth(1).waitFor();
    await page.keyboard.press('Alt+Enter');
    const got = (await sends(page)).map((m) => [m.text, m.mode, (m.images as { name: string }[]).map((i) => i.name)]);
    assert.deepEqual(got, [
      ['', 'prompt', ['shot.png']],
      ['this one too', 'steer', ['shot.png']],
      ['', 'followUp', ['shot.png', 'second.png']],
    ]);
  });

  it('removes a chip with its button, and with Backspace or Delete on the focused chip; focus stays useful', async () => {
    await transfer(page, 'paste', [
      { ...shot, name: 'a.png' },
      { ...shot, name: 'b.png' },
      { ...shot, name: 'c.png' },
    ]);
    await page.locator(chips).nth(2).waitFor();
    await page.locator(`${chips} button[aria-label="Remove image b.png"]`).click();
    assert.deepEqual(await page.locator(`${chips} .image-chip-label`).allInnerTexts(), ['a.png', 'c.png']);
    await page.locator(`${chips} button[aria-label="Remove image a.png"]`).focus();
    await page.keyboard.press('Delete');
    assert.deepEqual(await page.locator(`${chips} .image-chip-label`).allInnerTexts(), ['c.png']);
    assert.equal(
      await page.evaluate(() => (globalThis as unknown as Dom).document.activeElement?.getAttribute('aria-label')),
      'Remove image c.png',
      'focus moved to the next chip',
    );
    await page.keyboard.press('Backspace');
    assert.equal(await page.locator(chips).count(), 0);
    assert.equal(
      await page.evaluate(() => (globalThis as unknown as Dom).document.activeElement?.getAttribute('data-testid')),
      'composer',
      'focus returned to the text',
    );
    assert.deepEqual(await sends(page), []);
  });

  it('tells the host the attached images whenever they change, so a re-created view gets them back', async () => {
    const stored = async (p: Page) =>
      (await posted(p)).filter((m) => m.type === 'composerImages').map((m) => (m.images as { name?: string }[]).map((i) => i.name));
    await transfer(page, 'paste', [shot]);
    await page.locator(chips).first().waitFor();
    await page.locator(`${chips} button[data-action="remove-image"]`).click();
    await transfer(page, 'paste', [{ ...shot, name: 'kept.png' }]);
    await page.locator(chips).first().waitFor();
    await page.keyboard.type('go');
    await page.keyboard.press('Enter');
    assert.deepEqual(await stored(page), [['shot.png'], [], ['kept.png'], []]);
  });

  it('attaches images from the file picker', async () => {
    await page.locator('[data-testid="image-input"]').setInputFiles(pngPath);
    await page.locator(chips).first().waitFor();
    assert.equal(await page.locator(`${chips} .image-chip-label`).innerText(), 'red-square.png');
  });

  it('refuses non-images, images over the size cap, files that only claim to be images, and more than ten, saying why', async () => {
    const bigPng = Buffer.concat([Buffer.from(png, 'base64'), Buffer.alloc(5 * 1024 * 1024)]).toString('base64');
    await transfer(page, 'drop', [
      { name: 'notes.txt', type: 'text/plain', base64: Buffer.from('hello').toString('base64') },
      { name: 'huge.png', type: 'image/png', base64: bigPng },
      { name: 'fake.png', type: 'image/png', base64: Buffer.from('not really a png').toString('base64') },
      { name: 'logo.svg', type: 'image/svg+xml', base64: Buffer.from('<svg/>').toString('base64') },
      shot,
    ]);
    const error = page.locator('.composer-error');
    await error.waitFor();
    const said = await error.innerText();
    assert.match(said, /notes\.txt is not a PNG, JPEG, GIF or WebP image/);
    assert.match(said, /huge\.png is 5\.0 MB; images may be at most 5\.0 MB/);
    assert.match(said, /fake\.png is not a readable PNG image/);
    assert.match(said, /logo\.svg is not a PNG/);
    assert.deepEqual(await page.locator(`${chips} .image-chip-label`).allInnerTexts(), ['shot.png'], 'the good one was kept');
    await transfer(
      page,
      'paste',
      Array.from({ length: 10 }, (_, i) => ({ ...shot, name: `n${i}.png` })),
    );
    await page.locator(chips).nth(9).waitFor();
    assert.match(await error.innerText(), /At most 10 images go with one message; n9\.png was not attached/);
    assert.equal(await page.locator(chips).count(), 10);
  });

  it('pastes text with a picture beside it (a spreadsheet cell) as text', async () => {
    await transfer(page, 'paste', [shot], 'A1');
    await transfer(page, 'paste', [{ ...shot, name: 'alone.png' }]);
    await page.locator(chips).first().waitFor();
    assert.deepEqual(await page.locator(`${chips} .image-chip-label`).allInnerTexts(), ['alone.png'], 'only the paste without text attached an image');
  });

  it('puts the images of a cancelled queue back as chips', async () => {
    await deliver(page, { type: 'restoreInput', texts: ['look at this'], images: [{ mimeType: 'image/png', data: png, name: 'queued.png' }] });
    assert.equal(await page.locator(composer).inputValue(), 'look at this');
    assert.deepEqual(await page.locator(`${chips} .image-chip-label`).allInnerTexts(), ['queued.png']);
  });

  describe('in the transcript', () => {
    const events: WireEvent[] = [
      {
        type: 'userMessage',
        text: 'Compare these',
        images: 3,
        entryId: 'u1',
        media: [
          { mimeType: 'image/png', bytes: 79, data: png },
          { mimeType: 'image/png', bytes: 9_000_000 },
          // Hostile: a document type with data; must never be drawn.
          { mimeType: 'image/svg+xml', bytes: 40, data: Buffer.from('<svg onload="window.__pwned++"/>').toString('base64') },
        ],
      },
      { type: 'runStart' },
      { type: 'assistantStart', at: 1 },
      { type: 'blockStart', index: 0, kind: 'toolCall', toolCallId: 'r1', toolName: 'read', at: 1 },
      { type: 'delta', index: 0, text: '{"path":"red-square.png"}' },
      { type: 'blockEnd', index: 0, at: 2 },
      { type: 'assistantEnd', stopReason: 'toolUse', at: 2 },
      { type: 'toolStart', toolCallId: 'r1', toolName: 'read', at: 3 },
      { type: 'toolEnd', toolCallId: 'r1', isError: false, output: 'Read image file [image/png]', media: [{ mimeType: 'image/png', bytes: 79, data: png }] },
      { type: 'toolResult', toolCallId: 'r1', toolName: 'read', isError: false },
    ];

    it('shows thumbnails in user rows and tool cards, and placeholders for what it will not draw', async () => {
      await deliver(page, { type: 'snapshot', state: reduce(initialTranscript, events), session });
      const user = page.locator('[data-role="user"] [data-testid="images"]');
      assert.equal(await user.locator('[data-image="thumb"] img').count(), 1);
      assert.equal(await user.locator('[data-image="placeholder"]').count(), 2);
      assert.deepEqual(await user.locator('[data-image="placeholder"]').allInnerTexts(), [
        'Image not shown (image/png, 8.6 MB)',
        'Image not shown (image/svg+xml, 40 B)',
      ]);
      assert.equal(await user.locator('[data-image="thumb"]').getAttribute('aria-label'), 'Your image 1 of 3 (image/png, 79 B): open larger');
      const card = page.locator('[data-tool-call-id="r1"]');
      assert.match((await card.locator('[data-image="thumb"] img').getAttribute('src')) ?? '', /^data:image\/png;base64,/);
      assert.equal(
        await page.locator('[data-result-for="r1"]').evaluate((el) => el.classList.contains('folded')),
        true,
        'the result row does not repeat the card',
      );
      const srcs = await page.locator('[data-testid="transcript"] img').evaluateAll((els) => els.map((e) => e.getAttribute('src') ?? ''));
      assert.ok(
        srcs.every((s) => s.startsWith('data:image/png;base64,')),
        `only allow-listed data: URLs: ${srcs.map((s) => s.slice(0, 30)).join(', ')}`,
      );
      assert.equal(await page.evaluate(() => (globalThis as unknown as { __pwned: number }).__pwned), 0);
    });

    it('puts the images of a message being edited back as chips (Edit and resend), those it has the bytes of', async () => {
      await deliver(page, { type: 'snapshot', state: reduce(initialTranscript, events.slice(0, 1)), session });
      await page.locator('[data-role="user"] [data-action="edit-resend"]').click();
      assert.deepEqual(
        (await posted(page)).filter((m) => m.type === 'editResend'),
        [{ type: 'editResend', entryId: 'u1' }],
      );
      await deliver(page, { type: 'setInput', text: 'Compare these' });
      assert.equal(await page.locator(composer).inputValue(), 'Compare these');
      assert.equal(await page.locator(chips).count(), 1, 'the drawable image came back; the placeholders had no bytes');
      await deliver(page, { type: 'setInput', text: 'another message from the tree' });
      assert.equal(await page.locator(chips).count(), 1, 'a later, unrelated setInput adds nothing');
    });

    it('opens a larger view on click or Enter, with its type, size and dimensions; Escape closes it without cancelling the run', async () => {
      await deliver(page, { type: 'snapshot', state: reduce(initialTranscript, [...events, { type: 'runStart' }]), session });
      const thumb = page.locator('[data-role="user"] [data-image="thumb"]');
      await thumb.focus();
      await page.keyboard.press('Enter');
      const viewer = page.locator('[data-testid="image-viewer"]');
      await viewer.waitFor();
      assert.equal(await viewer.getAttribute('role'), 'dialog');
      await page.waitForFunction(() => /16 × 16 px/.test((globalThis as unknown as Dom).document.querySelector('.image-viewer-caption')?.textContent ?? ''));
      assert.equal(await page.locator('.image-viewer-caption').innerText(), 'image/png, 79 B · 16 × 16 px');
      assert.equal(await page.evaluate(() => (globalThis as unknown as Dom).document.activeElement?.getAttribute('aria-label')), 'Close image');
      await page.keyboard.press('Escape');
      assert.equal(await viewer.isHidden(), true);
      assert.equal(
        await page.evaluate(() => (globalThis as unknown as Dom).document.activeElement?.getAttribute('data-image')),
        'thumb',
        'focus went back to the thumbnail',
      );
      assert.deepEqual(await sends(page), [], 'Escape closed the picture, it did not cancel the run');
      await page.locator('[data-tool-call-id="r1"] [data-image="thumb"]').click();
      await viewer.waitFor();
      await page.locator('[data-testid="image-viewer"] [data-action="close-image"]').click();
      assert.equal(await viewer.isHidden(), true);
    });
  });
});
