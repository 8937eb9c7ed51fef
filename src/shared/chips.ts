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
 * format back to show the chips instead of the raw blocks. A chip's `text` is exactly what is sent: any clipping
 * happened before, and says so inside the text.
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

/** The prompt Pi gets: each chip as a context block, then the user's text. */
export function expandChips(chips: readonly CodeChip[], text: string): string {
  if (!chips.length) return text;
  // What the model reads, not the user: the same in every display language. l10n-ignore
  const blocks = chips.map((c) => `<context ref="${chipRef(c).replaceAll('"', '%22')}">\n${c.text.replace(/\n?$/, '\n')}</context>`);
  return `${blocks.join('\n\n')}\n\n${text}`;
}

const BLOCK = /^<context ref="([^"\n]*)">\n[\s\S]*?\n<\/context>(?:\n\n|$)/;

/** Reads chips back from a prompt written by `expandChips`: their refs, and the user's own text. */
export function splitChips(prompt: string): { refs: string[]; text: string } {
  const refs: string[] = [];
  let rest = prompt;
  for (let m = BLOCK.exec(rest); m; m = BLOCK.exec(rest)) {
    refs.push(m[1]!.replaceAll('%22', '"'));
    rest = rest.slice(m[0].length);
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
