/**
 * Lint check: fails when a file under `src/` is over 500 lines and its top JSDoc does not say why it is one
 * file, with a line that starts "One file because". A long file is fine when its parts share one thing (a
 * queue, a lifecycle, a DOM); the line makes whoever grows it past the limit decide that on purpose.
 *
 * Usage: `node scripts/fileSize.ts [folder] [limit]` (default `src`, 500); run by `npm run lint`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The most lines a file may have without a reason at its top. */
export const LINE_LIMIT = 500;

/** What a line of the top JSDoc starts with when it gives the reason. */
export const REASON_MARKER = 'One file because';

/** A file over the limit with no reason at its top. */
export interface Oversized {
  readonly path: string;
  readonly lines: number;
}

/** The lines an editor shows for `text`: a final newline starts no line of its own. */
export function lineCount(text: string): number {
  if (!text) return 0;
  const breaks = text.match(/\r\n|\r|\n/g)?.length ?? 0;
  return /[\r\n]$/.test(text) ? breaks : breaks + 1;
}

/**
 * The "One file because …" line of the JSDoc block the file opens with, if it has one with words after the
 * marker. Only the opening block counts: a reason further down is not where a reader looks first.
 */
export function oneFileReason(text: string): string | undefined {
  const top = text
    .replace(/^\uFEFF/, '')
    .replace(/^#![^\n]*\n/, '')
    .trimStart();
  if (!top.startsWith('/**')) return undefined;
  const end = top.indexOf('*/');
  if (end < 0) return undefined;
  for (const raw of top.slice(3, end).split(/\r?\n/)) {
    const line = raw.replace(/^\s*\*?\s*/, '').trim();
    if (line.startsWith(REASON_MARKER) && line.length > REASON_MARKER.length + 1) return line;
  }
  return undefined;
}

/** The files of `files` over `limit` lines without a reason at their top, in the order given. */
export function oversized(files: Iterable<{ readonly path: string; readonly text: string }>, limit = LINE_LIMIT): Oversized[] {
  const found: Oversized[] = [];
  for (const { path, text } of files) {
    const lines = lineCount(text);
    if (lines > limit && !oneFileReason(text)) found.push({ path, lines });
  }
  return found;
}

/** `oversized` over every `.ts` and `.js` file under `folder`, named relative to its parent, sorted by name. */
export function checkFolder(folder: string, limit = LINE_LIMIT): Oversized[] {
  const base = dirname(resolve(folder));
  const files: { path: string; text: string }[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (/\.(ts|js)$/.test(entry.name)) files.push({ path: relative(base, path).split(sep).join('/'), text: readFileSync(path, 'utf8') });
    }
  };
  visit(resolve(folder));
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return oversized(files, limit);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const folder = process.argv[2] ?? 'src';
  const limit = process.argv[3] ? Number(process.argv[3]) : LINE_LIMIT;
  const found = checkFolder(folder, limit);
  for (const f of found) console.error(`${f.path}: ${f.lines} lines, over ${limit}, and its top JSDoc has no '${REASON_MARKER} …' line`);
  if (found.length) {
    console.error(`${found.length} file${found.length === 1 ? '' : 's'} under ${folder}/ over ${limit} lines: split it, or say at its top why it is one file.`);
    process.exitCode = 1;
  } else console.log(`No file under ${folder}/ over ${limit} lines without a reason.`);
}
