/** Streaming markdown in headless Chromium: known rendering faults, and streamed DOM equal to a one-shot render. */

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { initialTranscript } from '../../src/shared/transcript/reduce.ts';
import { build, T0 } from './builders.ts';
import { asHostSends, deliver, session, useChatPage } from './harness.ts';
import { afterMarkers, chunkings, everySplit, randomBlockStarts, randomLongParagraph, randomLongTable, randomMarkdown, seeded } from './randomMarkdown.ts';
import { allDivergent, report, type Stream } from './streamCompare.ts';

interface StreamResult {
  /** innerHTML of the streamed block after each delta's frame, if asked for, and after the end. */
  readonly during: string[];
  readonly streamed: string;
  readonly oneShot: string;
}

/**
 * Streams `chunks` into a new assistant text block, one delta per frame, ends it, then renders the joined
 * text in one final delta in a second row; waits until deferred highlighting is done.
 */
async function streamAndCompare(page: Page, chunks: readonly string[], opts: { end?: boolean; keepDuring?: boolean } = {}): Promise<StreamResult> {
  const at = T0;
  const end = opts.end ?? true;
  // What the host would send for each delivery (the worker's changes), worked out here in delivery order.
  const sent = (events: WireEvent[]) => asHostSends(page, { type: 'batch', events });
  const start = sent([
    { type: 'assistantStart', at },
    { type: 'blockStart', index: 0, kind: 'text', at },
  ]);
  const deltas = chunks.map((text) => sent([{ type: 'delta', index: 0, text }]));
  const ends = [...(end ? [sent([{ type: 'blockEnd', index: 0, at }])] : []), sent([{ type: 'assistantEnd', stopReason: 'stop', at }])];
  const oneShot = sent([
    { type: 'assistantStart', at },
    { type: 'blockStart', index: 0, kind: 'text', at },
    { type: 'delta', index: 0, text: chunks.join('') },
    { type: 'blockEnd', index: 0, at },
    { type: 'assistantEnd', stopReason: 'stop', at },
  ]);
  return page.evaluate(
    async ({ start, deltas, ends, oneShot, keepDuring }) => {
      const w = globalThis as unknown as {
        dispatchEvent(e: unknown): boolean;
        MessageEvent: new (t: string, i: { data: unknown }) => unknown;
        requestAnimationFrame(cb: () => void): number;
        setTimeout(cb: () => void, ms: number): number;
        document: { querySelector(s: string): { innerHTML: string } | null; querySelectorAll(s: string): ArrayLike<{ innerHTML: string }> };
      };
      const send = (data: unknown) => w.dispatchEvent(new w.MessageEvent('message', { data }));
      const frame = () => new Promise<void>((r) => w.requestAnimationFrame(() => r()));
      const settle = async () => {
        await frame();
        await frame();
        for (let i = 0; i < 200 && w.document.querySelector('[data-highlight], [data-lines], [data-rows], [data-math-pending]'); i++)
          await new Promise<void>((r) => w.setTimeout(r, 5));
      };
      const last = () => {
        const all = w.document.querySelectorAll('[data-role="assistant"] .md');
        return all[all.length - 1]!.innerHTML;
      };
      const during: string[] = [];
      send(start);
      for (const d of deltas) {
        send(d);
        await frame();
        if (keepDuring) during.push(last());
      }
      for (const e of ends) send(e);
      await settle();
      const streamed = last();
      send(oneShot);
      await settle();
      return { during, streamed, oneShot: last() };
    },
    { start, deltas, ends, oneShot, keepDuring: opts.keepDuring ?? false },
  );
}

/** Streams chunks into a block left open; returns the open block's element handle selector. */
async function streamOpen(page: Page, chunks: readonly string[]): Promise<void> {
  await deliver(page, {
    type: 'batch',
    events: [
      { type: 'assistantStart', at: T0 },
      { type: 'blockStart', index: 0, kind: 'text', at: T0 },
    ],
  });
  for (const text of chunks) await deliver(page, { type: 'batch', events: [{ type: 'delta', index: 0, text } satisfies WireEvent] });
}

const OPEN = '[data-role="assistant"]:not([data-stop-reason]) .md';

/** The DOM an element's geometry is read from, inside the page. */
interface El {
  readonly className: string;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { left: number; width: number; top: number; bottom: number };
  querySelector(selector: string): El | null;
  querySelectorAll(selector: string): ArrayLike<El>;
}

