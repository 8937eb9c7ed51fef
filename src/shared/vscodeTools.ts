/** The VS Code tools Pi may call (issue 37): their names, argument checks and the bounded text the model reads back. */

/** The tools, as the model and the tool cards name them (SPEC §7). */
export const VSCODE_TOOL_NAMES = ['vscode_diagnostics', 'vscode_definition', 'vscode_references', 'vscode_hover', 'vscode_symbols', 'vscode_rename'] as const;

export type VscodeToolName = (typeof VSCODE_TOOL_NAMES)[number];

/** Those that only read: they carry `readOnlyHint`, so plan mode and approvals let them run. */
export const READ_ONLY_VSCODE_TOOLS: readonly VscodeToolName[] = VSCODE_TOOL_NAMES.filter((n) => n !== 'vscode_rename');

/** Items (places, problems, symbols) one answer lists at most; the rest are counted in a note, as Pi's own tools cut their output. */
export const MAX_RESULT_ITEMS = 100;

/** Characters of a line of code or a message shown at most. */
const MAX_LINE_CHARS = 160;

/** Characters of hover text shown at most. */
const MAX_HOVER_CHARS = 8000;

/** A place the language server named: workspace-relative path ('/'-separated), or absolute and marked when outside. */
export interface PlaceView {
  readonly path: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
  readonly outside?: boolean;
  /** The line's text, when read. */
  readonly text?: string;
}

/** One diagnostic as plain data (1-based). */
export interface DiagnosticView extends PlaceView {
  readonly severity: 'error' | 'warning' | 'info' | 'hint';
  readonly message: string;
  readonly source?: string;
  readonly code?: string;
}

/** One symbol: `depth` is its nesting in a document outline. */
export interface SymbolView extends PlaceView {
  readonly name: string;
  readonly kind: string;
  readonly depth?: number;
  readonly container?: string;
}

/** A place in a file, or a symbol name found through the workspace's symbols. */
export type Target = { readonly path: string; readonly line: number; readonly column: number } | { readonly symbol: string };

/** Each tool's arguments once checked. */
export interface VscodeToolArgs {
  readonly vscode_diagnostics: { readonly paths?: readonly string[] };
  readonly vscode_definition: Target;
  readonly vscode_references: Target;
  readonly vscode_hover: Target;
  readonly vscode_symbols: { readonly path?: string; readonly query?: string };
  readonly vscode_rename: { readonly path: string; readonly line: number; readonly column: number; readonly newName: string };
}

export type Checked<T> = { readonly ok: true; readonly args: T } | { readonly ok: false; readonly reason: string };

const isName = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0 && v.length <= 1000;
const isPos = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1;

function place(raw: Readonly<Record<string, unknown>>): Checked<{ path: string; line: number; column: number }> {
  if (!isName(raw.path)) return { ok: false, reason: 'path must be a workspace-relative file path' };
  if (!isPos(raw.line) || !isPos(raw.column)) return { ok: false, reason: 'line and column must be whole numbers from 1' };
  return { ok: true, args: { path: raw.path, line: raw.line, column: raw.column } };
}

function target(raw: Readonly<Record<string, unknown>>): Checked<Target> {
  if (raw.path === undefined && isName(raw.symbol)) return { ok: true, args: { symbol: raw.symbol.trim() } };
  if (raw.path === undefined) return { ok: false, reason: 'give { path, line, column } (1-based) or { symbol }' };
  return place(raw);
}

/** `raw` checked as `tool`'s arguments (the worker passes the model's input through; the host trusts nothing). */
export function checkToolArgs<N extends VscodeToolName>(tool: N, raw: unknown): Checked<VscodeToolArgs[N]> {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Readonly<Record<string, unknown>>;
  return checkRecord(tool, r) as Checked<VscodeToolArgs[N]>;
}

