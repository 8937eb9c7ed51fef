/** Pending changes of one file as line ranges: found between a file's text before a run and now (`diff`), moved by later edits. */

import { diffLines } from 'diff';

/** One change a run made to a file, not yet kept or undone. */
export interface Hunk {
  readonly id: string;
  /** First line (0-based) of its new text in the file now; for a pure deletion, the line its old text stood before. */
  readonly start: number;
  /** Its lines now, each with its line break (the last one may lack it at the end of the file); '' for a deletion. */
  readonly newText: string;
  /** Its lines before the run; '' when the run only added lines. */
  readonly oldText: string;
}

/** A position in a text: 0-based line and character. */
export interface TextPos {
  readonly line: number;
  readonly character: number;
}

/** One edit to a document as VS Code reports it: the range it replaced (positions before the edit) and its text. */
export interface LineEdit {
  readonly start: TextPos;
  readonly end: TextPos;
  readonly text: string;
}

/** The lines of `text`, each with its line break (the last may have none); none for ''. */
export function linesOf(text: string): string[] {
  const lines = text.split(/(?<=\n)/);
  return lines.length === 1 && lines[0] === '' ? [] : lines;
}

/** How many lines `text` spans (a last line without a break counts). */
export function lineCount(text: string): number {
  if (text === '') return 0;
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n : n + 1;
}

/** Where a hunk's new text ends in the file now (exclusive). */
function hunkEnd(h: Hunk): TextPos {
  if (h.newText === '' || h.newText.endsWith('\n')) return { line: h.start + lineCount(h.newText), character: 0 };
  const last = h.newText.slice(h.newText.lastIndexOf('\n') + 1);
  return { line: h.start + lineCount(h.newText) - 1, character: last.length };
}

/** The edit that undoes `h`: its new text replaced by its old, nothing else touched. */
export function undoEdit(h: Hunk): LineEdit {
  return { start: { line: h.start, character: 0 }, end: hunkEnd(h), text: h.oldText };
}

/** A hunk as the file before the run had it: where its old text started there. */
interface FoundHunk extends Hunk {
  readonly oldStart: number;
}

/** The hunks that turn `before` into `after`, in file order; `id` names each. */
export function computeHunks(before: string, after: string, id: () => string): Hunk[] {
  return found(before, after, id).map(({ oldStart: _, ...h }) => h);
}

function found(before: string, after: string, id: () => string): FoundHunk[] {
  const hunks: FoundHunk[] = [];
  let newLine = 0;
  let oldLine = 0;
  let open: { start: number; oldStart: number; newText: string; oldText: string } | undefined;
  const close = () => {
    if (open) hunks.push({ id: id(), ...open });
    open = undefined;
  };
  for (const part of diffLines(before, after)) {
    const n = lineCount(part.value);
    if (!part.added && !part.removed) {
      close();
      newLine += n;
      oldLine += n;
      continue;
    }
    open ??= { start: newLine, oldStart: oldLine, newText: '', oldText: '' };
    if (part.added) {
      open.newText += part.value;
      newLine += n;
    } else {
      open.oldText += part.value;
      oldLine += n;
    }
  }
  close();
  return hunks;
}

function before(a: TextPos, b: TextPos): boolean {
  return a.line < b.line || (a.line === b.line && a.character < b.character);
}

/**
 * Moves `hunks` through one edit: those before it shift by the lines it added or removed, those after it stay,
 * and one it touched is the user's now (`taken`): it is no longer pending, so Undo never reverts their typing.
 */
export function applyEdit(hunks: readonly Hunk[], edit: LineEdit): { hunks: Hunk[]; taken: Hunk[] } {
  const breaks = lineCount(edit.text + 'x') - 1;
  const delta = breaks - (edit.end.line - edit.start.line);
  // What ends up in front of the edit's end on its line: the edit's last piece, after the start line's head when it has no break.
  const lastPiece = edit.text.slice(edit.text.lastIndexOf('\n') + 1);
  const cleanBreak = lastPiece === '' && (breaks > 0 || edit.start.character === 0);
  const kept: Hunk[] = [];
  const taken: Hunk[] = [];
  for (const h of hunks) {
    const count = lineCount(h.newText);
    const first: TextPos = { line: h.start, character: 0 };
    const endsAtItsStart = edit.end.line === h.start && edit.end.character === 0;
    // Text that lands in front of the hunk's first line changes that line unless it ends with a line break.
    if (edit.end.line < h.start || (endsAtItsStart && (count === 0 || cleanBreak))) {
      kept.push(delta === 0 ? h : { ...h, start: h.start + delta });
      continue;
    }
    const end = hunkEnd(h);
    const closedByBreak = count === 0 || h.newText.endsWith('\n');
    if (closedByBreak && !before(edit.start, end) && !before(edit.start, first)) {
      kept.push(h);
      continue;
    }
    taken.push(h);
  }
  return { hunks: kept, taken };
}

