/** Lines of the streamed text: where they start and end, which are finished, and where token lists start their top-level blocks. */

import type { Token } from '../markdown.ts';

/** Index just past the end of line `line` (0-based lines) in `text`. */
export function lineOffset(text: string, line: number): number {
  let at = 0;
  for (let n = 0; n < line; n++) {
    const i = text.indexOf('\n', at);
    if (i === -1) return text.length;
    at = i + 1;
  }
  return at;
}

/** Whether line `line` of `text` ends with a newline (a finished line). */
export function lineDone(text: string, line: number): boolean {
  return text.indexOf('\n', lineOffset(text, line)) !== -1;
}

/** Where the finished text of `src` ends: just past its last newline, or at its end once it is final. */
export function finishedEnd(src: string, final: boolean): number {
  return final ? src.length : src.lastIndexOf('\n') + 1;
}

/** A finished line: where it starts, where it stops (its newline, or the end of the finished text) and its text. */
export interface Line {
  readonly at: number;
  readonly stop: number;
  readonly text: string;
}

/** The lines of `src` from `from` (a line start) up to `done` (see finishedEnd), in order. */
export function* finishedLines(src: string, from: number, done: number): Generator<Line> {
  for (let at = from; at < done; ) {
    const nl = src.indexOf('\n', at);
    const stop = nl === -1 || nl >= done ? done : nl;
    yield { at, stop, text: src.slice(at, stop) };
    at = stop + 1;
  }
}

/** Top-level blocks of a token list: index of the opening token and its first line. */
export function topLevelStarts(tokens: readonly Token[]): { index: number; line: number }[] {
  const out: { index: number; line: number }[] = [];
  tokens.forEach((t, index) => {
    if (t.level === 0 && t.nesting !== -1 && t.map) out.push({ index, line: t.map[0] });
  });
  return out;
}