function checkRecord(tool: VscodeToolName, r: Readonly<Record<string, unknown>>): Checked<VscodeToolArgs[VscodeToolName]> {
  switch (tool) {
    case 'vscode_diagnostics': {
      if (r.paths === undefined) return { ok: true, args: {} };
      if (!Array.isArray(r.paths) || !r.paths.every(isName) || r.paths.length > 200)
        return { ok: false, reason: 'paths must be a list of workspace-relative file paths' };
      return { ok: true, args: { paths: r.paths } };
    }
    case 'vscode_definition':
    case 'vscode_references':
    case 'vscode_hover':
      return target(r);
    case 'vscode_symbols': {
      if (r.path !== undefined && !isName(r.path)) return { ok: false, reason: 'path must be a workspace-relative file path' };
      if (r.query !== undefined && typeof r.query !== 'string') return { ok: false, reason: 'query must be a string' };
      if (r.path === undefined && !isName(r.query)) return { ok: false, reason: 'give a path (its outline) or a query (workspace symbols)' };
      return { ok: true, args: { ...(r.path !== undefined ? { path: r.path } : {}), ...(typeof r.query === 'string' ? { query: r.query } : {}) } };
    }
    case 'vscode_rename': {
      const p = place(r);
      if (!p.ok) return p;
      if (!isName(r.newName) || /\s/.test(r.newName.trim())) return { ok: false, reason: 'newName must be the new identifier' };
      return { ok: true, args: { ...p.args, newName: r.newName.trim() } };
    }
    default: {
      const never: never = tool;
      return never;
    }
  }
}

/** A one-line clip of untrusted text (a line of code, a message). */
function clip(text: string, max = MAX_LINE_CHARS): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

function placeText(p: PlaceView): string {
  return `${p.path}:${p.line}:${p.column}${p.outside ? ' (outside the workspace)' : ''}`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The first `MAX_RESULT_ITEMS` lines, and a note of how many more `what` there are. */
function bounded(lines: readonly string[], what: string, hint: string): string[] {
  if (lines.length <= MAX_RESULT_ITEMS) return [...lines];
  return [...lines.slice(0, MAX_RESULT_ITEMS), `[${lines.length - MAX_RESULT_ITEMS} more ${what} not shown. ${hint}]`];
}

/** Definitions or references of `subject` (a symbol or `path:line:column`). */
export function formatLocations(kind: 'definition' | 'references', subject: string, places: readonly PlaceView[]): string {
  const noun = kind === 'definition' ? 'definition' : 'reference';
  if (!places.length) return `No ${noun}s found for ${subject}. The language server may not know this file type, or the position is not on a symbol.`;
  const lines = places.map((p) => (p.text !== undefined ? `${placeText(p)}: ${clip(p.text)}` : placeText(p)));
  const head = `${plural(places.length, noun)} ${kind === 'definition' ? 'of' : 'to'} ${subject}:`;
  return [head, ...bounded(lines, `${noun}s`, 'Narrow the search (a more specific symbol, or grep in one folder).')].join('\n');
}

const SEVERITY_ORDER: Readonly<Record<DiagnosticView['severity'], number>> = { error: 0, warning: 1, info: 2, hint: 3 };

function diagnosticLine(d: DiagnosticView): string {
  const from = [d.source, d.code].filter(Boolean).join(' ');
  return `${placeText(d)} ${d.severity}: ${clip(d.message, 400)}${from ? ` (${from})` : ''}`;
}

/** Problems in `scope`, errors first then warnings and infos (hints left out), each `path:line:column severity: message (source code)`. */
export function formatDiagnostics(items: readonly DiagnosticView[], scope: string): string {
  const shown = items
    .filter((d) => d.severity !== 'hint')
    .sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || a.path.localeCompare(b.path) || a.line - b.line);
  if (!shown.length) return `No errors or warnings in ${scope} (as VS Code's language servers report them now).`;
  const errors = shown.filter((d) => d.severity === 'error').length;
  const warnings = shown.filter((d) => d.severity === 'warning').length;
  const infos = shown.length - errors - warnings;
  const counts = [plural(errors, 'error'), plural(warnings, 'warning'), ...(infos ? [plural(infos, 'info', 'infos')] : [])].join(', ');
  return [`${counts} in ${scope}:`, ...bounded(shown.map(diagnosticLine), 'problems', 'Ask for fewer files (paths).')].join('\n');
}

