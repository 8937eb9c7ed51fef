/** "Ask Pi to fix": one problem as chip text, its diagnostics then the code around them with the problem's lines marked. */

/** A diagnostic as plain data (1-based line and column). */
export interface ProblemLine {
  readonly line: number;
  readonly column: number;
  readonly severity: 'error' | 'warning' | 'info' | 'hint';
  readonly message: string;
  readonly source?: string;
}

/** Lines shown before and after the problem's lines. */
export const PROBLEM_CONTEXT_LINES = 3;

/** `line:col severity: message (source)`, the form `@problems` uses. */
function problemLine(p: ProblemLine): string {
  return `${p.line}:${p.column} ${p.severity}: ${p.message}${p.source ? ` (${p.source})` : ''}`;
}

/**
 * The diagnostics, a blank line, then `lines` (the file's text from `firstLine`, 1-based) numbered, with the lines from
 * `markFrom` to `markTo` marked `>`.
 */
export function problemChipText(problems: readonly ProblemLine[], lines: readonly string[], firstLine: number, markFrom: number, markTo: number): string {
  const width = String(firstLine + lines.length - 1).length;
  const excerpt = lines.map((text, i) => {
    const n = firstLine + i;
    return `${n >= markFrom && n <= markTo ? '>' : ' '} ${String(n).padStart(width)} | ${text}`;
  });
  return `${problems.map(problemLine).join('\n')}\n\n${excerpt.join('\n')}\n`;
}
