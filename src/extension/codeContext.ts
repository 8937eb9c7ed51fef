/** Pointing Pi at code: the editor's selection, a workspace file (picked, or from the explorer), the active file's problems, each as a chip. */

import * as vscode from 'vscode';
import type { CodeChip } from '../shared/chips.ts';
import type { PickerItem } from './context/contextCommands.ts';
import { folderChip, workspaceFolderOf, workspaceGitignore } from './context/workspaceFolderTree.ts';

/** Larger files are not attached whole: Pi can read them itself. */
const MAX_FILE_BYTES = 200_000;
const MAX_PICK_FILES = 5000;

/** The active editor's selection (the cursor's line when nothing is selected). */
export function selectionChip(): CodeChip | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Pi: select some code in an editor first.'));
    return undefined;
  }
  const sel = editor.selection;
  const range = sel.isEmpty ? editor.document.lineAt(sel.active.line).range : sel;
  // A selection ending at column 0 of a line does not include that line.
  const endLine = !sel.isEmpty && sel.end.character === 0 && sel.end.line > sel.start.line ? sel.end.line - 1 : range.end.line;
  return {
    kind: 'selection',
    path: vscode.workspace.asRelativePath(editor.document.uri, false),
    startLine: range.start.line + 1,
    endLine: endLine + 1,
    text: editor.document.getText(range),
  };
}

/** A workspace file's text (a folder: its tree); refused (with a message) when it is outside the workspace, binary or large. */
export async function fileChip(uri: vscode.Uri): Promise<CodeChip | undefined> {
  if (!workspaceFolderOf(uri)) return undefined;
  const rel = vscode.workspace.asRelativePath(uri, false);
  let bytes: Uint8Array;
  try {
    const stat = await vscode.workspace.fs.stat(uri);
    if (stat.type & vscode.FileType.Directory) return folderChip(uri);
    if (stat.size > MAX_FILE_BYTES) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Pi: {0} is larger than {1} KB; ask Pi to read it instead.', rel, MAX_FILE_BYTES / 1000));
      return undefined;
    }
    bytes = await vscode.workspace.fs.readFile(uri);
  } catch (err) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Pi: could not read {0}: {1}', rel, err instanceof Error ? err.message : String(err)));
    return undefined;
  }
  if (bytes.subarray(0, 8000).includes(0)) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Pi: {0} is a binary file and was not added.', rel));
    return undefined;
  }
  return { kind: 'file', path: rel, text: new TextDecoder().decode(bytes) };
}

/** The active file's diagnostics, one per line: `line:col severity: message (source)`. */
function problemsChip(): CodeChip | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Pi: open a file to add its problems.'));
    return undefined;
  }
  const uri = editor.document.uri;
  const rel = vscode.workspace.asRelativePath(uri, false);
  const diagnostics = vscode.languages.getDiagnostics(uri);
  if (!diagnostics.length) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Pi: {0} has no problems.', rel));
    return undefined;
  }
  const severity = ['error', 'warning', 'info', 'hint'];
  const lines = diagnostics.map(
    (d) => `${d.range.start.line + 1}:${d.range.start.character + 1} ${severity[d.severity] ?? 'info'}: ${d.message}${d.source ? ` (${d.source})` : ''}`,
  );
  return { kind: 'problems', path: rel, text: lines.join('\n') };
}

/**
 * The workspace file picker (`@` and Add File): `@problems`, then `context` (terminal, changes, folder), then files,
 * without `files.exclude` and `.gitignore` matches (every `.gitignore`, with its negations).
 */
export async function pickChip(context: readonly PickerItem[] = []): Promise<CodeChip | undefined> {
  const problems: vscode.QuickPickItem = { label: '@problems', description: vscode.l10n.t("the active file's problems") };
  const folder = vscode.workspace.workspaceFolders?.[0];
  const [exclude, rules] = await Promise.all([gitignoreGlob(), folder ? workspaceGitignore(folder) : undefined]);
  const files = await vscode.workspace.findFiles('**/*', exclude, MAX_PICK_FILES);
  const items: (vscode.QuickPickItem & { uri?: vscode.Uri; make?: PickerItem['make'] })[] = [
    ...(vscode.window.activeTextEditor ? [problems] : []),
    ...context,
    ...files
      .map((uri) => ({ label: vscode.workspace.asRelativePath(uri, false), uri }))
      .filter((f) => !rules?.ignores(f.label, false))
      .sort((a, b) => a.label.localeCompare(b.label)),
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Pi: Add File to Chat'),
    placeHolder: vscode.l10n.t('Type to search workspace files'),
    matchOnDescription: true,
  });
  if (!picked) return undefined;
  if (picked.make) return picked.make();
  return picked.uri ? fileChip(picked.uri) : problemsChip();
}

/**
 * The root `.gitignore`'s plain patterns as one exclude glob (`findFiles` applies `files.exclude` itself): a first cut
 * so an ignored tree does not use up the bound. With a negation it cuts nothing; the exact rules filter afterwards.
 */
async function gitignoreGlob(): Promise<string | undefined> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) return undefined;
  let text: string;
  try {
    text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder.uri, '.gitignore')));
  } catch {
    return '**/.git/**';
  }
  if (/^\s*!/m.test(text)) return '**/.git/**';
  const globs = ['**/.git/**'];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || /[{}\\]/.test(line)) continue;
    const anchored = line.startsWith('/');
    const p = line.replace(/^\/+/, '').replace(/\/+$/, '');
    if (!p) continue;
    const base = anchored || p.includes('/') ? p : `**/${p}`;
    globs.push(base, `${base}/**`);
  }
  return `{${globs.join(',')}}`;
}
