/**
 * What the user hands Pi (a selection, a file, problems, a terminal's last command, the uncommitted changes, a
 * folder's tree) as chips, and the one documented text format they expand into at the start of the prompt:
 *
 *     <context ref="src/a.ts:12-20">
 *     …the selected text…
 *     </context>
 *
 *     the user's own words
 *
 * `ref` is `path:start-end` for a selection, `path` for a file, `problems:path` for diagnostics (`problems:path:line`
 * for one problem), `terminal:NAME`, `changes` or `changes:staged`, `folder:path`. The user row reads the same
 * format back to show the chips instead of the raw blocks. A chip's `text` is exactly what is sent (any clipping
 * happened before, and says so inside the text) but for one escape: `</context` in any case gets a backslash,
 * `<\/context` (one already escaped gets one more), so no file, terminal or diff can end its block and have the
 * rest read as the user's words, by Pi or by the user row. In `ref`, `%`, `"`, `<`, `>` and control characters are
 * percent-encoded (a path may hold any of them).
 *
 * Prompts written before the escape read back the same way where that is unambiguous; where a chip's text closed
 * its block early, everything up to the last closing line counts as chips, so what follows it alone shows as typed
 * (typed text that itself holds a closing line then shows from after it).
 */
import { t } from './l10n.ts';

export type ChipKind = 'selection' | 'file' | 'problems' | 'terminal' | 'changes' | 'folder';

const KINDS: readonly ChipKind[] = ['selection', 'file', 'problems', 'terminal', 'changes', 'folder'];

export interface CodeChip {
  readonly kind: ChipKind;
  /**
   * What the chip points at: a workspace-relative path ('/'-separated) for selection, file, problems and folder;
   * the terminal's name; `staged` or '' for changes.
   */
  readonly path: string;
  /** 1-based, inclusive (selections; a single problem's line). */
  readonly startLine?: number;
  readonly endLine?: number;
  readonly text: string;
  /** One line saying what the chip holds (the terminal's command and exit code, the changed files' count). */
  readonly detail?: string;
}

/** What the chip shows and the `ref` it expands to. */
export function chipRef(c: CodeChip): string {
  switch (c.kind) {
    case 'problems':
      return c.startLine !== undefined ? `problems:${c.path}:${c.startLine}` : `problems:${c.path}`;
    case 'selection':
      return c.startLine !== undefined ? `${c.path}:${c.startLine}-${c.endLine ?? c.startLine}` : c.path;
    case 'file':
      return c.path;
    case 'terminal':
      return `terminal:${c.path}`;
    case 'changes':
      return c.path ? `changes:${c.path}` : 'changes';
    case 'folder':
      return `folder:${c.path || '.'}`;
    default: {
      const never: never = c.kind;
      return String(never);
    }
  }
}

/** A chip's size as the user reads it: characters (KB past 1000) and lines. */
export function chipSize(c: CodeChip): string {
  const n = c.text.length;
  const chars = n < 1000 ? t('{0} chars', n) : t('{0}K chars', (n / 1000).toFixed(n < 10_000 ? 1 : 0));
  const lines = c.text ? c.text.replace(/\n$/, '').split('\n').length : 0;
  return lines === 1 ? t('{0}, 1 line', chars) : t('{0}, {1} lines', chars, lines);
}

/** `</context` (any case) behind any backslashes: one more keeps it from closing a block, and keeps escapes apart. */
const CLOSING_TAG = /<(\\*)\/(context)/gi;

/** What may not appear raw inside `ref="…"`: its own quote, line breaks, tags, and `%` so the encoding reads back. */
const REF_SPECIAL = /[%"<>\u0000-\u001F\u007F]/g;
const REF_ENCODED = /%(2[25]|3[CEce]|[01][0-9A-Fa-f]|7[Ff])/g;

const encodeRef = (ref: string): string => ref.replace(REF_SPECIAL, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
const decodeRef = (ref: string): string => ref.replace(REF_ENCODED, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** The prompt Pi gets: each chip as a context block (its text escaped so it cannot close it), then the user's text. */
export function expandChips(chips: readonly CodeChip[], text: string): string {
  if (!chips.length) return text;
  // What the model reads, not the user: the same in every display language. l10n-ignore
  const blocks = chips.map((c) => `<context ref="${encodeRef(chipRef(c))}">\n${c.text.replace(CLOSING_TAG, '<\\$1/$2').replace(/\n?$/, '\n')}</context>`);
  return `${blocks.join('\n\n')}\n\n${text}`;
}

const BLOCK = /^<context ref="([^"\n]*)">\n[\s\S]*?\n<\/context>(?:\n\n|$)/;
/** A block's closing line as `expandChips` writes it. */
const CLOSER = /\n<\/context>(?:\n\n|$)/g;
const OPENER = /(?:^|\n\n)<context ref="([^"\n]*)">\n/g;

/** Reads chips back from a prompt written by `expandChips`: their refs, and the user's own text. */
export function splitChips(prompt: string): { refs: string[]; text: string } {
  const refs: string[] = [];
  let rest = prompt;
  for (let m = BLOCK.exec(rest); m; m = BLOCK.exec(rest)) {
    refs.push(decodeRef(m[1]!));
    rest = rest.slice(m[0].length);
  }
  if (!refs.length) return { refs, text: rest };
  // A closing line after the blocks: a prompt from before the escape, whose chip text closed its block early. What
  // it wrote after that is chip text, never the user's words, so the chips reach to the last closing line.
  let end = -1;
  for (const m of rest.matchAll(CLOSER)) end = m.index + m[0].length;
  if (end >= 0) {
    for (const m of rest.slice(0, end).matchAll(OPENER)) refs.push(decodeRef(m[1]!));
    rest = rest.slice(end);
  }
  return { refs, text: rest };
}

/** Checks a chip from the host (the webview trusts nothing unchecked). */
export function isCodeChip(v: unknown): v is CodeChip {
  if (typeof v !== 'object' || v === null) return false;
  const c = v as Record<string, unknown>;
  const line = (n: unknown) => n === undefined || (typeof n === 'number' && Number.isInteger(n) && n > 0);
  return (
    KINDS.includes(c.kind as ChipKind) &&
    typeof c.path === 'string' &&
    typeof c.text === 'string' &&
    (c.detail === undefined || typeof c.detail === 'string') &&
    line(c.startLine) &&
    line(c.endLine)
  );
}
