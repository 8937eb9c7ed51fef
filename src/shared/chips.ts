/**
 * Code the user hands Pi (a selection, a file, the active file's problems) as chips, and the one documented
 * text format they expand into at the start of the prompt:
 *
 *     <context ref="src/a.ts:12-20">
 *     …the selected text…
 *     </context>
 *
 *     the user's own words
 *
 * `ref` is `path:start-end` for a selection, `path` for a file, `problems:path` for diagnostics. The user row
 * reads the same format back to show the chips instead of the raw blocks.
 */

export type ChipKind = 'selection' | 'file' | 'problems';

export interface CodeChip {
  readonly kind: ChipKind;
  /** Workspace-relative path, '/'-separated. */
  readonly path: string;
  /** 1-based, inclusive (selections). */
  readonly startLine?: number;
  readonly endLine?: number;
  readonly text: string;
}

/** What the chip shows and the `ref` it expands to. */
export function chipRef(c: CodeChip): string {
  if (c.kind === 'problems') return `problems:${c.path}`;
  if (c.kind === 'selection' && c.startLine !== undefined) return `${c.path}:${c.startLine}-${c.endLine ?? c.startLine}`;
  return c.path;
}

/** The prompt Pi gets: each chip as a context block, then the user's text. */
export function expandChips(chips: readonly CodeChip[], text: string): string {
  if (!chips.length) return text;
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
    (c.kind === 'selection' || c.kind === 'file' || c.kind === 'problems') &&
    typeof c.path === 'string' &&
    typeof c.text === 'string' &&
    line(c.startLine) &&
    line(c.endLine)
  );
}
