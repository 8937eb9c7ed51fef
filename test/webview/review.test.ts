/** Reviewing and pointing Pi at code in the chat view: file actions on edit cards, the Changes row, chips in the composer and the user row. */

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { initialTranscript } from '../../src/shared/transcript/reduce.ts';
import { T0 } from './builders.ts';
import { deliver, posted, session, useChatPage } from './harness.ts';

const editArgs = JSON.stringify({ path: '/work/src/a.ts', edits: [{ oldText: 'a', newText: 'b' }] });
const editRun: WireEvent[] = [
  { type: 'userMessage', text: 'Edit a.ts.', images: 0, entryId: 'u1' },
  { type: 'runStart' },
  { type: 'assistantStart', at: T0 },
  { type: 'blockStart', index: 0, kind: 'toolCall', at: T0, toolCallId: 'e1', toolName: 'edit' },
  { type: 'delta', index: 0, text: editArgs },
  { type: 'blockEnd', index: 0, at: T0 },
  { type: 'assistantEnd', stopReason: 'toolUse', at: T0 },
  { type: 'toolStart', toolCallId: 'e1', toolName: 'edit', args: editArgs, at: T0 },
  { type: 'toolEnd', toolCallId: 'e1', isError: false, output: 'Successfully replaced 1 block(s).', durationMs: 3 },
  { type: 'settled', aborted: false, at: T0 },
  {
    type: 'changes',
    runId: 'r1',
    files: [
      { path: 'src/a.ts', added: 1, removed: 1, created: false },
      { path: 'new.txt', added: 3, removed: 0, created: true },
    ],
  },
];

