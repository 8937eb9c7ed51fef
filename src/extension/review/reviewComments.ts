/** Review comments on Pi's changes (VS Code's Comments API), sent to Pi together as the chat's next message: "on src/a.ts:12: …". */

import * as path from 'node:path';
import * as vscode from 'vscode';
import { Disposable } from '../../shared/disposable.ts';

/** One comment's text, from the user (VS Code's own comment widget or the palette). */
class ReviewComment implements vscode.Comment {
  readonly mode = vscode.CommentMode.Preview;
  readonly author = { name: vscode.l10n.t('You') };
  readonly body: string;
  constructor(body: string) {
    this.body = body;
  }
}

export class ReviewComments extends Disposable {
  private readonly _controller: vscode.CommentController;
  private readonly _threads: vscode.CommentThread[] = [];
  private readonly _root: () => string | undefined;

  /** `pending(uri)`: whether some chat has pending changes in that file (those files take comments). */
  constructor(pending: (uri: vscode.Uri) => boolean, root: () => string | undefined) {
    super();
    this._root = root;
    this._controller = this._register(vscode.comments.createCommentController('piPanel.review', vscode.l10n.t('Pi review')));
    this._controller.options = { placeHolder: vscode.l10n.t('A comment for Pi'), prompt: vscode.l10n.t('Comment for Pi') };
    this._controller.commentingRangeProvider = {
      provideCommentingRanges: (doc) => (pending(doc.uri) ? [new vscode.Range(0, 0, Math.max(0, doc.lineCount - 1), 0)] : []),
    };
  }

  /** The user wrote a comment in a thread's widget (its Add button). */
  reply(r: vscode.CommentReply): void {
    const text = r.text.trim();
    if (!text) return;
    r.thread.comments = [...r.thread.comments, new ReviewComment(text)];
    r.thread.canReply = false;
    r.thread.label = vscode.l10n.t('For Pi');
    if (!this._threads.includes(r.thread)) this._threads.push(r.thread);
  }

  /** A comment at `line` (0-based) of `uri` (the palette's Comment on Change). */
  add(uri: vscode.Uri, line: number, text: string): void {
    const thread = this._controller.createCommentThread(uri, new vscode.Range(line, 0, line, 0), [new ReviewComment(text)]);
    thread.canReply = false;
    thread.label = vscode.l10n.t('For Pi');
    this._threads.push(thread);
  }

  /** The files commented on. */
  get uris(): vscode.Uri[] {
    return this._threads.map((t) => t.uri);
  }

  /** The comments as one message, by file and line, and the threads gone; '' when there are none. */
  take(): string {
    const root = this._root();
    const lines = this._threads
      .filter((t) => t.range && t.comments.length)
      .sort((a, b) => (a.uri.fsPath === b.uri.fsPath ? a.range!.start.line - b.range!.start.line : a.uri.fsPath < b.uri.fsPath ? -1 : 1))
      .map((t) => {
        const rel = root ? path.relative(root, t.uri.fsPath).split(path.sep).join('/') : t.uri.fsPath;
        const body = t.comments.map((c) => (typeof c.body === 'string' ? c.body : c.body.value)).join(' ');
        return `on ${rel}:${t.range!.start.line + 1}: ${body}`;
      });
    for (const t of this._threads.splice(0)) t.dispose();
    return lines.join('\n');
  }
}

/** Comment on Change (the widget's Add, or the palette at the cursor) and Send Comments to Pi. `send` gives the message to the chat whose changes they are on. */
export function registerCommentCommands(comments: ReviewComments, send: (text: string, on: readonly vscode.Uri[]) => Promise<void>): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('piPanel.addReviewComment', async (reply?: vscode.CommentReply) => {
      if (reply && typeof reply === 'object' && 'thread' in reply) return comments.reply(reply);
      const editor = vscode.window.activeTextEditor;
      if (!editor) return;
      const text = await vscode.window.showInputBox({ title: vscode.l10n.t('Pi: Comment on Change'), prompt: vscode.l10n.t('A comment for Pi on this line') });
      if (text?.trim()) comments.add(editor.document.uri, editor.selection.active.line, text.trim());
    }),
    vscode.commands.registerCommand('piPanel.sendComments', async () => {
      const on = comments.uris;
      const text = comments.take();
      if (!text) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Pi: there are no review comments to send.'));
        return;
      }
      await send(text, on);
    }),
  ];
}
