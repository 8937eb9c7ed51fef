/** What the editor draws for a file's pending changes: the added lines' ranges and, per change, a short line for the removed text and its hover. */

import { t } from '../l10n.ts';
import { lineCount, type Hunk } from './hunks.ts';

/** Longest preview of a removed line shown after the changed line. */
const PREVIEW_CHARS = 80;
/** Lines of a change shown in its hover. */
const HOVER_LINES = 60;

/** One change's marks: its added lines (`first`..`last`, none for a deletion) and, when it removed lines, where and what to say. */
export interface ChangeMarks {
  readonly hunk: Hunk;
  readonly added?: { readonly first: number; readonly last: number };
  readonly removed?: { readonly line: number; readonly preview: string };
  /** The change as a unified diff (`- old`, `+ new`), for its hover. */
  readonly diff: string;
}

/** The marks of `hunks` in a document of `lines` lines. */
export function marksOf(hunks: readonly Hunk[], lines: number): ChangeMarks[] {
  const last = Math.max(0, lines - 1);
  return hunks.map((h) => {
    const count = lineCount(h.newText);
    return {
      hunk: h,
      ...(count ? { added: { first: h.start, last: h.start + count - 1 } } : {}),
      ...(h.oldText ? { removed: { line: Math.min(h.start, last), preview: previewOf(h.oldText) } } : {}),
      diff: diffOf(h),
    };
  });
}

/** The removed lines in short: the first one and how many more. */
function previewOf(oldText: string): string {
  const lines = oldText.split('\n').slice(0, lineCount(oldText));
  const first = (lines[0] ?? '').trim();
  const shown = first.length > PREVIEW_CHARS ? `${first.slice(0, PREVIEW_CHARS)}…` : first;
  return lines.length > 1 ? t('− {0} (+{1} more removed)', shown, lines.length - 1) : `− ${shown}`;
}

function diffOf(h: Hunk): string {
  const old = h.oldText.split('\n').slice(0, lineCount(h.oldText));
  const now = h.newText.split('\n').slice(0, lineCount(h.newText));
  return [...old.map((l) => `- ${l}`), ...now.map((l) => `+ ${l}`)].slice(0, HOVER_LINES).join('\n');
}
