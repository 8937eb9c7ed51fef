/** What the chat asks of the editor: open a clicked link (http(s), or a workspace file), insert code. */

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from './sessionController.ts';

export async function openLink(href: string, cwd: string | undefined, log: Logger): Promise<void> {
  let url: URL | undefined;
  try {
    url = new URL(href);
  } catch {
    url = undefined;
  }
  if (url && (url.protocol === 'http:' || url.protocol === 'https:')) {
    await vscode.env.openExternal(vscode.Uri.parse(url.href));
    return;
  }
  // Anything else is a path, relative to the workspace; it must stay inside it.
  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? cwd;
  const raw = url?.protocol === 'file:' ? decodeURIComponent(url.pathname) : href.split('#')[0]!;
  if (!root || url && url.protocol !== 'file:') {
    log.warn(`Refused to open link ${JSON.stringify(href.slice(0, 200))}: only http(s) and workspace files open.`);
    return;
  }
  const target = path.resolve(root, raw);
  const rel = path.relative(root, target);
  if (rel.startsWith('..') || path.isAbsolute(rel)) {
    log.warn(`Refused to open ${JSON.stringify(target)}: it is outside the workspace.`);
    return;
  }
  await vscode.window.showTextDocument(vscode.Uri.file(target), { preview: true });
}

/** Inserts text at the cursor of the active editor, or says why it cannot. */
export async function insertAtCursor(text: string): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage('Pi: open a file to insert the code into.');
    return;
  }
  await editor.edit((edit) => {
    for (const selection of editor.selections) edit.replace(selection, text);
  });
}
