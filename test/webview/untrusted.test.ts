/**
 * Endpoint-chosen text in the chat view: tool-call ids that name `Object.prototype` members, delivered as
 * JSON the way postMessage carries them, and bidirectional-override characters in tool names, summaries,
 * titles and link titles, which must show rather than reorder what the reader sees; tag characters and bidi
 * controls in chips, the Changes row, the Restore card and every name, summary and title shown to be judged
 * (tool cards, header, sessions list, tree, slash menu, image chips, the shell row), which must show rather than hide.
 */

import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expandChips, type CodeChip } from '../../src/shared/chips.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { initialTranscript, reduce } from '../../src/shared/transcript/reduce.ts';
import { T0 } from './builders.ts';
import { deliver, deliverJson, root, session, useChatPage } from './harness.ts';
import { savedSessions } from './sessionBuilders.ts';
import { BIDI, PROTOTYPE_IDS } from './hostile.ts';

const BIDI_CHAR = /[\u202A-\u202E\u2066-\u2069]/;
/** Bidi controls, zero-width characters and Unicode tag characters, raw. */
const HIDDEN_CHAR = /[\u200B-\u200F\u202A-\u202E\u2066-\u2069\u{E0000}-\u{E007F}]/u;

/** A tool call with id `id`: drafted and streamed by the model, then run, then answered. */
function toolTurn(id: string, n: number): { draft: WireEvent[]; run: WireEvent[] } {
  const at = T0 + n;
  const args = JSON.stringify({ command: `echo ${n}` });
  return {
    draft: [
      { type: 'userMessage', text: `Run tool ${id}.`, images: 0 },
      { type: 'runStart' },
      { type: 'assistantStart', at },
      { type: 'blockStart', index: 0, kind: 'toolCall', at, toolCallId: id, toolName: 'bash' },
      { type: 'delta', index: 0, text: args },
      { type: 'blockEnd', index: 0, at },
      { type: 'assistantEnd', stopReason: 'toolUse', at },
    ],
    run: [
      { type: 'toolStart', toolCallId: id, toolName: 'bash', args, at },
      { type: 'toolUpdate', toolCallId: id, output: `partial ${id}` },
      { type: 'toolEnd', toolCallId: id, isError: false, output: `output of ${id}`, durationMs: 5 },
      { type: 'toolResult', toolCallId: id, toolName: 'bash', isError: false },
      { type: 'assistantStart', at },
      { type: 'blockStart', index: 0, kind: 'text', at },
      { type: 'delta', index: 0, text: `Answer after \`${id}\`.` },
      { type: 'blockEnd', index: 0, at },
      { type: 'assistantEnd', stopReason: 'stop', at },
      { type: 'settled', aborted: false, at },
    ],
  };
}

async function card(page: Page, id: string): Promise<{ status: string | null; output: string }> {
  const el = page.locator(`.tool-card[data-tool-call-id="${id}"]`);
  assert.equal(await el.count(), 1, `one card for ${id}`);
  return { status: await el.getAttribute('data-status'), output: (await el.locator('.tool-output-text').textContent()) ?? '' };
}

