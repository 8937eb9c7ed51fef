/** Seeded random markdown and random chunkings of it, for the streaming renderer's convergence test and the bench. */

/** mulberry32: a small seeded generator, so a failure can be replayed from its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;

/** A generator seeded from `MD_SEED` when set (to replay a failure), else from `fallback`; and its seed, for the report. */
export function seeded(fallback: number): { seed: number; random: Random } {
  const seed = Number(process.env.MD_SEED ?? fallback);
  return { seed, random: rng(seed) };
}

const int = (r: Random, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Random, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

const WORDS = [
  'the',
  'panel',
  'streams',
  'deltas',
  'list',
  'table',
  'code',
  'file',
  'config',
  'port',
  'server',
  'a',
  'to',
  'and',
  'of',
  'is',
  'x*y',
  '2*3',
  'snake_case',
  '5 * 3',
  'é',
  '1.',
  '#',
  '|',
  '-',
];

function inline(r: Random, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    const w = pick(r, WORDS);
    const roll = r();
    if (roll < 0.06) out.push(`**${w}**`);
    else if (roll < 0.11) out.push(`*${w} ${pick(r, WORDS)}*`);
    else if (roll < 0.15) out.push(`\`${w}\``);
    else if (roll < 0.18) out.push(`[${w}](https://example.com/${i})`);
    else if (roll < 0.21) out.push(`[${w}][r${int(r, 1, 3)}]`);
    else if (roll < 0.23) out.push(`[${w}]`);
    else if (roll < 0.25) out.push(`<span>${w}</span>`);
    else if (roll < 0.27) out.push(`https://example.org/${w}`);
    else if (roll < 0.29) out.push(`~~${w}~~`);
    else if (roll < 0.3) out.push(`[![${w}](https://ci.example/b.svg)](https://ci.example/${i})`);
    else if (roll < 0.32) out.push('_open');
    else if (roll < 0.34) out.push(`\\*${w}`);
    else out.push(w);
  }
  return out.join(' ');
}

const PLAIN = WORDS.filter((w) => /^[a-zé]+$/.test(w));

/** A long paragraph of words and closed markup only: committed in pieces, its finished lines put in line groups. */
export function longParagraph(r: Random): string {
  const out: string[] = [];
  for (let i = int(r, 1500, 2500); i > 0; i--) {
    const w = pick(r, PLAIN);
    const roll = r();
    if (roll < 0.05) out.push(`**${w}**`);
    else if (roll < 0.1) out.push(`\`${w}\``);
    else if (roll < 0.13) out.push(`[${w}](https://example.com/${i})`);
    else if (roll < 0.16) out.push(`*${w} ${pick(r, PLAIN)}*`);
    else out.push(w);
  }
  return out.join(' ');
}

function paragraph(r: Random): string {
  const lines = int(r, 1, 3);
  return Array.from({ length: lines }, () => inline(r, int(r, 2, 14)) + (r() < 0.1 ? '  ' : '')).join('\n');
}

function list(r: Random, depth = 0): string {
  const ordered = r() < 0.35;
  const loose = r() < 0.3;
  const n = int(r, 1, 6);
  const indent = '   '.repeat(depth);
  const items: string[] = [];
  for (let i = 0; i < n; i++) {
    const marker = ordered ? `${i + (r() < 0.8 ? 1 : 3)}.` : pick(r, ['-', '-', '*']);
    let item = `${indent}${marker} ${inline(r, int(r, 1, 6))}`;
    if (r() < 0.15) item += `\n${indent}   ${inline(r, 3)}`;
    if (depth < 2 && r() < 0.2) item += `\n${list(r, depth + 1)}`;
    if (r() < 0.08) item += `\n\n${indent}   ${inline(r, 3)}`;
    items.push(item);
  }
  return items.join(loose ? '\n\n' : '\n');
}

function table(r: Random, rows = int(r, 0, 6)): string {
  const cols = int(r, 1, 4);
  const row = () => `| ${Array.from({ length: cols }, () => inline(r, int(r, 1, 3))).join(' | ')} |`;
  const lines = [row(), `|${Array.from({ length: cols }, () => pick(r, [' --- ', ':---', '---:', ':-:'])).join('|')}|`];
  for (let i = rows; i > 0; i--) lines.push(r() < 0.1 ? inline(r, 2) : row());
  return lines.join('\n');
}