/** Hover text (type signatures, docs) at `subject`. */
export function formatHover(contents: readonly string[], subject: string): string {
  const text = contents
    .map((c) => c.trim())
    .filter(Boolean)
    .join('\n\n');
  if (!text) return `No hover information at ${subject}.`;
  if (text.length <= MAX_HOVER_CHARS) return `Hover at ${subject}:\n${text}`;
  return `Hover at ${subject}:\n${text.slice(0, MAX_HOVER_CHARS)}\n[hover text cut at ${MAX_HOVER_CHARS} of ${text.length} characters]`;
}

/** Symbols, indented by nesting: `kind name path:line:column`. */
export function formatSymbols(symbols: readonly SymbolView[], title: string): string {
  if (!symbols.length) return `No ${title}.`;
  const lines = symbols.map((s) => `${'  '.repeat(s.depth ?? 0)}${s.kind} ${clip(s.name)} ${placeText(s)}${s.container ? ` in ${clip(s.container)}` : ''}`);
  return [`${plural(symbols.length, 'symbol')} (${title}):`, ...bounded(lines, 'symbols', 'Use a more specific query.')].join('\n');
}

/** What a rename changed, per file. */
export function formatRename(
  oldName: string,
  newName: string,
  files: readonly { readonly path: string; readonly count: number; readonly outside?: boolean }[],
): string {
  const total = files.reduce((n, f) => n + f.count, 0);
  const lines = files.map((f) => `${f.path}${f.outside ? ' (outside the workspace)' : ''} (${f.count})`);
  return [`Renamed ${oldName} to ${newName}: ${plural(total, 'place')} in ${plural(files.length, 'file')}, saved:`, ...bounded(lines, 'files', '')].join('\n');
}

/** The errors in `after` that `before` did not have: compared by file and message, so an error that only moved is not new. */
export function newErrors(before: readonly DiagnosticView[], after: readonly DiagnosticView[]): DiagnosticView[] {
  const left = new Map<string, number>();
  const key = (d: DiagnosticView) => `${d.path}\u0000${d.message}`;
  for (const d of before) if (d.severity === 'error') left.set(key(d), (left.get(key(d)) ?? 0) + 1);
  const added: DiagnosticView[] = [];
  for (const d of after) {
    if (d.severity !== 'error') continue;
    const n = left.get(key(d)) ?? 0;
    if (n > 0) left.set(key(d), n - 1);
    else added.push(d);
  }
  return added;
}

/** The head of the note after a change, after its count. */
const AFTER_EDIT_HEAD = '(VS Code diagnostics after this change):';

/** How many new errors the note in a tool's output counts (the tool card's badge); undefined without one. */
export function newErrorsIn(output: string): number | undefined {
  // The panel appends its note last: the last one counts, whatever the tool's own output says before it.
  const found = [...output.matchAll(/^(\d+) new errors? \(VS Code diagnostics after this change\):$/gm)].at(-1);
  return found ? Number(found[1]) : undefined;
}

/** What is appended to an edit's result for the model: the new errors, or nothing. */
export function afterEditNote(errors: readonly DiagnosticView[]): string {
  if (!errors.length) return '';
  const lines = errors.slice(0, 20).map(diagnosticLine);
  const more = errors.length > 20 ? [`[${errors.length - 20} more not shown: call vscode_diagnostics]`] : [];
  return [`\n\n${newErrorsLabel(errors.length)} ${AFTER_EDIT_HEAD}`, ...lines, ...more].join('\n');
}

/** "2 new errors": the tool card's badge and the note's head. */
export function newErrorsLabel(count: number): string {
  return plural(count, 'new error');
}

/** The answer when a language server is slow, missing, crashed or still indexing. */
export function timeoutText(ms: number): string {
  return `VS Code: the language server did not answer within ${Math.round(ms / 1000)} s (it may still be starting or indexing the project). Try again shortly, or use read/grep.`;
}