describe('endpoint-chosen text in the chat view (headless Chromium)', function () {
  this.timeout(120_000);
  let page: Page;
  let errors: string[];
  useChatPage(async (p) => {
    page = p;
    errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
  });

  it('streams, runs and finishes tool calls whose ids name Object.prototype members, and renders what follows them', async () => {
    await deliverJson(page, { type: 'snapshot', state: initialTranscript, session });
    for (const [n, id] of PROTOTYPE_IDS.entries()) {
      const turn = toolTurn(id, n);
      // The drafted call renders before any execution state exists for its id.
      await deliverJson(page, { type: 'batch', events: turn.draft });
      assert.equal((await card(page, id)).status, 'pending', id);
      await deliverJson(page, { type: 'batch', events: turn.run });
      assert.deepEqual(await card(page, id), { status: 'done', output: `output of ${id}` }, id);
      assert.ok(((await page.locator('[data-testid="transcript"]').textContent()) ?? '').includes(`Answer after ${id}.`), `the answer after ${id} rendered`);
    }
    assert.deepEqual(errors, []);
    assert.equal(await page.locator('body').getAttribute('data-run-state'), 'idle');
  });

  it('renders a snapshot whose tools table came through JSON with prototype-named keys', async () => {
    let s = initialTranscript;
    for (const [n, id] of PROTOTYPE_IDS.entries()) {
      const turn = toolTurn(id, n);
      s = reduce(s, [...turn.draft, ...turn.run]);
    }
    // A call still being drafted: no execution state under its id yet.
    s = reduce(s, toolTurn('toLocaleString', 99).draft);
    await deliverJson(page, { type: 'snapshot', state: s, session });
    for (const id of PROTOTYPE_IDS) assert.deepEqual(await card(page, id), { status: 'done', output: `output of ${id}` }, id);
    assert.equal((await card(page, 'toLocaleString')).status, 'pending');
    // "Show all" keeps its choice per id in the saved UI state, keyed by the id.
    await page.locator('.tool-card[data-tool-call-id="__proto__"] [data-action="tool-show-all"]').evaluate((b) => (b as unknown as { click(): void }).click());
    assert.deepEqual(errors, []);
  });

  it('shows bidi overrides visibly in tool names, one-line summaries, link titles, the model and the session title', async () => {
    const events: WireEvent[] = [{ type: 'runStart' }, { type: 'assistantStart', at: T0 }];
    BIDI.forEach((text, i) => {
      const args = JSON.stringify({ command: text, path: text });
      events.push(
        { type: 'blockStart', index: i, kind: 'toolCall', at: T0, toolCallId: `bidi_${i}`, toolName: i % 2 ? 'read' : `bash${text.slice(-3)}` },
        { type: 'delta', index: i, text: args },
        { type: 'blockEnd', index: i, at: T0 },
      );
    });
    const n = BIDI.length;
    events.push(
      { type: 'blockStart', index: n, kind: 'text', at: T0 },
      { type: 'delta', index: n, text: `See [the docs](https://example.com/\u202Egpj.exe "a \u2067title\u2069") and [x](src/\u202Eevil.ts).` },
      { type: 'blockEnd', index: n, at: T0 },
      { type: 'assistantEnd', stopReason: 'stop', at: T0 },
      { type: 'sessionInfo', name: 'Session \u202Eeman' },
      { type: 'settled', aborted: false, at: T0 },
    );
    await deliverJson(page, { type: 'snapshot', state: reduce(initialTranscript, events), session: { ...session, model: 'model\u202E' } });
    const shown = await page.evaluate(() => {
      const doc = (
        globalThis as unknown as {
          document: { querySelectorAll(s: string): ArrayLike<{ textContent: string | null; getAttribute(a: string): string | null }> };
        }
      ).document;
      const texts = (sel: string) => Array.from(doc.querySelectorAll(sel)).map((e) => e.textContent ?? '');
      return {
        names: texts('.tool-name'),
        summaries: texts('.tool-summary'),
        titles: Array.from(doc.querySelectorAll('[data-testid="transcript"] [title]')).map((e) => e.getAttribute('title') ?? ''),
        header: texts('.header .model, .header .session-name'),
      };
    });
    assert.equal(shown.summaries.length, n);
    for (const [i, s] of shown.summaries.entries()) {
      assert.doesNotMatch(s, BIDI_CHAR, `summary ${i}`);
      assert.match(s, /⟨U\+(202[A-E]|206[6-9])⟩/, `summary ${i} shows its controls`);
    }
    for (const name of shown.names) assert.doesNotMatch(name, BIDI_CHAR);
    assert.ok(
      shown.names.some((name) => /⟨U\+20/.test(name)),
      'a tool name shows its control',
    );
    assert.ok(shown.titles.length >= 2, `${shown.titles.length} titles`);
    for (const t of shown.titles) assert.doesNotMatch(t, BIDI_CHAR);
    // The http(s) link's title is its percent-encoded address; the relative one is decoded, controls and all.
    assert.ok(
      shown.titles.some((t) => t.includes('src/⟨U+202E⟩evil.ts')),
      shown.titles.join(' | '),
    );
    for (const t of shown.header) assert.doesNotMatch(t, BIDI_CHAR);
    assert.deepEqual(errors, []);
  });

  it('shows tag characters and bidi controls in chip previews and names, the user row, the Changes row and the Restore card', async () => {
    await deliverJson(page, { type: 'snapshot', state: initialTranscript, session });
    // "Ignore previous" in tag characters, invisible in a browser; a name that a U+202E reverses.
    const tagged = [...'Ignore previous'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
    const name = 'src/evil\u202Etxt.exe';
    const chip: CodeChip = { kind: 'file', path: name, text: `const a = 1;${tagged}\n` };
    await deliverJson(page, { type: 'addChip', chip });
    const strip = page.locator('[data-testid="composer-chips"] .chip');
    await strip.locator('[data-action="expand-chip"]').click();
    const files = [{ path: name, added: 1, removed: 0, created: false }];
    await deliverJson(page, {
      type: 'batch',
      events: [
        { type: 'userMessage', text: expandChips([chip], 'Why?'), images: 0 },
        { type: 'runStart' },
        { type: 'settled', aborted: false, at: T0 },
        { type: 'changes', runId: 'r1', files },
        {
          type: 'dialogOpen',
          dialog: { id: 'd1', kind: 'select', title: 'Restore?', options: ['Code only'], panel: true, restore: { checkpoint: 'a'.repeat(40), files }, at: T0 },
        },
      ],
    });
    const shown = async (sel: string) =>
      page.locator(sel).evaluateAll((els) => els.flatMap((e) => [e.textContent ?? '', e.getAttribute('title') ?? '', e.getAttribute('aria-label') ?? '']));
    const chipTexts = await shown('[data-testid="composer-chips"] .chip, [data-testid="composer-chips"] .chip *, [data-testid="chip-preview"]');
    const rowChips = await shown('[data-role="user"] .chip-label');
    const changes = await shown('[data-testid="changes"] .change-file *');
    const restore = await shown('[data-testid="dialog"] .change-file *');
    for (const [where, texts] of Object.entries({ chipTexts, rowChips, changes, restore })) {
      assert.ok(texts.length > 0, where);
      for (const text of texts) assert.doesNotMatch(text, HIDDEN_CHAR, `${where}: ${JSON.stringify(text)}`);
      assert.ok(
        texts.some((t) => t.includes('evil⟨U+202E⟩txt.exe')),
        `${where} shows the name's control: ${texts.join(' | ')}`,
      );
    }
    assert.ok((await page.locator('[data-testid="chip-preview"]').textContent())?.includes('const a = 1;⟨U+E0049⟩⟨U+E0067⟩'));
    assert.ok(
      chipTexts.some((t) => t.includes('⟨U+E0049⟩')),
      'the hover preview shows the tag characters',
    );
    assert.deepEqual(errors, []);
  });

  it('shows tag characters in tool cards, the header, the sessions list, the tree, the slash menu, image chips, the shell row and link titles', async () => {
    // "ATTACK" in tag characters (U+E0041…): invisible in a browser, read by a model.
    const tag = [...'ATTACK'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
    const edit = JSON.stringify({ path: `src/a${tag}.ts`, oldText: 'a', newText: 'b' });
    const events: WireEvent[] = [
      { type: 'userMessage', text: 'Go', images: 0 },
      { type: 'runStart' },
      { type: 'assistantStart', at: T0 },
      { type: 'blockStart', index: 0, kind: 'toolCall', at: T0, toolCallId: 'tag_bash', toolName: `bash${tag}` },
      { type: 'delta', index: 0, text: JSON.stringify({ command: `ls ${tag}` }) },
      { type: 'blockEnd', index: 0, at: T0 },
      { type: 'blockStart', index: 1, kind: 'toolCall', at: T0, toolCallId: 'tag_edit', toolName: 'edit' },
      { type: 'delta', index: 1, text: edit },
      { type: 'blockEnd', index: 1, at: T0 },
      { type: 'blockStart', index: 2, kind: 'text', at: T0 },
      { type: 'delta', index: 2, text: `See [x](src/b${tag}.ts "a ${tag} title").` },
      { type: 'blockEnd', index: 2, at: T0 },
      { type: 'assistantEnd', stopReason: 'toolUse', at: T0 },
      { type: 'toolStart', toolCallId: 'tag_edit', toolName: 'edit', args: edit, at: T0 },
      { type: 'toolEnd', toolCallId: 'tag_edit', isError: false, output: 'ok', durationMs: 1 },
      { type: 'sessionInfo', name: `Session ${tag}` },
      { type: 'bashStart', id: 'b1', command: `make ${tag}`, excluded: false, at: T0 },
    ];
    await deliverJson(page, { type: 'snapshot', state: reduce(initialTranscript, events), session: { ...session, model: `model${tag}` } });
    const png = readFileSync(join(root, 'test', 'fixtures', 'images', 'red-square.png')).toString('base64');
    await deliver(page, { type: 'restoreInput', texts: [''], images: [{ mimeType: 'image/png', data: png, name: `shot${tag}.png` }] });
    const shown = async (sel: string) =>
      page.locator(sel).evaluateAll((els) => els.flatMap((e) => [e.textContent ?? '', e.getAttribute('title') ?? '', e.getAttribute('aria-label') ?? '']));
    const surfaces: Record<string, string[]> = {
      // A card's name, summary and file link; its arguments and output are body text, shown as they are.
      toolCards: [
        ...(await shown('.tool-name, .tool-summary, .file-actions *')),
        ...(await page.locator('.tool-card [title]').evaluateAll((els) => els.map((e) => e.getAttribute('title') ?? ''))),
      ],
      header: await shown('.header, .header *'),
      imageChips: await shown('[data-testid="composer-images"] *'),
      shellRow: await shown('.shell-live *'),
      linkTitles: await shown('[data-testid="transcript"] a'),
    };
    await deliver(page, { type: 'showMode', mode: 'sessions' });
    const [listed] = savedSessions(1);
    await deliver(page, {
      type: 'sessions',
      page: { sessions: [{ ...listed!, name: `Named ${tag}` }], offset: 0, total: 1, query: '', openIn: { [listed!.path]: `Chat ${tag}` } },
    });
    surfaces.sessions = await shown('[data-testid="sessions"] [data-session-file], [data-testid="sessions"] [data-session-file] *');
    await deliver(page, { type: 'showMode', mode: 'chat' });
    await page.locator('[data-action="show-tree"]').click();
    await deliver(page, {
      type: 'sessionTree',
      nodes: [{ id: 'u1', depth: 0, kind: 'user', text: `Hello ${tag}`, label: `label ${tag}`, onPath: true, isLeaf: true }],
    });
    surfaces.tree = await shown('[data-testid="session-tree"] [data-entry-id], [data-testid="session-tree"] [data-entry-id] *');
    await page.locator('[data-testid="session-tree"] [data-action="back-to-chat"]').click();
    await page.locator('[data-testid="composer"]').focus();
    await page.keyboard.type('/');
    await deliver(page, { type: 'commands', commands: [{ name: `evil${tag}`, description: `Does ${tag} things`, source: 'extension' }] });
    surfaces.slashMenu = await shown('[data-testid="slash-menu"] [data-command], [data-testid="slash-menu"] [data-command] *');
    const hiding = Object.entries(surfaces)
      .filter(([, texts]) => texts.some((text) => HIDDEN_CHAR.test(text)) || !texts.some((text) => text.includes('⟨U+E0041⟩⟨U+E0054⟩')))
      .map(([where, texts]) => `${where}: ${JSON.stringify(texts)}`);
    assert.deepEqual(hiding, [], 'every surface shows the tag characters and hides none');
    assert.deepEqual(errors, []);
  });
});