/** A table long enough to stream in chunks (continuation tables, see TableBlock). */
export function longTable(r: Random): string {
  return table(r, int(r, 70, 220));
}

function fence(r: Random): string {
  const mark = pick(r, ['```', '```', '~~~', '````']);
  const lang = pick(r, ['ts', 'js', 'python', '', 'foo\\+bar', 'json']);
  const body = Array.from({ length: int(r, 0, 6) }, () =>
    pick(r, ['const a = [1, 2];', '  return x * 2;', '# not a heading', '```', '[r1]: /not-a-def', 'def f(): pass']),
  ).join('\n');
  return `${mark}${lang}\n${body}${body ? '\n' : ''}${mark}`;
}

/**
 * A block whose kind its first characters leave open: a lone or repeated `-`, `+`, `*` or `_` with or
 * without a space after it (a list item, a rule, emphasis or plain text), a rule or a setext underline,
 * emphasis opening a paragraph, what would start an HTML block (raw HTML is off: it is text), an indented
 * or fenced code start, or an ordered list's number that may become text.
 */
export function blockStart(r: Random): string {
  const mark = pick(r, ['-', '+', '*', '_']);
  const roll = r();
  if (roll < 0.2) {
    // The marker alone, repeated, or glued to text: "-", "--", "+++", "*x", "__init__".
    const run = mark.repeat(int(r, 1, 4));
    return pick(r, [run, `${run}${pick(r, WORDS)}`, `${run}${pick(r, WORDS)}${run}`, `${run} ${inline(r, int(r, 0, 3))}`.trimEnd(), `${run}\n${mark}`]);
  }
  if (roll < 0.3) return pick(r, ['***', '---', '___', '* * *', '- - -', '_ _ _', '-----', ' **  * ** * ** * **', '+++', '--a---', '_ _ _ _ a']);
  if (roll < 0.4) return `${inline(r, int(r, 1, 3))}\n${pick(r, ['===', '---', '-', '--', '= =', '***', '- a', '* b'])}`;
  if (roll < 0.55) {
    const em = pick(r, ['*', '**', '_', '__', '***']);
    return `${em}${pick(r, PLAIN)}${r() < 0.8 ? em : ''} ${inline(r, int(r, 0, 4))}`.trimEnd();
  }
  if (roll < 0.65)
    return pick(r, ['<div>', '<DIV CLASS="foo">', '</div>', '<!-- c -->', '<?php x ?>', '<![CDATA[x]]>', '<pre>', '<a href="x">']) + `\n${inline(r, 2)}`;
  if (roll < 0.75) return pick(r, ['    code', '\tcode', '  - x', '```', '```ts\nx', '~~~\n~~', '``x``', '`` ` ``', '    - y']);
  if (roll < 0.85) return `${pick(r, ['1', '1.', '1)', '2.', '10.', '1.5', '0.'])}${pick(r, ['', ' ', ' a', 'a'])}`;
  // A list whose next item may turn out to be a rule or a line of the item before it.
  return `${mark} ${pick(r, PLAIN)}\n${pick(r, [mark, `${mark}${mark}`, `${mark}${mark}${mark}`, `${mark} ${mark} ${mark}`, `${mark}x`, `${mark} y`])}`;
}

/** A short document of ambiguous block starts, each ended by a blank line or by the next line. */
export function randomBlockStarts(r: Random): string {
  return Array.from({ length: int(r, 1, 4) }, () => blockStart(r))
    .map((b, i) => (i === 0 ? b : (r() < 0.6 ? '\n\n' : '\n') + b))
    .join('');
}

