/** Reviewing what Pi changed, in the editor: open a changed file at its first change, VS Code's diff editor (before the run ↔ now), Undo. */

import * as path from 'node:path';
import * as vscode from 'vscode';
import { firstChangedLine } from '../shared/lineDiff.ts';
import { plainNotificationText } from '../shared/notificationText.ts';
import type { FileBefore, Logger } from '../shared/wire/workerProtocol.ts';
import { linkTarget } from './linkTarget.ts';
import type { PiClient } from './piClient.ts';

/** The diff editor's left side: a file's content before the run, served from the worker. */
export const BEFORE_SCHEME = 'pi-before';

/** Registers the before-content provider; the left side's query names the chat whose run it was. */
export function registerBeforeContent(review: (chatId: string) => FileReview | undefined): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(BEFORE_SCHEME, {
    provideTextDocumentContent: async (uri) => {
      const query = new URLSearchParams(uri.query);
      return (await review(query.get('chat') ?? '')?.before(uri.fsPath, query.get('run') ?? undefined)) ?? '';
    },
  });
}

/** One chat's review of its runs' changes. */
export class FileReview {
  private readonly _client: PiClient;
  private readonly _log: Logger;
  private readonly _root: () => string | undefined;
  private readonly _chatId: string;

  constructor(client: PiClient, log: Logger, root: () => string | undefined, chatId = 'sidebar') {
    this._client = client;
    this._log = log;
    this._root = root;
    this._chatId = chatId;
  }

  /** The folder the chat's files are in: the workspace's, or a worktree chat's worktree. */
  get root(): string | undefined {
    return this._root();
  }

  /** A file's text before this chat's run changed it ('' when none is known); `runId` names the run (its checkpoint). */
  async before(file: string, runId?: string): Promise<string> {
    const before = await this._fileBefore(file, runId);
    return before?.kind === 'text' ? before.text : '';
  }

  /** The content of `file` before the current or last run (or run `runId`) changed it; undefined when no run touched it. */
  private async _fileBefore(file: string, runId?: string): Promise<FileBefore | undefined> {
    return (await this._client.call('fileBefore', { path: file, ...(runId ? { runId } : {}) }))?.before;
  }

  /** Opens a workspace file at `line`, or (`firstChange`) at the first line the run changed. */
  async openFile(rel: string, line: number | undefined, firstChange: boolean): Promise<void> {
    const file = this._resolve(rel);
    if (!file) return;
    let at = line;
    if (at === undefined && firstChange) {
      const before = await this._fileBefore(file);
      if (before?.kind === 'text') at = firstChangedLine(before.text, await this._read(file));
    }
    const zero = at !== undefined ? Math.max(0, at - 1) : undefined;
    await vscode.window.showTextDocument(vscode.Uri.file(file), {
      preview: true,
      ...(zero !== undefined ? { selection: new vscode.Range(zero, 0, zero, 0) } : {}),
    });
  }

  /**
   * VS Code's diff editor: the file before the run's first change to it (before run `runId`: its checkpoint) ↔ the
   * file now (empty left side for a file Pi created).
   */
  async openDiff(rel: string, runId?: string): Promise<void> {
    const file = this._resolve(rel);
    if (!file) return;
    const before = await this._fileBefore(file, runId);
    if (!before) {
      void vscode.window.showInformationMessage(plainNotificationText(vscode.l10n.t('Pi: no earlier version of {0} is known to this session.', rel)));
      return;
    }
    if (before.kind === 'refused') {
      void vscode.window.showInformationMessage(plainNotificationText(vscode.l10n.t('Pi: there is no diff for {0}: {1}.', rel, before.reason)));
      return;
    }
    // The query names the chat and the run (its checkpoint), and a counter makes each opening fetch again
    // (VS Code caches documents by URI).
    const left = vscode.Uri.file(file).with({
      scheme: BEFORE_SCHEME,
      query: new URLSearchParams({ chat: this._chatId, t: String(Date.now()), ...(runId ? { run: runId } : {}) }).toString(),
    });
    const name = path.basename(file);
    const title =
      before.kind === 'absent' ? vscode.l10n.t('{0} (none before Pi) ↔ {1}', name, name) : vscode.l10n.t("{0} (before Pi's run) ↔ {1}", name, name);
    await vscode.commands.executeCommand('vscode.diff', left, vscode.Uri.file(file), title, { preview: true });
  }

  /** Undoes the last run's change to `rel` (or all of it) and says what happened. */
  async undo(rel: string | undefined, runId?: string): Promise<void> {
    if (rel !== undefined && !this._resolve(rel)) return;
    const p = rel === undefined ? undefined : this._resolve(rel);
    const params = { ...(p !== undefined ? { path: p } : {}), ...(runId !== undefined ? { runId } : {}) };
    const result = (await this._client.call('undo', params)) ?? { ok: false, message: vscode.l10n.t('the session could not start (see Pi: Show Log)') };
    const show = result.ok ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
    void show(plainNotificationText(vscode.l10n.t('Pi: {0}', result.message)));
  }

  /** The real path of a workspace file the view named; undefined (logged) when it is outside the workspace. */
  private _resolve(rel: string): string | undefined {
    const target = linkTarget(rel, this._root());
    if (target.kind === 'file') return target.path;
    this._log.warn(`Refused to open ${JSON.stringify(rel.slice(0, 200))}: ${target.kind === 'refused' ? target.reason : 'not a file'}.`);
    return undefined;
  }

  private async _read(file: string): Promise<string> {
    try {
      return new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.file(file)));
    } catch {
      return '';
    }
  }
}
