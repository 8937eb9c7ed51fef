/**
 * Review benchmark (not a test): a run that touched 50 files with 40 changes each (2,000 hunks). Times what the
 * extension host does for it on its own thread: finding each file's hunks (`diff`) and preparing its decorations,
 * file by file as the product does (it reads the next file between them, so the longest file is the host's longest
 * stall; target ≤ 50 ms, all within 1 s). Then typing in a file with 200 pending changes: the cost of moving them
 * through one keystroke's edit vs the same file with none (target ≤ 1.2× of a keystroke's whole cost; VS Code's own
 * paint is not in this figure, so this is the model's share only).
 *
 * Usage: node bench/reviewBench.ts [--files 50 --hunks 40 --lines 1000 --keys 2000]
 */

import { performance } from 'node:perf_hooks';
import { marksOf } from '../src/shared/review/decorations.ts';
import { applyEdits, computeHunks, type Hunk } from '../src/shared/review/hunks.ts';
import { numberArg, quantile } from './stats.ts';

const FILES = numberArg('files', 50);
const HUNKS = numberArg('hunks', 40);
const LINES = numberArg('lines', 1000);
const KEYS = numberArg('keys', 2000);

function fileText(seed: number, changed: boolean, hunks = HUNKS): string {
  const out: string[] = [];
  const every = Math.floor(LINES / hunks);
  for (let i = 0; i < LINES; i++) {
    const touched = changed && i % every === every >> 1;
    out.push(touched ? `  const value${i} = compute(${seed}, ${i}) + 1; // changed\n` : `  const value${i} = compute(${seed}, ${i});\n`);
  }
  return out.join('');
}

let n = 0;
const id = () => `c${++n}`;
const perFile: number[] = [];
let total = 0;
const started = performance.now();
for (let f = 0; f < FILES; f++) {
  const before = fileText(f, false);
  const after = fileText(f, true);
  const t0 = performance.now();
  const hunks = computeHunks(before, after, id);
  marksOf(hunks, LINES);
  const ms = performance.now() - t0;
  perFile.push(ms);
  total += hunks.length;
}
const wall = performance.now() - started;
console.log(`review: ${FILES} files, ${total} hunks: compute + decorations ${wall.toFixed(0)} ms in all (target ≤ 1000 ms)`);
console.log(`review: host's longest stall (one file) ${Math.max(...perFile).toFixed(1)} ms, p50 ${quantile(perFile, 0.5).toFixed(1)} ms (target ≤ 50 ms)`);

/** Microseconds per keystroke of moving `hunks` through a one-character insert at the top of the file. */
function keystroke(hunks: Hunk[]): number {
  let now = hunks;
  const t0 = performance.now();
  for (let k = 0; k < KEYS; k++) now = applyEdits(now, [{ start: { line: 0, character: k % 10 }, end: { line: 0, character: k % 10 }, text: 'x' }]).hunks;
  return ((performance.now() - t0) * 1000) / KEYS;
}
const busy = computeHunks(fileText(0, false, 200), fileText(0, true, 200), id);
keystroke(busy);
const withMany = keystroke(busy);
const withNone = keystroke([]);
console.log(
  `review: typing with ${busy.length} pending changes: ${withMany.toFixed(1)} µs per keystroke for the model vs ${withNone.toFixed(1)} µs with none (a frame is 16,000 µs; target: the whole keystroke ≤ 1.2×)`,
);
