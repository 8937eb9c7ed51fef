/** The chat webview's HTML shell: strict CSP, one nonce'd script, styles and fonts from the extension. */

import { randomUUID } from 'node:crypto';
import type * as vscode from 'vscode';
import { pictureHtml } from '../shared/savedPicture.ts';

/** The chat's Content-Security-Policy: nothing by default, scripts only by nonce, the rest from the extension. */
export function chatCsp(cspSource: string, nonce: string): string {
  return ["default-src 'none'", `style-src ${cspSource}`, `font-src ${cspSource}`, `img-src ${cspSource} data:`, `script-src 'nonce-${nonce}'`].join('; ');
}

/** What the page needs before its first render: the display language and its l10n bundle (empty for English). */
export interface ChatLocale {
  readonly language: string;
  readonly bundle: Readonly<Record<string, string>> | undefined;
}

/**
 * JSON for a `<script type="application/json">` block: never executed (so the CSP is untouched), and `<`
 * escaped so no translated text can close the tag.
 */
export function inertJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/**
 * `locale`: the display language and its bundle; `chatId`: `sidebar` or `editor-N`, the body's `data-chat-id` (e2e runs find a chat by it);
 * `chatKey`: an editor tab's lasting key, which the page keeps in its state so the tab finds its chat again after
 * a window reload; `worktree`: a worktree chat's branch, the body's `data-worktree`; `picture`: the rows the view last
 * showed (its saved picture), drawn before the script loads so a view shown again paints at once.
 */
export function chatHtml(
  webview: vscode.Webview,
  uri: (...segments: string[]) => vscode.Uri,
  locale: ChatLocale,
  chatId = 'sidebar',
  chatKey?: string,
  worktree?: string,
  picture?: unknown,
): string {
  const nonce = randomUUID().replace(/-/g, '');
  const script = webview.asWebviewUri(uri('dist', 'webview', 'main.js'));
  const style = webview.asWebviewUri(uri('media', 'chat.css'));
  const csp = chatCsp(webview.cspSource, nonce);
  return `<!DOCTYPE html>
<html lang="${locale.language.replace(/[^A-Za-z0-9-]/g, '') || 'en'}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>Pi</title>
</head>
<body data-run-state="idle" data-chat-id="${chatId}"${chatKey ? ` data-chat-key="${chatKey}"` : ''}${worktree ? ` data-worktree="${worktree.replace(/[^\w./-]/g, '')}"` : ''}>
<script type="application/json" id="pi-l10n">${inertJson({ language: locale.language, bundle: locale.bundle ?? {} })}</script>
<div id="app">${pictureHtml(picture)}</div>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}
