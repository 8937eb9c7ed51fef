/** Every CommonMark spec example streamed through the real bundle in several chunkings ends as a one-shot render does. */

import * as assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { useChatPage } from './harness.ts';
import { seeded } from './randomMarkdown.ts';
import { allDivergent, report, type Stream } from './streamCompare.ts';

/** One example of the spec, as the `commonmark-spec` package lists them. */
interface SpecExample {
  readonly markdown: string;
  readonly number: number;
  readonly section: string;
}

/** The spec writes a tab as `→` in its examples. */
const EXAMPLES = (createRequire(import.meta.url)('commonmark-spec') as { tests: SpecExample[] }).tests.map((t) => ({
  ...t,
  markdown: t.markdown.replace(/→/g, '\t'),
}));

/**
 * Cases found by streaming the spec (issue 19), deliveries in order: a block start that could still have
 * been a list item, a rule or a setext underline, decided by the next delivery; a definition that a later
 * line gives its title.
 */
const EXTRA: readonly (readonly string[])[] = [
  ['+', '++\n'],
  ['-', '-\n**\n__\n'],
  [' *', '-*\n'],
  ['_ _ _ _ a\n\na------\n\n', '-', '--a---\n'],
  ['<', 'DIV CLASS="foo">\n\n*', 'Markdown*\n\n</DIV>\n'],
  ['- a\n', '*', '*b**\n'],
  ['- a\n-', '--\n'],
  ['Foo\n', '-', '-\n'],
  ['1', '.', ' a\n'],
  ['[foo]: /url\n', "'the title'\n\n[foo]\n"],
  ['[foo]:\n', '/url\n', "'ti\ntle'\n\n[foo]\n"],
];

/** The chunkings of a text: one character at a time, word by word (a word with the white space before it), seeded random pieces of 1–6. */
function chunkings(text: string, random: () => number): [string, string[]][] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; ) {
    const n = 1 + Math.floor(random() * 6);
    pieces.push(text.slice(i, i + n));
    i += n;
  }
  return [
    ['per character', text.split('')],
    ['per word', text.match(/\s*\S+|\s+$/g) ?? [text]],
    ['random', pieces],
  ];
}

describe('CommonMark spec examples streamed (headless Chromium)', function () {
  this.timeout(300_000);
  let page: Page;
  useChatPage((p) => {
    page = p;
  });

  it('ends every spec example, and each case found by streaming it, as a one-shot render in every chunking', async () => {
    const { seed, random } = seeded(20261201);
    const streams: Stream[] = EXTRA.map((chunks, i) => ({ name: `extra ${i + 1} ${JSON.stringify(chunks)}`, chunks, blockEnd: i % 2 === 0 }));
    for (const ex of EXAMPLES) {
      for (const [name, chunks] of chunkings(ex.markdown, random))
        streams.push({ name: `example ${ex.number} (${ex.section}), ${name}`, chunks, blockEnd: ex.number % 2 === 0 });
    }
    const failures = await allDivergent(page, streams);
    const examples = new Set(failures.map((f) => f.name.replace(/,[^,]*$/, '')));
    assert.equal(failures.length, 0, report(failures, streams.length, `${examples.size} examples, seed ${seed}`));
  });
});
