/**
 * The host's side of the view's Sessions mode and tree: pages of saved sessions, open, rename, delete to the
 * OS trash after a confirmation, and the palette commands for import, JSONL export and copying the last answer.
 */

import * as vscode from 'vscode';
import type { HostToWebview } from '../shared/wire/webviewProtocol.ts';
import { sessionTitle } from '../shared/sessions.ts';
import { showInvisibles } from '../shared/visibleText.ts';
import { errorText, type Logger, type PiClient } from './piClient.ts';

export class SessionActions {
  /** Session files the view was shown: the only ones it may open, rename or delete. */
  private readonly _listed = new Map<string, string>();
  private readonly _client: PiClient;
  private readonly _post: (msg: HostToWebview) => void;
  private readonly _log: Logger;

  /** Shows a session another chat has open, true when one has; such a session is not opened twice. */
  focusOpen: (file: string) => Promise<boolean> = async () => false;
  /** The name of the other chat that has a session open ("the sidebar", "Chat 2"); none when no other has. */
  openElsewhere: (file: string) => string | undefined = () => undefined;

  constructor(client: PiClient, post: (msg: HostToWebview) => void, log: Logger) {
    this._client = client;
    this._post = post;
    this._log = log;
  }

  /** The search the view last asked for: a refresh after a rename or delete repeats it. */
  private _query = '';

  /** The marks the view was last sent for the listed sessions: `openIn`, as JSON. */
  private _marks = '{}';

  async list(query: string, offset: number): Promise<void> {
    this._query = query;
    if (offset === 0) this._listed.clear();
    const page = await this._client.ask('sessionPage', { query, offset });
    // Its title, for the delete confirmation: invisible characters in a name show there as in the list.
    for (const s of page.sessions) this._listed.set(s.path, showInvisibles(sessionTitle(s), { oneLine: true }));
    const marks = this._openIn([...this._listed.keys()]);
    this._marks = JSON.stringify(marks);
    const openIn: Record<string, string> = {};
    for (const s of page.sessions) if (marks[s.path]) openIn[s.path] = marks[s.path];
    this._post({ type: 'sessions', page: Object.keys(openIn).length ? { ...page, openIn } : page });
  }

  /** Another chat opened or left a session, or was renamed: the listed sessions' marks follow, when they changed. */
  refreshMarks(): void {
    if (!this._listed.size) return;
    const openIn = this._openIn([...this._listed.keys()]);
    const marks = JSON.stringify(openIn);
    if (marks === this._marks) return;
    this._marks = marks;
    this._post({ type: 'sessionsOpenIn', openIn });
  }

  private _openIn(files: readonly string[]): Record<string, string> {
    const openIn: Record<string, string> = {};
    for (const file of files) {
      const where = file === this._client.sessionFile ? undefined : this.openElsewhere(file);
      if (where) openIn[file] = where;
    }
    return openIn;
  }

  async open(file: string): Promise<void> {
    if (!this._known(file)) return;
    this._post({ type: 'showMode', mode: 'chat' });
    if (file !== this._client.sessionFile && (await this.focusOpen(file))) return;
    await this._client.call('resumeSession', { file });
  }

  async rename(file: string, name: string): Promise<void> {
    if (!this._known(file)) return;
    await this._client.ask('renameSession', { name: name.trim(), file });
  }

  /** Asks first; the file goes to the OS trash (VS Code's), so a mistake can be undone there. */
  async delete(file: string): Promise<boolean> {
    if (!this._known(file)) return false;
    const title = this._listed.get(file) ?? file;
    if (file === this._client.sessionFile) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Pi: this session is open. Open or start another one before deleting it.'));
      return false;
    }
    const deleteLabel = vscode.l10n.t('Delete');
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t('Delete the Pi session "{0}"?', title),
      { modal: true, detail: vscode.l10n.t('It goes to the trash.') },
      deleteLabel,
    );
    if (choice !== deleteLabel) return false;
    try {
      await vscode.workspace.fs.delete(vscode.Uri.file(file), { useTrash: true });
      this._listed.delete(file);
      return true;
    } catch (err) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Pi: could not delete the session: {0}', errorText(err)));
      return false;
    }
  }

  /** Lists the first page of the last search again (a session was renamed or deleted). */
  refresh(): Promise<void> {
    return this.list(this._query, 0);
  }

  async showTree(): Promise<void> {
    this._post({ type: 'sessionTree', nodes: (await this._client.ask('sessionTree', null)).nodes });
  }

  private _known(file: string): boolean {
    if (this._listed.has(file)) return true;
    this._log.warn('The view named a session file it was not shown; ignored.');
    return false;
  }
}

