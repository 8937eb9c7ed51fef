/** Size bounds for what a chip carries: text clipped at a line boundary, with the clip said inside the text itself. */

/** A terminal command's output kept for a chip (its tail: errors come last). */
export const TERMINAL_MAX_CHARS = 20_000;
/** `@changes` as a whole: the file list (at most half of it while there are diffs to send) and the diffs' head. */
export const CHANGES_MAX_CHARS = 60_000;
/** A folder tree's entries. */
export const FOLDER_MAX_ENTRIES = 500;

const lineCount = (s: string): number => (s ? s.replace(/\n$/, '').split('\n').length : 0);

/** The first lines of `text` that fit in `max` characters, and a last line saying how many were left out. */
export function clipHead(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf('\n', max - 1);
  const kept = text.slice(0, cut > 0 ? cut + 1 : max);
  const dropped = lineCount(text) - lineCount(kept);
  // l10n-ignore: sent to Pi, not shown
  return `${kept.replace(/\n?$/, '\n')}[… clipped: ${dropped} more ${dropped === 1 ? 'line' : 'lines'} not included]\n`;
}

/** Room kept for the line `clipHead` adds, so the two together stay within a bound. */
const CLIP_LINE_ROOM = 64;

/** `clipHead` whose result, the line saying what it left out included, is at most `max` characters. */
export function clipHeadWithin(text: string, max: number): string {
  return text.length <= max ? text : clipHead(text, Math.max(0, max - CLIP_LINE_ROOM));
}

/** The last lines of `text` that fit in `max` characters, after a first line saying how many were left out. */
export function clipTail(text: string, max: number): string {
  if (text.length <= max) return text;
  const from = text.length - max;
  const nl = text.indexOf('\n', from);
  const kept = text.slice(nl >= 0 && nl < text.length - 1 ? nl + 1 : from);
  const dropped = lineCount(text) - lineCount(kept);
  return `[… clipped: ${dropped} earlier ${dropped === 1 ? 'line' : 'lines'} not included]\n${kept}`;
}