/** `applyEdit` for each edit of one change event, in order. */
export function applyEdits(hunks: readonly Hunk[], edits: readonly LineEdit[]): { hunks: Hunk[]; taken: Hunk[] } {
  let now: Hunk[] = [...hunks];
  const taken: Hunk[] = [];
  for (const e of edits) {
    const r = applyEdit(now, e);
    now = r.hunks;
    taken.push(...r.taken);
  }
  return { hunks: now, taken };
}

/** Whether the document's text at `h` is still the hunk's new text (else it is not safe to undo there). */
export function stillThere(h: Hunk, lines: readonly string[]): boolean {
  const count = lineCount(h.newText);
  if (h.start + count > lines.length + (count === 0 ? 1 : 0)) return false;
  return lines.slice(h.start, h.start + count).join('') === h.newText;
}

/**
 * A new run's changes on top of pending ones: `older` sit in `beforeRun` (the file when the run started), the
 * run turned it into `afterRun`. Older hunks the run did not touch move with its line shifts; where the run
 * changed lines of (or next to) an older hunk, the two become one hunk whose old text is the file before both.
 */
export function stackRun(older: readonly Hunk[], beforeRun: string, afterRun: string, id: () => string): Hunk[] {
  const fresh = found(beforeRun, afterRun, () => '');
  const oldLines = linesOf(beforeRun);
  const newLines = linesOf(afterRun);
  type Item = { kind: 'older'; h: Hunk; s: number; e: number } | { kind: 'fresh'; h: FoundHunk; s: number; e: number };
  const items: Item[] = [
    ...older.map((h): Item => ({ kind: 'older', h, s: h.start, e: h.start + lineCount(h.newText) })),
    ...fresh.map((h): Item => ({ kind: 'fresh', h, s: h.oldStart, e: h.oldStart + lineCount(h.oldText) })),
  ].sort((a, b) => a.s - b.s || a.e - b.e);
  // Groups of ranges (in `beforeRun`) that share lines, or a point where both only insert or delete (which goes
  // first is not known there): each group with a fresh hunk becomes one hunk. Changes on neighbouring lines stay apart.
  const groups: Item[][] = [];
  let groupEnd = -1;
  for (const it of items) {
    const last = groups.at(-1);
    const sharesPoint = it.s === it.e && it.s === groupEnd && last?.some((o) => o.s === o.e && o.s === groupEnd);
    if (last && (it.s < groupEnd || sharesPoint)) {
      last.push(it);
      groupEnd = Math.max(groupEnd, it.e);
    } else {
      groups.push([it]);
      groupEnd = it.e;
    }
  }
  const out: Hunk[] = [];
  let shift = 0;
  for (const g of groups) {
    const freshOnes = g.filter((it) => it.kind === 'fresh').map((it) => it.h as FoundHunk);
    const olderOnes = g.filter((it) => it.kind === 'older').map((it) => it.h);
    const groupDelta = freshOnes.reduce((d, f) => d + lineCount(f.newText) - lineCount(f.oldText), 0);
    if (freshOnes.length === 0) {
      for (const h of olderOnes) out.push({ ...h, start: h.start + shift });
      continue;
    }
    const s = Math.min(...g.map((it) => it.s));
    const e = Math.max(...g.map((it) => it.e));
    let oldText = '';
    for (let i = s; i < e; ) {
      const o = olderOnes.find((h) => h.start === i && lineCount(h.newText) > 0);
      if (o) {
        oldText += o.oldText;
        i += lineCount(o.newText);
        continue;
      }
      for (const z of olderOnes) if (z.start === i && z.newText === '') oldText += z.oldText;
      oldText += oldLines[i] ?? '';
      i++;
    }
    // Deletions at the group's end (or of an empty group: a run's insertion where lines had been deleted).
    for (const z of olderOnes) if (z.start === e && z.newText === '') oldText += z.oldText;
    const start = s + shift;
    const newText = newLines.slice(start, e + shift + groupDelta).join('');
    shift += groupDelta;
    if (newText !== oldText) out.push({ id: id(), start, newText, oldText });
  }
  return out;
}