function block(r: Random, depth = 0): string {
  if (r() < 0.12) return blockStart(r);
  const roll = r();
  if (roll < 0.04) return longParagraph(r);
  if (roll < 0.05) return longTable(r);
  // Long enough to be rendered in pieces.
  if (roll < 0.07) return inline(r, int(r, 500, 900));
  if (roll < 0.28) return paragraph(r);
  if (roll < 0.45) return list(r);
  if (roll < 0.55) return table(r);
  if (roll < 0.65) return fence(r);
  if (roll < 0.72 && depth < 2) {
    // A block quote of a few blocks (streamed inside it), its marker written a few ways.
    const marker = pick(r, ['> ', '> ', '>', ' > ']);
    const inner = Array.from({ length: int(r, 1, 4) }, () => block(r, depth + 1)).join('\n\n');
    const lines = inner.split('\n').map((l) => `${marker}${l}`);
    // Sometimes a lazy continuation line: the marker left off the last line.
    if (lines.length > 1 && r() < 0.15) lines[lines.length - 1] = lines[lines.length - 1]!.replace(/^ ?> ?/, '');
    return lines.join('\n');
  }
  if (roll < 0.8) return `${'#'.repeat(int(r, 1, 4))} ${inline(r, 3)}`;
  if (roll < 0.84) return `${inline(r, 3)}\n${pick(r, ['===', '---', '-'])}`;
  if (roll < 0.9) return `[r${int(r, 1, 3)}]: https://example.com/ref${int(r, 1, 9)}${r() < 0.3 ? ' "a title"' : ''}`;
  if (roll < 0.94) return pick(r, ['<div>\n*html* block\n</div>', '<!-- comment -->', '<details><summary>x</summary>']);
  if (roll < 0.97) return pick(r, ['---', '***', '* * *']);
  return `    indented code ${inline(r, 2)}`;
}

/** A document of random blocks, sometimes with `\r\n` or lone `\r` line endings. */
export function randomMarkdown(r: Random): string {
  const blocks = Array.from({ length: int(r, 3, 10) }, () => block(r));
  let text = blocks.map((b, i) => (i === 0 ? b : (r() < 0.85 ? '\n\n' : '\n') + b)).join('');
  if (r() < 0.3) text += '\n';
  const eol = r();
  if (eol < 0.1) text = text.replace(/\n/g, '\r\n');
  else if (eol < 0.15) text = text.replace(/\n/g, '\r');
  return text;
}

/** A long paragraph between two random blocks. */
export function randomLongParagraph(r: Random): string {
  return `${block(r)}\n\n${longParagraph(r)}\n\n${block(r)}`;
}

/** A long table between two random blocks, or ending the text. */
export function randomLongTable(r: Random): string {
  const after = r() < 0.3 ? '' : `${r() < 0.8 ? '\n\n' : '\n'}${block(r)}`;
  return `${block(r)}\n\n${longTable(r)}${after}`;
}

/** Named chunkings of `text`: one delta, small and large random pieces, and one character at a time near the end. */
export function chunkings(text: string, r: Random): [string, string[]][] {
  // Small pieces for short texts; about 150 deliveries for long ones, so the test stays quick.
  const scale = Math.max(1, Math.round(text.length / 1200));
  const random = (max: number): string[] => {
    const out: string[] = [];
    for (let i = 0; i < text.length; ) {
      const n = int(r, 1, max * scale);
      out.push(text.slice(i, i + n));
      i += n;
    }
    return out;
  };
  const tailSingles = (): string[] => {
    const cut = Math.max(0, text.length - 40);
    return [text.slice(0, cut), ...text.slice(cut).split('')].filter((c) => c !== '');
  };
  return [
    ['one delta', [text]],
    ['1–8 characters', random(8)],
    ['1–60 characters', random(60)],
    ['single characters at the end', tailSingles()],
    ['cut after each marker character', afterMarkers(text)],
  ];
}

/**
 * `text` cut right after each character of what starts a line up to its first other character (`-`, `+`,
 * `*`, `_`, `#`, `>`, `=`, `|`, a fence's backticks, `<`, a list number…), so a delivery ends on each.
 */
export function afterMarkers(text: string): string[] {
  const cuts: number[] = [];
  for (const m of text.matchAll(/^[ \t\d.)\-+*_#>=|`~<]+/gm)) {
    for (let i = 0; i < m[0].length; i++) if (!/[ \t]/.test(m[0][i]!)) cuts.push(m.index + i + 1);
  }
  return [0, ...cuts, text.length]
    .slice(1)
    .map((end, i, all) => text.slice(i === 0 ? 0 : all[i - 1], end))
    .filter((c) => c !== '');
}

/** `text` in two deliveries, cut at each position in turn: one chunking per position. */
export function everySplit(text: string): string[][] {
  return Array.from({ length: text.length - 1 }, (_, i) => [text.slice(0, i + 1), text.slice(i + 1)]);
}
