/** "Ask Pi to Fix": a quick fix on diagnostics and an editor context-menu item that open the chat with the problem or selection as a chip and a starter prompt. */

import * as vscode from 'vscode';
import type { CodeChip } from '../../shared/chips.ts';
import { PROBLEM_CONTEXT_LINES, problemChipText, type ProblemLine } from './problemText.ts';

export const ASK_TO_FIX_COMMAND = 'piPanel.askToFix';

/** What the quick fix passes to the command: plain data, so it survives the trip through the command service. */
export interface AskToFixTarget {
  readonly uri: string;
  readonly startLine: number;
  readonly endLine: number;
}

const SEVERITY: Record<vscode.DiagnosticSeverity, ProblemLine['severity']> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'info',
  [vscode.DiagnosticSeverity.Hint]: 'hint',
};

/** Offers "Ask Pi to Fix" wherever the editor shows a diagnostic. */
export class AskPiToFixProvider implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    if (!context.diagnostics.length) return [];
    const start = Math.min(...context.diagnostics.map((d) => d.range.start.line));
    const end = Math.max(...context.diagnostics.map((d) => d.range.end.line));
    const action = new vscode.CodeAction(vscode.l10n.t('Ask Pi to Fix'), vscode.CodeActionKind.QuickFix);
    action.diagnostics = [...context.diagnostics];
    const target: AskToFixTarget = { uri: document.uri.toString(), startLine: start, endLine: end };
    action.command = { command: ASK_TO_FIX_COMMAND, title: vscode.l10n.t('Ask Pi to Fix'), arguments: [target] };
    return [action];
  }
}

const isTarget = (v: unknown): v is AskToFixTarget =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as AskToFixTarget).uri === 'string' &&
  Number.isInteger((v as AskToFixTarget).startLine) &&
  Number.isInteger((v as AskToFixTarget).endLine);

/** The problems on lines `start`..`end` (0-based) of `document` as one chip, with the code around them. */
function problemChip(document: vscode.TextDocument, start: number, end: number): CodeChip | undefined {
  const diagnostics = vscode.languages
    .getDiagnostics(document.uri)
    .filter((d) => d.range.start.line <= end && d.range.end.line >= start)
    .sort((a, b) => a.range.start.line - b.range.start.line || a.severity - b.severity);
  if (!diagnostics.length) return undefined;
  const problems: ProblemLine[] = diagnostics.map((d) => ({
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    severity: SEVERITY[d.severity],
    message: d.message,
    ...(d.source ? { source: d.source } : {}),
  }));
  const first = Math.max(0, start - PROBLEM_CONTEXT_LINES);
  const last = Math.min(document.lineCount - 1, end + PROBLEM_CONTEXT_LINES);
  const lines: string[] = [];
  for (let i = first; i <= last; i++) lines.push(document.lineAt(i).text);
  return {
    kind: 'problems',
    path: vscode.workspace.asRelativePath(document.uri, false),
    startLine: start + 1,
    endLine: end + 1,
    text: problemChipText(problems, lines, first + 1, start + 1, end + 1),
    detail:
      problems.length === 1
        ? vscode.l10n.t('1 problem, with lines {0}-{1}', first + 1, last + 1)
        : vscode.l10n.t('{0} problems, with lines {1}-{2}', problems.length, first + 1, last + 1),
  };
}

/**
 * The chips and starter prompt for "Ask Pi to Fix": from the quick fix, its diagnostics; from the editor, the problems
 * under the selection (or the cursor's line), else the selection itself.
 */
export async function askToFixChips(arg: unknown, selectionChip: () => CodeChip | undefined): Promise<{ chips: CodeChip[]; prompt: string } | undefined> {
  if (isTarget(arg)) {
    const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(arg.uri));
    const chip = problemChip(document, arg.startLine, arg.endLine);
    if (!chip) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Pi: that problem is gone.'));
      return undefined;
    }
    return { chips: [chip], prompt: vscode.l10n.t('Fix this problem.') };
  }
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Pi: select some code in an editor first.'));
    return undefined;
  }
  const sel = editor.selection;
  const problems = problemChip(editor.document, sel.start.line, sel.end.line);
  if (problems && sel.isEmpty) return { chips: [problems], prompt: vscode.l10n.t('Fix this problem.') };
  const selection = selectionChip();
  if (!selection) return undefined;
  return problems
    ? { chips: [selection, problems], prompt: vscode.l10n.t('Fix the problems in this code.') }
    : { chips: [selection], prompt: vscode.l10n.t('Find and fix the bug in this code.') };
}