describe('review and chips in the chat view (headless Chromium)', function () {
  this.timeout(120_000);
  let page: Page;
  useChatPage(async (p) => {
    page = p;
    await deliver(page, { type: 'snapshot', state: initialTranscript, session });
  });

  const sent = async (type: string) => (await posted(page)).filter((m) => m.type === type);

  it('an edit card links its workspace-relative path and opens the diff, by mouse and keyboard', async () => {
    await deliver(page, { type: 'batch', events: editRun.slice(0, 9) });
    const card = page.locator('.tool-card[data-tool-call-id="e1"]');
    const link = card.locator('[data-action="open-file"]');
    assert.equal(await link.getAttribute('data-path'), 'src/a.ts');
    assert.equal(await link.textContent(), 'src/a.ts');
    await link.click();
    assert.deepEqual((await sent('openFile')).at(-1), { type: 'openFile', path: 'src/a.ts', firstChange: true });
    const diff = card.locator('[data-action="open-diff"]');
    assert.equal(await diff.getAttribute('aria-label'), 'Open diff of src/a.ts');
    await diff.focus();
    await page.keyboard.press('Enter');
    assert.deepEqual((await sent('openDiff')).at(-1), { type: 'openDiff', path: 'src/a.ts' });
  });

  it('the Changes row lists each file with +/- counts, Open Diff, Undo and Undo all; an Undo updates the row', async () => {
    await deliver(page, { type: 'batch', events: editRun });
    const row = page.locator('[data-testid="changes"]');
    assert.equal(await row.count(), 1);
    assert.deepEqual(await row.locator('li[data-path]').evaluateAll((els) => els.map((e) => e.getAttribute('data-path'))), ['src/a.ts', 'new.txt']);
    assert.match((await row.locator('li[data-path="src/a.ts"]').textContent()) ?? '', /\+1.*−1/);
    assert.equal(await row.locator('[data-action="undo-file"][data-path="new.txt"]').getAttribute('aria-label'), 'Undo: delete new.txt, which Pi created');
    await row.locator('[data-action="undo-file"][data-path="src/a.ts"]').click();
    assert.deepEqual((await sent('undo')).at(-1), { type: 'undo', path: 'src/a.ts', runId: 'r1' });
    await row.locator('[data-action="undo-all"]').click();
    assert.deepEqual((await sent('undo')).at(-1), { type: 'undo', runId: 'r1' });
    await deliver(page, {
      type: 'batch',
      events: [
        {
          type: 'changes',
          runId: 'r1',
          files: [
            { path: 'src/a.ts', added: 1, removed: 1, created: false, undone: true },
            { path: 'new.txt', added: 3, removed: 0, created: true },
          ],
        },
      ],
    });
    assert.equal(await page.locator('[data-testid="changes"]').count(), 1, 'the same row, updated');
    assert.equal(await row.locator('li[data-path="src/a.ts"]').getAttribute('data-undone'), 'true');
    assert.equal(await row.locator('[data-action="undo-file"][data-path="src/a.ts"]').count(), 0);
  });

  it('the Changes row marks each file with its pending changes and offers Keep all and Review while some are left', async () => {
    await deliver(page, { type: 'batch', events: editRun });
    await deliver(page, { type: 'reviewPending', pending: { files: { 'src/a.ts': 2, 'new.txt': 1 }, left: 3, total: 4 } });
    const row = page.locator('[data-testid="changes"]');
    assert.equal(await row.locator('li[data-path="src/a.ts"]').getAttribute('data-pending'), '2');
    assert.equal(await row.locator('li[data-path="new.txt"]').getAttribute('data-pending'), '1');
    assert.match((await row.textContent()) ?? '', /3 of 4 changes left/);
    await row.locator('[data-action="keep-all"]').click();
    assert.deepEqual((await sent('runCommand')).at(-1), { type: 'runCommand', command: 'keepAllChanges' });
    await row.locator('[data-action="review"]').click();
    assert.deepEqual((await sent('runCommand')).at(-1), { type: 'runCommand', command: 'reviewChanges' });
    await deliver(page, { type: 'reviewPending', pending: { files: {}, left: 0, total: 0 } });
    assert.equal(await row.locator('li[data-path="src/a.ts"]').getAttribute('data-pending'), '0');
    assert.equal(await row.locator('[data-action="keep-all"]').count(), 0, 'nothing left to keep');
  });

  it('a chip from the host shows in the composer, expands into the prompt, and shows in the user row', async () => {
    await deliver(page, { type: 'addChip', chip: { kind: 'selection', path: 'src/a.ts', startLine: 2, endLine: 3, text: 'let x = 1;\n' } });
    const chip = page.locator('[data-testid="composer-chips"] [data-chip="src/a.ts:2-3"]');
    assert.equal(await chip.count(), 1);
    assert.equal(await chip.locator('[data-action="remove-chip"]').getAttribute('aria-label'), 'Remove src/a.ts:2-3');
    await page.locator('[data-testid="composer"]').fill('Explain this.');
    await page.locator('[data-testid="send"]').click();
    const text = '<context ref="src/a.ts:2-3">\nlet x = 1;\n</context>\n\nExplain this.';
    assert.deepEqual((await sent('send')).at(-1), { type: 'send', text, mode: 'prompt' });
    assert.equal(await page.locator('[data-testid="composer-chips"] .chip').count(), 0, 'sent chips leave the composer');
    await deliver(page, { type: 'batch', events: [{ type: 'userMessage', text, images: 0 }] });
    const userRow = page.locator('[data-role="user"]').last();
    assert.equal(await userRow.locator('[data-chip="src/a.ts:2-3"]').count(), 1);
    assert.equal(await userRow.locator('.plain').textContent(), 'Explain this.');
  });

  it('inline code naming a workspace file becomes a link to that line; code blocks and parent paths stay text', async () => {
    const text = 'Look at `src/a.ts:12`, `README.md`, `../etc/passwd` and `npm test`.\n\n```\nsrc/b.ts:3\n```';
    await deliver(page, {
      type: 'batch',
      events: [
        { type: 'assistantStart', at: T0 },
        { type: 'blockStart', index: 0, kind: 'text', at: T0 },
        { type: 'delta', index: 0, text },
        { type: 'blockEnd', index: 0, at: T0 },
        { type: 'assistantEnd', stopReason: 'stop', at: T0 },
      ],
    });
    const links = page.locator('[data-role="assistant"] a.path-link');
    assert.deepEqual(await links.evaluateAll((els) => els.map((e) => e.getAttribute('href'))), ['src/a.ts#L12', 'README.md']);
    await links.first().focus();
    await page.keyboard.press('Enter');
    assert.deepEqual((await sent('openLink')).at(-1), { type: 'openLink', href: 'src/a.ts#L12' });
  });
  it('workspace paths in a finished tool output become links to that line; URLs, parent paths and running output stay text', async () => {
    const output = 'src/a.ts:12:5: error TS2322\nsee https://example.com/docs/x.ts and ../etc/passwd.txt\nmain.go:7 panic\nv1.2 released';
    await deliver(page, {
      type: 'batch',
      events: [
        { type: 'assistantStart', at: T0 },
        { type: 'blockStart', index: 0, kind: 'toolCall', toolCallId: 'call_p', toolName: 'bash', at: T0 },
        { type: 'delta', index: 0, text: '{"command":"tsc"}' },
        { type: 'blockEnd', index: 0, at: T0 },
        { type: 'assistantEnd', stopReason: 'toolUse', at: T0 },
        { type: 'toolStart', toolCallId: 'call_p', toolName: 'bash', args: '{"command":"tsc"}', at: T0 },
        { type: 'toolUpdate', toolCallId: 'call_p', output },
      ],
    });
    const card = page.locator('[data-tool-call-id="call_p"]');
    await card.locator('.tool-output-text').filter({ hasText: 'TS2322' }).waitFor();
    assert.equal(await card.locator('a.path-link').count(), 0, 'no links while the tool runs');
    await deliver(page, { type: 'batch', events: [{ type: 'toolEnd', toolCallId: 'call_p', isError: true, output }] });
    const links = card.locator('a.path-link');
    await links.first().waitFor();
    assert.deepEqual(await links.evaluateAll((els) => els.map((e) => e.getAttribute('href'))), ['src/a.ts#L12', 'main.go#L7']);
    assert.equal(await card.locator('.tool-output-text').innerText(), output, 'the text reads the same');
    await links.first().click();
    assert.deepEqual((await sent('openLink')).at(-1), { type: 'openLink', href: 'src/a.ts#L12' });
  });

  it('a user row offers Restore; the restore card lists the files with diffs of the checkpoint and answers with its choice', async () => {
    await deliver(page, { type: 'batch', events: editRun });
    await page.locator('[data-role="user"] [data-action="restore"]').click();
    assert.deepEqual((await sent('restore')).at(-1), { type: 'restore', entryId: 'u1' });
    const checkpoint = 'a'.repeat(40);
    const files = [
      { path: 'gen.txt', added: 1, removed: 0, created: true },
      { path: 'src/a.ts', added: 1, removed: 1, created: false },
    ];
    const choices = ['Code and conversation', 'Conversation only', 'Code only'];
    await deliver(page, {
      type: 'batch',
      events: [
        {
          type: 'dialogOpen',
          dialog: { id: 'dialog-1', kind: 'select', title: 'Restore to this message?', options: choices, panel: true, restore: { checkpoint, files }, at: T0 },
        },
      ],
    });
    const card = page.locator('[data-testid="dialog"]');
    assert.deepEqual(await card.locator('[data-choice]').evaluateAll((els) => els.map((e) => e.getAttribute('data-choice'))), choices);
    assert.deepEqual(await card.locator('.change-file').evaluateAll((els) => els.map((e) => e.getAttribute('data-path'))), ['gen.txt', 'src/a.ts']);
    await card.locator('[data-action="open-diff"][data-path="gen.txt"]').click();
    assert.deepEqual((await sent('openDiff')).at(-1), { type: 'openDiff', path: 'gen.txt', runId: checkpoint });
    assert.equal(await card.getAttribute('data-answered'), null, 'opening a diff does not answer the card');
    await card.locator('[data-choice="Code only"]').click();
    assert.deepEqual((await sent('answerDialog')).at(-1), { type: 'answerDialog', id: 'dialog-1', value: 'Code only' });
  });

  it("a restore's notice offers Undo restore", async () => {
    await deliver(page, {
      type: 'batch',
      events: [{ type: 'noticeMessage', level: 'info', text: 'Restored the code to before this message.', code: 'restored' }],
    });
    await page.locator('[data-role="notice"] [data-action="undo-restore"]').click();
    assert.deepEqual((await sent('undoRestore')).at(-1), { type: 'undoRestore' });
  });
});