/**
 * Palette commands on the open session: name it, import and export JSONL, copy the last answer, show the list.
 * `target`: the client of the chat a command run with these arguments acts on (the view's that ran it, else the
 * focused one; none when that view's chat has closed); `showSessions` shows that chat's Sessions list.
 */
export function registerSessionFileCommands(
  target: (args: readonly unknown[]) => PiClient | undefined,
  showSessions: (args: readonly unknown[]) => unknown,
): vscode.Disposable[] {
  const fail = (what: string, err: unknown) => void vscode.window.showErrorMessage(vscode.l10n.t('Pi: {0}: {1}', what, errorText(err)));
  return [
    vscode.commands.registerCommand('piPanel.showSessions', (...args: unknown[]) => showSessions(args)),
    vscode.commands.registerCommand('piPanel.renameSession', async (...args: unknown[]) => {
      const client = target(args);
      if (!client) return;
      try {
        const name = await vscode.window.showInputBox({
          title: vscode.l10n.t('Pi: Name Session'),
          value: client.sessionInfo.name ?? '',
          prompt: vscode.l10n.t('A name for this session'),
        });
        if (name?.trim()) await client.ask('renameSession', { name: name.trim() });
      } catch (err) {
        fail(vscode.l10n.t('could not name the session'), err);
      }
    }),
    vscode.commands.registerCommand('piPanel.importSession', async (...args: unknown[]) => {
      const client = target(args);
      if (!client) return;
      const picked = await vscode.window.showOpenDialog({
        title: vscode.l10n.t('Pi: Import Session'),
        filters: { 'Pi session': ['jsonl'] },
        canSelectMany: false,
      });
      if (picked?.[0]) await client.call('importSession', { file: picked[0].fsPath });
    }),
    vscode.commands.registerCommand('piPanel.exportJsonl', async (...args: unknown[]) => {
      const client = target(args);
      if (!client) return;
      try {
        const name = sessionTitle({ name: client.sessionInfo.name, firstMessage: 'session' }).replace(/[^\w.-]+/g, '-');
        const target = await vscode.window.showSaveDialog({
          title: vscode.l10n.t('Pi: Export Session (JSONL)'),
          filters: { 'Pi session': ['jsonl'] },
          saveLabel: vscode.l10n.t('Export'),
          defaultUri: defaultUri(`${name}.jsonl`),
        });
        if (!target) return;
        const file = (await client.ask('exportJsonl', { file: target.fsPath })).file;
        void vscode.window.showInformationMessage(vscode.l10n.t('Pi: session exported to {0}', file));
      } catch (err) {
        fail(vscode.l10n.t('could not export the session'), err);
      }
    }),
    vscode.commands.registerCommand('piPanel.copyLastAnswer', async (...args: unknown[]) => {
      const client = target(args);
      if (!client) return;
      try {
        const text = (await client.ask('lastAnswer', null)).text;
        if (!text) {
          void vscode.window.showInformationMessage(vscode.l10n.t('Pi: there is no answer to copy yet.'));
          return;
        }
        await vscode.env.clipboard.writeText(text);
        void vscode.window.showInformationMessage(vscode.l10n.t('Pi: last answer copied.'));
      } catch (err) {
        fail(vscode.l10n.t('could not copy the last answer'), err);
      }
    }),
  ];
}

function defaultUri(name: string): vscode.Uri | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  return folder ? vscode.Uri.joinPath(folder, name) : undefined;
}
