/** Pending changes shown in the editor: added lines highlighted with a gutter mark, removed lines at the end of the first line and in its hover, Keep | Undo lenses, the status text and the keybindings' context key. */

import * as vscode from 'vscode';
import { Disposable, Emitter } from '../../shared/disposable.ts';
import { marksOf } from '../../shared/review/decorations.ts';
import { inDiff, type GroupSeen } from '../../shared/review/diffSides.ts';
import { lineCount, type Hunk } from '../../shared/review/hunks.ts';
import type { PendingChanges, PendingFile } from './pendingChanges.ts';

/** A chat as the review sees it. */
export interface ReviewChat {
  readonly id: string;
  readonly pending: PendingChanges;
}

/** Where a pending change is: its chat, file and hunk (none for a whole-file decision). */
export interface ChangeAt {
  readonly chat: ReviewChat;
  readonly rel: string;
  readonly file: PendingFile;
  readonly hunk?: Hunk;
}

/** Whether `editor` shows a side of a diff editor (a diff or a multi-file diff active in a tab group): `TextEditor` cannot say, the tabs can. */
export function isDiffSide(editor: vscode.TextEditor, groups: readonly GroupSeen[] = groupsSeen()): boolean {
  return inDiff({ uri: editor.document.uri.toString(), column: editor.viewColumn }, groups);
}

/** The tab groups as the check sees them: each one's column and the diffs its active tab shows. */
function groupsSeen(): GroupSeen[] {
  return vscode.window.tabGroups.all.map((g) => ({ column: g.viewColumn, diffs: diffsOf(g.activeTab?.input) }));
}

/** The sides of a tab's diffs: one for a diff, each file's for a multi-file diff, none for anything else. */
function diffsOf(input: unknown): GroupSeen['diffs'] {
  if (input instanceof vscode.TabInputTextDiff) return [{ original: input.original.toString(), modified: input.modified.toString() }];
  // A multi-file diff's input (TabInputTextMultiDiff) is not in the API version this extension targets: read it by its shape.
  const textDiffs = (input as { textDiffs?: unknown } | undefined)?.textDiffs;
  if (!Array.isArray(textDiffs)) return [];
  return textDiffs.flatMap((d: unknown) =>
    d instanceof vscode.TabInputTextDiff ? [{ original: d.original.toString(), modified: d.modified.toString() }] : [],
  );
}

export class ReviewEditor extends Disposable implements vscode.CodeLensProvider {
  private readonly _chats: () => readonly ReviewChat[];
  private readonly _added: vscode.TextEditorDecorationType;
  private readonly _removed: vscode.TextEditorDecorationType;
  private readonly _status: vscode.StatusBarItem;
  private readonly _onDidChangeCodeLenses = this._register(new Emitter<void>());
  readonly onDidChangeCodeLenses = this._onDidChangeCodeLenses.event;
  private _scheduled = false;
  private _hasPending: boolean | undefined;

  constructor(chats: () => readonly ReviewChat[], extensionUri: vscode.Uri) {
    super();
    this._chats = chats;
    this._added = this._register(
      vscode.window.createTextEditorDecorationType({
        isWholeLine: true,
        backgroundColor: new vscode.ThemeColor('diffEditor.insertedLineBackground'),
        overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.addedForeground'),
        overviewRulerLane: vscode.OverviewRulerLane.Left,
        gutterIconPath: vscode.Uri.joinPath(extensionUri, 'media', 'review-added.svg'),
        gutterIconSize: 'contain',
        rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
      }),
    );
    this._removed = this._register(
      vscode.window.createTextEditorDecorationType({
        overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.deletedForeground'),
        overviewRulerLane: vscode.OverviewRulerLane.Left,
        after: {
          color: new vscode.ThemeColor('editorGutter.deletedBackground'),
          margin: '0 0 0 2em',
          fontStyle: 'italic',
        },
      }),
    );
    this._status = this._register(vscode.window.createStatusBarItem('piPanel.review', vscode.StatusBarAlignment.Left, 97));
    this._status.name = vscode.l10n.t('Pi Pending Changes');
    this._status.command = 'piPanel.nextChange';
    this._register(vscode.languages.registerCodeLensProvider({ scheme: 'file' }, this));
    this._register(vscode.window.onDidChangeVisibleTextEditors(() => this.refresh()));
    this.refresh();
  }

  /** Follows a chat's pending changes. */
  watch(chat: ReviewChat): vscode.Disposable {
    return chat.pending.onDidChange(() => this.refresh());
  }

  /** Draws again, once per tick however many changes came. */
  refresh(): void {
    if (this._scheduled) return;
    this._scheduled = true;
    setTimeout(() => {
      this._scheduled = false;
      this.draw();
    }, 0);
  }