describe('streaming markdown (headless Chromium)', function () {
  this.timeout(120_000);
  let page: Page;
  useChatPage(async (p) => {
    page = p;
    await deliver(p, { type: 'snapshot', state: initialTranscript, session });
  });

  it('resolves reference-style links while streaming, defined in an earlier or a later paragraph', async () => {
    await streamOpen(page, [
      '[a]: https://example.com/earlier\n\nSee [the docs][1] and [before][a].\n\nMore text.\n\n',
      '[1]: https://example.com/docs\n\nThanks, and [before][a] again.\n\nStill streaming',
    ]);
    const links = await page.$$eval(`${OPEN} a`, (els) => els.map((e) => `${e.textContent} -> ${e.getAttribute('href')}`));
    assert.deepEqual(links, ['the docs -> https://example.com/docs', 'before -> https://example.com/earlier', 'before -> https://example.com/earlier']);
    assert.ok(!(await page.locator(OPEN).innerText()).includes('['), 'no literal brackets left');
  });

  it('renders a linked image (a badge) as one link to its target, with the alt text', async () => {
    const r = await streamAndCompare(page, ['Status: [![build passing](https://ci.example.com/badge.svg)](https://ci.example.com/job/1) ok.\n']);
    for (const html of [r.streamed, r.oneShot]) {
      const anchors = [...html.matchAll(/<a\b[^>]*>(.*?)<\/a>/g)].map((m) => m[0]);
      assert.equal(anchors.length, 1, html);
      assert.match(anchors[0]!, /href="https:\/\/ci\.example\.com\/job\/1"/);
      assert.match(anchors[0]!, />build passing<\/a>$/);
    }
    assert.equal(await page.locator('[data-role="assistant"] a:not([href])').count(), 0, 'no empty link left as a keyboard stop');
  });

  it('splits paragraphs at lone carriage returns while streaming, as the final render does', async () => {
    const text = 'First paragraph,\rstill the first.\r\rSecond paragraph.\r\r- a list\r- of two\r\rThird paragraph';
    const chunks = text.match(/[\s\S]{1,7}/g)!;
    await streamOpen(page, chunks);
    const streaming = await page.$$eval(`${OPEN} > *`, (els) => els.map((e) => `${e.tagName}:${(e as unknown as { innerText: string }).innerText}`));
    const r = await streamAndCompare(page, [text]);
    const final = r.oneShot;
    assert.deepEqual(streaming, ['P:First paragraph, still the first.', 'P:Second paragraph.', 'UL:a list\nof two', 'P:Third paragraph']);
    assert.ok(final.includes('<p>First paragraph,\nstill the first.</p>'), final);
  });

  it('labels an open code fence with its info string unescaped, as when it is closed', async () => {
    await streamOpen(page, ['Code:\n\n```foo\\+bar baz\nlet x = 1;\n', 'let y = 2;\n']);
    assert.equal(await page.locator(`${OPEN} .code-lang`).innerText(), 'foo+bar');
    assert.equal(await page.locator(`${OPEN} code`).getAttribute('class'), 'language-foo+bar');
    assert.equal(await page.locator(`${OPEN} code`).innerText(), 'let x = 1;\nlet y = 2;\n');
  });

  it('keeps the lines of a long streaming paragraph where a one-shot render puts them, and ends with its DOM', async () => {
    const vocab = [
      'the',
      'server',
      'reads',
      '**configuration**',
      'then',
      'starts',
      'on',
      'a',
      '`port`',
      'and',
      'logs',
      '[the docs](https://example.com/d)',
      'request',
    ];
    const words: string[] = [];
    for (let i = 0, x = 7; i < 2400; i++) words.push(vocab[(x = (x * 1103515245 + 12345) % 2147483648) % vocab.length]!);
    const text = words.join(' ');
    const chunks = text.match(/[\s\S]{1,240}/g)!;
    /** Where each inline element of a paragraph sits, relative to the paragraph, and its height. */
    const geometry = (selector: string) =>
      page.$eval(selector, (p) => {
        const box = p.getBoundingClientRect();
        const at = (r: { top: number; left: number }) => `${Math.round(r.top - box.top)},${Math.round(r.left - box.left)}`;
        return {
          height: Math.round(box.height),
          groups: p.querySelectorAll('.md-lines').length,
          marks: Array.from(p.querySelectorAll('strong, code, a'), (e) => at((e as typeof p).getClientRects()[0]!)),
        };
      });
    await streamOpen(page, chunks);
    const streaming = await geometry(`${OPEN} > p`);
    assert.ok(streaming.groups > 0, 'the finished lines went into line groups');
    const r = await streamAndCompare(page, [text]);
    const oneShot = await geometry('[data-role="assistant"]:last-of-type .md > p');
    assert.equal(oneShot.groups, 0);
    assert.deepEqual({ ...streaming, groups: 0 }, oneShot, 'every line breaks where it does in a one-shot render');
    // The streaming row, ended now, keeps no line group: its DOM is the one-shot render's.
    await deliver(page, { type: 'batch', events: [{ type: 'blockEnd', index: 0, at: T0 }] });
    await page.waitForFunction(() => !(globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector('[data-lines]'));
    const ended = await page.$$eval('[data-role="assistant"] .md', (els) => els.map((e) => e.innerHTML));
    assert.equal(ended[0], r.oneShot);
  });

  it('keeps a line that looks like a table header in its paragraph until the delimiter row under it is finished', async () => {
    // "| -" is a delimiter row, "| - x |" is not: the paragraph must not end at "| a |" while that line is open.
    // Streamed into an open paragraph, and arriving with the paragraph's start (a block not yet taken over).
    for (const chunks of [
      ['Some text\n', '| a |\n| -', ' x |\nmore text\n\nAfter.'],
      ['Some text\n| a |\n| -', ' x |\nmore text\n\nAfter.'],
    ]) {
      const r = await streamAndCompare(page, chunks);
      assert.equal(r.streamed, r.oneShot, JSON.stringify(chunks));
      assert.ok(r.oneShot.startsWith('<p>Some text\n| a |\n| - x |\nmore text</p>'), r.oneShot);
    }
  });

  it('streams a long table in chunks whose columns line up with the header, read as one table', async () => {
    const rows = Array.from({ length: 200 }, (_, i) => `| ${i + 1} | **name-${i}** and [a link](https://example.com/${i}) | ${(i * 37) % 1000} |\n`);
    const text = `Results:\n\n| # | name | value |\n| --- | :-: | --: |\n${rows.join('')}`;
    await streamOpen(page, text.match(/[\s\S]{1,300}/g)!);
    const layout = await page.$eval(OPEN, (md) => {
      const rect = (e: El) => e.getBoundingClientRect();
      const x = (e: El) => [Math.round(rect(e).left * 10) / 10, Math.round(rect(e).width * 10) / 10];
      const tables = Array.from((md as unknown as El).querySelectorAll('table'));
      return {
        header: Array.from(tables[0]!.querySelectorAll('thead th'), x),
        chunks: tables.slice(1).map((t, i) => ({
          className: t.className,
          role: t.getAttribute('role'),
          tabindex: t.getAttribute('tabindex'),
          cells: Array.from(t.querySelectorAll('tr:first-child > td'), x),
          // The gap between the last row of the table above and the chunk's first row.
          gap: rect(t.querySelector('tr')!).top - rect(Array.from(tables[i]!.querySelectorAll('tr')).at(-1)!).bottom,
        })),
      };
    });
    assert.ok(layout.chunks.length >= 2, `chunks: ${layout.chunks.length}`);
    for (const chunk of layout.chunks) {
      assert.deepEqual(
        [chunk.className, chunk.role, chunk.tabindex],
        ['md-rows', 'presentation', null],
        'a continuation, not a table or a tab stop of its own',
      );
      assert.equal(chunk.cells.length, layout.header.length);
      chunk.cells.forEach(([left, width], i) => {
        const [hl, hw] = layout.header[i]!;
        assert.ok(Math.abs(left! - hl!) <= 1 && Math.abs(width! - hw!) <= 1, `column ${i}: cell ${left},${width} vs header ${hl},${hw}`);
      });
      assert.ok(Math.abs(chunk.gap) <= 1, `gap ${chunk.gap}`);
    }
    // The rows stream into the last chunk; the finished table is one table again.
    await deliver(page, { type: 'batch', events: [{ type: 'blockEnd', index: 0, at: T0 }] });
    await page.waitForFunction(() => !(globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector('[data-rows]'));
    assert.equal(await page.locator('[data-role="assistant"] .md table').count(), 1);
    assert.equal(await page.locator('[data-role="assistant"] .md tbody > tr').count(), 200);
  });

  it('ends a long streamed table with the DOM of a one-shot render, ended by a blank line or by the reply', async () => {
    const rows = (n: number, seed: number) =>
      Array.from({ length: n }, (_, i) => `| ${i + seed} | *it ${i}* \`code\` [link](https://example.com/${i}) | [ref][d] ${i % 7 ? 'x' : '**y**'} |\n`).join(
        '',
      );
    const text = `Intro.\n\n| # | name | ref |\n|:--|:-:|--:|\n${rows(170, 1)}\nAfter the table.\n\n| a | b | c |\n| --- | --- | ---: |\n${rows(140, 500)}\n[d]: https://example.com/docs\n\n| last | table |\n|--|--:|\n${rows(
      90,
      900,
    )
      .replace(/\| \[ref\]\[d\] [^|]* \|\n/g, '|\n')
      .trimEnd()}`;
    for (const size of [97, 211]) {
      for (const end of [true, false]) {
        const r = await streamAndCompare(page, text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g'))!, { end });
        assert.equal(r.streamed, r.oneShot, `chunks of ${size}, ${end ? 'block end' : 'reply end'}`);
      }
    }
    assert.ok(!(await page.locator('[data-role="assistant"] table.md-rows').count()), 'no chunk left');
  });

  it('loses no row when the view is re-created while a long table streams in chunks', async () => {
    const rows = Array.from({ length: 240 }, (_, i) => `| ${i + 1} | [row ${i}](https://example.com/${i}) |\n`);
    const pieces = ['| # | row |\n| --: | --- |\n', ...Array.from({ length: 12 }, (_, k) => rows.slice(k * 20, k * 20 + 20).join(''))];
    const events: WireEvent[] = [
      { type: 'assistantStart', at: T0 },
      { type: 'blockStart', index: 0, kind: 'text', at: T0 },
    ];
    await deliver(page, { type: 'batch', events });
    for (const [k, text] of pieces.entries()) {
      const delta: WireEvent = { type: 'delta', index: 0, text };
      events.push(delta);
      await deliver(page, { type: 'batch', events: [delta] });
      if (k === 6) {
        assert.ok((await page.locator(`${OPEN} table.md-rows`).count()) > 0, 'streaming in chunks');
        // A re-created view starts from the host's snapshot, then takes the live deltas.
        await deliver(page, { type: 'snapshot', state: build(events), session });
      }
    }
    assert.ok((await page.locator(`${OPEN} table.md-rows`).count()) > 0, 'streaming in chunks again');
    await deliver(page, {
      type: 'batch',
      events: [
        { type: 'blockEnd', index: 0, at: T0 },
        { type: 'assistantEnd', stopReason: 'stop', at: T0 },
      ],
    });
    await page.waitForFunction(() => !(globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector('[data-rows]'));
    const streamed = await page.locator('[data-role="assistant"] .md').last().innerHTML();
    await deliver(page, {
      type: 'batch',
      events: [
        { type: 'assistantStart', at: T0 },
        { type: 'blockStart', index: 0, kind: 'text', at: T0 },
        { type: 'delta', index: 0, text: pieces.join('') },
        { type: 'blockEnd', index: 0, at: T0 },
        { type: 'assistantEnd', stopReason: 'stop', at: T0 },
      ],
    });
    assert.equal(streamed, await page.locator('[data-role="assistant"] .md').last().innerHTML());
    assert.equal(await page.locator('[data-role="assistant"] .md').first().locator('tbody > tr').count(), 240);
  });

  it('streams a block quote by units: a finished paragraph inside it stays, the next one grows', async () => {
    await streamOpen(page, ['> First paragraph of the quote,\n> still the first.\n>\n', '> Second paragraph']);
    const first = `${OPEN} > blockquote > p:first-child`;
    await page.$eval(first, (p) => ((p as unknown as { __kept: boolean }).__kept = true));
    await deliver(page, { type: 'batch', events: [{ type: 'delta', index: 0, text: ' grows,\n> and grows.\n>\n> - a list' }] });
    assert.equal(await page.$eval(first, (p) => (p as unknown as { __kept?: boolean }).__kept === true), true, 'the first paragraph was not rendered again');
    assert.deepEqual(
      await page.$$eval(`${OPEN} > blockquote > *`, (els) => els.map((e) => `${e.tagName}:${(e as unknown as { innerText: string }).innerText}`)),
      ['P:First paragraph of the quote, still the first.', 'P:Second paragraph grows, and grows.', 'UL:a list'],
    );
  });

  it('ends with the DOM of a one-shot render for long paragraphs among random blocks in random chunkings (seeded)', async () => {
    const { seed, random } = seeded(20261130);
    const failures: string[] = [];
    for (let doc = 0; doc < 3; doc++) {
      const text = randomLongParagraph(random);
      // The chunkings that stream it in many deliveries (so its lines get grouped), not in one.
      for (const [name, chunks] of chunkings(text, random).slice(1, 3)) {
        const r = await streamAndCompare(page, chunks);
        if (r.streamed !== r.oneShot) failures.push(`seed ${seed}, document ${doc}, ${name} chunking: ${firstDifference(text, r.streamed, r.oneShot)}`);
      }
    }
    assert.deepEqual(failures, []);
  });

  it('ends with the DOM of a one-shot render for long tables among random blocks in random chunkings (seeded)', async () => {
    const { seed, random } = seeded(20261130);
    const failures: string[] = [];
    let chunked = 0;
    for (let doc = 0; doc < 4; doc++) {
      const text = randomLongTable(random);
      // The chunkings that stream it in many deliveries (so its rows go into chunks), not in one.
      for (const [name, chunks] of chunkings(text, random).slice(1, 3)) {
        const r = await streamAndCompare(page, chunks, { end: doc % 2 === 0, keepDuring: true });
        if (r.during.some((html) => html.includes('md-rows'))) chunked++;
        if (r.streamed !== r.oneShot) failures.push(`seed ${seed}, document ${doc}, ${name} chunking: ${firstDifference(text, r.streamed, r.oneShot)}`);
      }
    }
    assert.deepEqual(failures, []);
    assert.ok(chunked > 0, 'some table streamed in chunks');
  });

  it('ends with the DOM of a one-shot render for random markdown in random chunkings (seeded)', async function () {
    // Thousands of deliveries: on a machine busy with other work this takes longer than the suite's usual bound.
    this.timeout(300_000);
    const { seed, random } = seeded(20261130);
    const streams: Stream[] = [];
    for (let doc = 0; doc < 12; doc++) {
      const text = randomMarkdown(random);
      for (const [name, chunks] of chunkings(text, random))
        streams.push({ name: `document ${doc}, ${name} chunking: ${JSON.stringify(text)}`, chunks, blockEnd: doc % 4 !== 3 });
    }
    const failures = await allDivergent(page, streams, 20);
    assert.equal(failures.length, 0, report(failures, streams.length, `seed ${seed}`));
  });

  it('ends with the DOM of a one-shot render when ambiguous block starts are cut at every position (seeded)', async function () {
    // Thousands of deliveries: on a machine busy with other work this takes longer than the suite's usual bound.
    this.timeout(300_000);
    const { seed, random } = seeded(20261201);
    const streams: Stream[] = [];
    for (let doc = 0; doc < 30; doc++) {
      const text = randomBlockStarts(random);
      const name = `document ${doc} ${JSON.stringify(text)}`;
      const blockEnd = doc % 2 === 0;
      streams.push({ name: `${name}, per character`, chunks: text.split(''), blockEnd });
      streams.push({ name: `${name}, after each marker`, chunks: afterMarkers(text), blockEnd });
      for (const chunks of everySplit(text)) streams.push({ name: `${name}, cut at ${chunks[0]!.length}`, chunks, blockEnd });
    }
    const failures = await allDivergent(page, streams);
    assert.equal(failures.length, 0, report(failures, streams.length, `seed ${seed}`));
  });
});

/** A long document's start, and both renders around where they first differ (a long DOM in full says nothing). */
function firstDifference(text: string, streamed: string, oneShot: string): string {
  let at = 0;
  while (streamed[at] === oneShot[at]) at++;
  const around = (html: string) => html.slice(Math.max(0, at - 200), at + 300);
  return `${JSON.stringify(text.slice(0, 200))}…\n--- streamed at ${at}\n${around(streamed)}\n--- one-shot\n${around(oneShot)}`;
}
