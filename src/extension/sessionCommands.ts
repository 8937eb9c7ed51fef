/** Palette commands that act on the session: model, thinking level, resume, export. Each says why when it cannot. */

import * as vscode from 'vscode';
import { plainNotificationText } from '../shared/notificationText.ts';
import { showInvisibles } from '../shared/visibleText.ts';
import { errorText, type PiClient } from './piClient.ts';

/**
 * `target`: the client of the chat a command run with these arguments acts on (the view's that ran it, else the
 * focused one; none when that view's chat has closed); `focusOpen` shows a session a chat other than `client`'s has
 * open (true); `openElsewhere` names that chat, for the Resume Session pick's mark.
 */
export function registerSessionCommands(
  target: (args: readonly unknown[]) => PiClient | undefined,
  focusOpen: (file: string, client: PiClient) => Promise<boolean> = async () => false,
  openElsewhere: (file: string, client: PiClient) => string | undefined = () => undefined,
): vscode.Disposable[] {
  // Error text comes from Pi, a provider or the file system: shown as plain text, never as links.
  const fail = (what: string, err: unknown) => void vscode.window.showErrorMessage(plainNotificationText(vscode.l10n.t('Pi: {0}: {1}', what, errorText(err))));
  const noSession = () => void vscode.window.showErrorMessage(vscode.l10n.t('Pi: the session could not start. See Pi: Show Log.'));

  return [
    vscode.commands.registerCommand('piPanel.selectModel', async (...args: unknown[]) => {
      const client = target(args);
      if (!client) return;
      try {
        const list = await client.call('listModels', null);
        if (!list) return noSession();
        if (!list.models.length) {
          void vscode.window.showWarningMessage(
            vscode.l10n.t('Pi: no model has credentials. Run `pi` in a terminal and use /login, or set a provider API key.'),
          );
          return;
        }
        const current = list.current ?? '';
        const pick = await vscode.window.showQuickPick(
          list.models.map((m) => ({ label: m.name || m.id, description: `${m.provider}/${m.id}`, picked: `${m.provider}/${m.id}` === current, model: m })),
          {
            title: vscode.l10n.t('Pi: Select Model'),
            placeHolder: current ? vscode.l10n.t('Current: {0}', current) : vscode.l10n.t('Choose a model'),
            matchOnDescription: true,
          },
        );
        if (!pick) return;
        await client.ask('setModel', { provider: pick.model.provider, id: pick.model.id });
      } catch (err) {
        fail(vscode.l10n.t('could not change the model'), err);
      }
    }),
    vscode.commands.registerCommand('piPanel.setThinkingLevel', async (...args: unknown[]) => {
      const client = target(args);
      if (!client) return;
      try {
        const list = await client.call('thinkingLevels', null);
        if (!list) return noSession();
        const pick = await vscode.window.showQuickPick(
          list.levels.map((l) => ({ label: l, description: l === list.current ? 'current' : undefined })),
          { title: vscode.l10n.t('Pi: Set Thinking Level') },
        );
        if (!pick) return;
        await client.ask('setThinkingLevel', { level: pick.label });
      } catch (err) {
        fail(vscode.l10n.t('could not change the thinking level'), err);
      }
    }),
    vscode.commands.registerCommand('piPanel.resumeSession', async (...args: unknown[]) => {
      const client = target(args);
      if (!client) return;
      try {
        const sessions = (await client.ask('listSessions', null)).sessions;
        if (!sessions.length) {
          void vscode.window.showInformationMessage(vscode.l10n.t('Pi: there are no saved sessions for this folder yet.'));
          return;
        }
        const pick = await vscode.window.showQuickPick(
          sessions.map((info) => ({
            // A session's name comes from its file: invisible characters in it show, as in the view's list.
            label: showInvisibles(info.name || info.firstMessage.replace(/\s+/g, ' ').slice(0, 80) || vscode.l10n.t('(empty session)'), { oneLine: true }),
            description: [`${info.messageCount} messages`, ...markOpen(openElsewhere(info.path, client))].join(' · '),
            detail: new Date(info.modified).toLocaleString(vscode.env.language),
            path: info.path,
          })),
          { title: vscode.l10n.t('Pi: Resume Session'), matchOnDetail: true },
        );
        // A session open in another chat is shown there, not opened twice.
        if (pick && !(await focusOpen(pick.path, client))) await client.call('resumeSession', { file: pick.path });
      } catch (err) {
        fail(vscode.l10n.t('could not list sessions'), err);
      }
    }),
    vscode.commands.registerCommand('piPanel.exportTranscript', async (...args: unknown[]) => {
      const client = target(args);
      if (!client) return;
      try {
        if (!(await client.ensureSession())) return noSession();
        const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
        const target = await vscode.window.showSaveDialog({
          title: vscode.l10n.t('Pi: Export Transcript (HTML)'),
          filters: { HTML: ['html'] },
          saveLabel: vscode.l10n.t('Export'),
          ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, 'pi-transcript.html') } : {}),
        });
        if (!target) return;
        const file = (await client.ask('exportHtml', { file: target.fsPath })).file;
        const openLabel = vscode.l10n.t('Open');
        const choice = await vscode.window.showInformationMessage(plainNotificationText(vscode.l10n.t('Pi: transcript exported to {0}', file)), openLabel);
        if (choice === openLabel) await vscode.env.openExternal(vscode.Uri.file(file));
      } catch (err) {
        fail(vscode.l10n.t('could not export the transcript'), err);
      }
    }),
  ];
}

/** "open in Chat 2" for a session another chat has open. */
function markOpen(where: string | undefined): string[] {
  return where ? [vscode.l10n.t('open in {0}', where)] : [];
}
