/** The review's commands: keep or undo the change at the cursor (or a lens's), move between changes, keep or undo all of a chat's, and the multi-file diff. */

import * as path from 'node:path';
import * as vscode from 'vscode';
import { plainNotificationText } from '../../shared/notificationText.ts';
import { linesOf, undoEdit } from '../../shared/review/hunks.ts';
import { BEFORE_SCHEME } from '../diffs.ts';
import type { ChangeAt, ReviewChat, ReviewEditor } from './reviewEditor.ts';

/** The left side of Review Changes: a pending file with its pending changes undone. */
const PENDING_SCHEME = 'pi-pending';

/** A lens's arguments: the chat, file and change it is on. */
interface LensArgs {
  readonly chatId: string;
  readonly path: string;
  readonly id?: string;
}

function isLensArgs(a: unknown): a is LensArgs {
  return typeof a === 'object' && a !== null && typeof (a as LensArgs).chatId === 'string' && typeof (a as LensArgs).path === 'string';
}

/**
 * Registers the commands. `chats` are the chats; `target(args)` the chat a command run with `args` acts on (the
 * view's that ran it, else the focused one).
 */
export function registerReviewCommands(
  editor: ReviewEditor,
  chats: () => readonly ReviewChat[],
  target: (args: readonly unknown[]) => ReviewChat | undefined,
): vscode.Disposable[] {
  const say = (message: string | undefined) => {
    if (message) void vscode.window.showInformationMessage(plainNotificationText(vscode.l10n.t('Pi: {0}', message)));
  };
  /** The change a command acts on: the lens's, else the one at the active editor's cursor. */
  const changeOf = (args: readonly unknown[]): ChangeAt | undefined => {
    const lens = args.find(isLensArgs);
    if (lens) {
      const chat = chats().find((c) => c.id === lens.chatId);
      const file = chat?.pending.files.get(lens.path);
      if (!chat || !file) return undefined;
      return { chat, rel: lens.path, file, ...(lens.id ? { hunk: file.hunks.find((h) => h.id === lens.id) } : {}) };
    }
    const active = vscode.window.activeTextEditor;
    if (!active) return undefined;
    const at = editor.changeAt(active.document.uri, active.selection.active.line);
    if (!at) void vscode.window.showInformationMessage(vscode.l10n.t('Pi: there is no pending change at the cursor.'));
    return at;
  };
  /** The chat whose changes "all" means: the view's that ran it, the focused one, else the only one with pending changes. */
  const allOf = (args: readonly unknown[]): ReviewChat | undefined => {
    const chat = target(args);
    if (chat?.pending.left) return chat;
    const withPending = chats().filter((c) => c.pending.left > 0);
    return withPending.length === 1 ? withPending[0] : chat;
  };
  return [
    vscode.workspace.registerTextDocumentContentProvider(PENDING_SCHEME, {
      provideTextDocumentContent: async (uri) => {
        const q = new URLSearchParams(uri.query);
        const chat = chats().find((c) => c.id === q.get('chat'));
        const rel = q.get('path') ?? '';
        const file = chat?.pending.files.get(rel);
        if (!chat || !file || file.whole) return '';
        let text = (await vscode.workspace.openTextDocument(vscode.Uri.file(chat.pending.absOf(rel)))).getText();
        // Last first, so each undo's lines are where the hunk says.
        for (const h of [...file.hunks].sort((a, b) => b.start - a.start)) {
          const e = undoEdit(h);
          const lines = linesOf(text);
          const head = lines.slice(0, e.start.line).join('');
          const endLine = lines.slice(0, e.end.line).join('').length + e.end.character;
          text = head + e.text + text.slice(endLine);
        }
        return text;
      },
    }),
    vscode.commands.registerCommand('piPanel.keepChange', (...args: unknown[]) => {
      const at = changeOf(args);
      if (at) at.chat.pending.keep(at.rel, at.hunk?.id);
    }),
    vscode.commands.registerCommand('piPanel.undoChange', async (...args: unknown[]) => {
      const at = changeOf(args);
      if (at) say(await at.chat.pending.undo(at.rel, at.hunk?.id));
    }),
    vscode.commands.registerCommand('piPanel.nextChange', () => move(chats(), 1)),
    vscode.commands.registerCommand('piPanel.previousChange', () => move(chats(), -1)),
    vscode.commands.registerCommand('piPanel.keepAllChanges', (...args: unknown[]) => allOf(args)?.pending.keepAll()),
    vscode.commands.registerCommand('piPanel.undoAllChanges', (...args: unknown[]) => allOf(args)?.pending.undoAll()),
    vscode.commands.registerCommand('piPanel.reviewChanges', async (...args: unknown[]) => {
      const chat = allOf(args);
      if (!chat?.pending.left) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Pi: no changes are waiting for review.'));
        return;
      }
      const t = String(Date.now());
      const resources = [...chat.pending.files].map(([rel, f]) => {
        const right = vscode.Uri.file(chat.pending.absOf(rel));
        // A whole-file decision's left side is the file before its run (the Changes row's Open Diff has the same).
        const left = f.whole
          ? right.with({ scheme: BEFORE_SCHEME, query: new URLSearchParams({ chat: chat.id, run: f.whole.runId, t }).toString() })
          : right.with({ scheme: PENDING_SCHEME, query: new URLSearchParams({ chat: chat.id, path: rel, t }).toString() });
        return [right, left, right];
      });
      await vscode.commands.executeCommand('vscode.changes', vscode.l10n.t("Pi's pending changes"), resources);
    }),
  ];
}

/** Every pending change's place, by file then line. */
function places(chats: readonly ReviewChat[]): { abs: string; line: number }[] {
  const out: { abs: string; line: number }[] = [];
  for (const c of chats)
    for (const [rel, f] of c.pending.files) {
      const abs = c.pending.absOf(rel);
      if (f.whole) out.push({ abs, line: 0 });
      for (const h of f.hunks) out.push({ abs, line: h.start });
    }
  return out.sort((a, b) => (a.abs === b.abs ? a.line - b.line : a.abs < b.abs ? -1 : 1));
}

/** Moves the cursor to the next (`step` 1) or previous (-1) pending change after the cursor, across files, wrapping. */
async function move(chats: readonly ReviewChat[], step: 1 | -1): Promise<void> {
  const all = places(chats);
  if (!all.length) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Pi: no changes are waiting for review.'));
    return;
  }
  const active = vscode.window.activeTextEditor;
  const here = active ? { abs: active.document.uri.fsPath, line: active.selection.active.line } : undefined;
  const cmp = (a: { abs: string; line: number }, b: { abs: string; line: number }) => (a.abs === b.abs ? a.line - b.line : a.abs < b.abs ? -1 : 1);
  const next =
    step === 1 ? (here && all.find((p) => cmp(p, here) > 0)) || all[0]! : (here && [...all].reverse().find((p) => cmp(p, here) < 0)) || all[all.length - 1]!;
  const pos = new vscode.Position(next.line, 0);
  await vscode.window.showTextDocument(vscode.Uri.file(path.normalize(next.abs)), { selection: new vscode.Range(pos, pos), preview: false });
}
