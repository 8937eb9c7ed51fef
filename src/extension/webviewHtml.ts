/** The chat webview's HTML shell: strict CSP, a nonce'd script loaded after the page, styles and fonts from the extension. */

import { randomUUID } from 'node:crypto';
import type * as vscode from 'vscode';
import { lateScriptHtml } from '../shared/lateScript.ts';
import { pageStyle } from './pageStyle.ts';
import { pictureHtml } from '../shared/savedPicture.ts';

/** The chat's Content-Security-Policy: nothing by default, scripts only by nonce, styles by nonce (the page's own) or from the extension, the rest from the extension. */
export function chatCsp(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
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
  const styleUri = uri('media', 'chat.css');
  // In the page, not linked: VS Code keeps a new page hidden until it has loaded, and a linked sheet is fetched first.
  const css = pageStyle(styleUri.fsPath, (path) => webview.asWebviewUri(uri(...path.split('/'))).toString());
  // l10n-ignore: markup, not text
  const style = css === undefined ? `<link rel="stylesheet" href="${webview.asWebviewUri(styleUri)}">` : `<style nonce="${nonce}">${css}</style>`;
  const csp = chatCsp(webview.cspSource, nonce);
  return `<!DOCTYPE html>
<html lang="${locale.language.replace(/[^A-Za-z0-9-]/g, '') || 'en'}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${style}
<title>Pi</title>
</head>
<body data-run-state="idle" data-chat-id="${chatId}"${chatKey ? ` data-chat-key="${chatKey}"` : ''}${worktree ? ` data-worktree="${worktree.replace(/[^\w./-]/g, '')}"` : ''}>
<script type="application/json" id="pi-l10n">${inertJson({ language: locale.language, bundle: locale.bundle ?? {} })}</script>
<div id="app">${pictureHtml(picture)}</div>
${lateScriptHtml(script.toString(), nonce)}
</body>
</html>`;
}
