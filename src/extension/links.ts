/** What the chat asks of the editor: open a clicked link (http(s), or a workspace file), insert code. */

import * as vscode from 'vscode';
import { codeForInsert } from '../shared/bidi.ts';
import { linkTarget } from './linkTarget.ts';
import type { Logger } from '../shared/wire/workerProtocol.ts';

/** `root`: the folder a chat's relative links and files are in (the workspace's, or a worktree chat's worktree). */
export async function openLink(href: string, root: string | undefined, log: Logger): Promise<void> {
  const target = linkTarget(href, root);
  switch (target.kind) {
    case 'external':
      await vscode.env.openExternal(vscode.Uri.parse(target.url));
      return;
    case 'file': {
      const line = target.line !== undefined ? Math.max(0, target.line - 1) : undefined;
      await vscode.window.showTextDocument(vscode.Uri.file(target.path), {
        preview: true,
        ...(line !== undefined ? { selection: new vscode.Range(line, 0, line, 0) } : {}),
      });
      return;
    }
    case 'refused':
      log.warn(`Refused to open link ${JSON.stringify(href.slice(0, 200))}: ${target.reason}.`);
      return;
  }
}

/** Inserts text at the cursor of the active editor, or says why it cannot. */
/** Opens a diagram's SVG as an untitled XML document beside the chat. */
export async function openSvg(svg: string): Promise<void> {
  const doc = await vscode.workspace.openTextDocument({ language: 'xml', content: svg });
  await vscode.window.showTextDocument(doc, { preview: false });
}

export async function insertAtCursor(text: string): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Pi: open a file to insert the code into.'));
    return;
  }
  // Never paste bidi overrides silently: they are stripped, and the user is told.
  const insert = codeForInsert(text);
  await editor.edit((edit) => {
    for (const selection of editor.selections) edit.replace(selection, insert.text);
  });
  if (insert.notice) void vscode.window.showWarningMessage(insert.notice);
}