  /** Decorations of every visible editor, the lenses, the status text and the context key, now. */
  draw(): void {
    const groups = groupsSeen();
    for (const editor of vscode.window.visibleTextEditors) this._decorate(editor, isDiffSide(editor, groups));
    this._onDidChangeCodeLenses.fire();
    let left = 0;
    let total = 0;
    for (const c of this._chats()) {
      left += c.pending.left;
      total += c.pending.total;
    }
    if (left) {
      this._status.text = `$(diff) ${vscode.l10n.t('Pi: {0} of {1} changes left', left, total)}`;
      this._status.tooltip = vscode.l10n.t('Next pending change (Alt+F5)');
      this._status.show();
    } else this._status.hide();
    if (this._hasPending !== left > 0) {
      this._hasPending = left > 0;
      void vscode.commands.executeCommand('setContext', 'piPanel.hasPendingChanges', left > 0);
    }
  }

  /** The pending files of `uri`, one per chat that has it. */
  filesOf(uri: vscode.Uri): ChangeAt[] {
    const out: ChangeAt[] = [];
    for (const chat of this._chats()) {
      const rel = chat.pending.relOf(uri);
      const file = rel === undefined ? undefined : chat.pending.files.get(rel);
      if (rel !== undefined && file) out.push({ chat, rel, file });
    }
    return out;
  }

  /** The pending change at `line` of `uri`: a hunk whose lines hold it, else a whole-file decision of the file. */
  changeAt(uri: vscode.Uri, line: number): ChangeAt | undefined {
    for (const at of this.filesOf(uri)) {
      if (at.file.whole) return at;
      const hunk = at.file.hunks.find((h) => line >= h.start && line < h.start + Math.max(1, lineCount(h.newText)));
      if (hunk) return { ...at, hunk };
    }
    return undefined;
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const lenses: vscode.CodeLens[] = [];
    for (const { chat, rel, file } of this.filesOf(doc.uri)) {
      const args = (id?: string) => [{ chatId: chat.id, path: rel, ...(id ? { id } : {}) }];
      if (file.whole) {
        const range = new vscode.Range(0, 0, 0, 0);
        lenses.push(
          new vscode.CodeLens(range, {
            title: vscode.l10n.t('Pi changed this file ({0}): Keep', file.whole.reason),
            command: 'piPanel.keepChange',
            arguments: args(),
          }),
          new vscode.CodeLens(range, { title: vscode.l10n.t('Undo'), command: 'piPanel.undoChange', arguments: args() }),
        );
        continue;
      }
      if (file.hunks.length > 1) {
        const top = new vscode.Range(0, 0, 0, 0);
        lenses.push(
          new vscode.CodeLens(top, { title: vscode.l10n.t('Keep File ({0} changes)', file.hunks.length), command: 'piPanel.keepChange', arguments: args() }),
          new vscode.CodeLens(top, { title: vscode.l10n.t('Undo File'), command: 'piPanel.undoChange', arguments: args() }),
        );
      }
      for (const h of file.hunks) {
        const line = Math.min(h.start, Math.max(0, doc.lineCount - 1));
        const range = new vscode.Range(line, 0, line, 0);
        lenses.push(
          new vscode.CodeLens(range, { title: vscode.l10n.t('Keep'), command: 'piPanel.keepChange', arguments: args(h.id) }),
          new vscode.CodeLens(range, { title: vscode.l10n.t('Undo'), command: 'piPanel.undoChange', arguments: args(h.id) }),
        );
      }
    }
    return lenses;
  }

  /** Draws `editor`'s marks; a side of a diff editor gets none (and loses those drawn before), the diff's own colours show the change. */
  private _decorate(editor: vscode.TextEditor, diffSide: boolean): void {
    const added: vscode.DecorationOptions[] = [];
    const removed: vscode.DecorationOptions[] = [];
    for (const { chat, rel, file } of this.filesOf(editor.document.uri)) {
      if (file.whole) continue;
      // After a reload or a change on disk, a change no longer as the run wrote it is not shown (nor undone) as pending.
      chat.pending.validate(rel, editor.document);
      if (diffSide) continue;
      for (const m of marksOf(chat.pending.files.get(rel)?.hunks ?? [], editor.document.lineCount)) {
        const hover = new vscode.MarkdownString(`**${vscode.l10n.t("Pi's change")}**\n\n`).appendCodeblock(m.diff, 'diff');
        if (m.added) added.push({ range: new vscode.Range(m.added.first, 0, m.added.last, 0), hoverMessage: hover });
        if (!m.removed) continue;
        const end = editor.document.lineAt(m.removed.line).range.end;
        removed.push({ range: new vscode.Range(end, end), hoverMessage: hover, renderOptions: { after: { contentText: m.removed.preview } } });
      }
    }
    editor.setDecorations(this._added, added);
    editor.setDecorations(this._removed, removed);
  }
}
