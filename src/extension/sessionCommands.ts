/** Palette commands that act on the session: model, thinking level, resume, export. Each says why when it cannot. */

import * as vscode from 'vscode';
import { plainNotificationText } from '../shared/notificationText.ts';
import { loadPi } from './piLoader.ts';
import { piLocation } from './piSessionFactory.ts';
import { listPiSessions } from './piSessions.ts';
import { errorText, type SessionController } from './sessionController.ts';

export function registerSessionCommands(controller: SessionController, distDir: string): vscode.Disposable[] {
  const session = async () => {
    const s = await controller.ensureSession();
    if (!s) void vscode.window.showErrorMessage('Pi: the session could not start. See Pi: Show Log.');
    return s;
  };

  // Error text comes from Pi, a provider or the file system: shown as plain text, never as links.
  const fail = (what: string, err: unknown) => void vscode.window.showErrorMessage(plainNotificationText(`Pi: ${what}: ${errorText(err)}`));

  return [
    vscode.commands.registerCommand('piPanel.selectModel', async () => {
      const s = await session();
      if (!s) return;
      try {
        const models = await s.modelRuntime.getAvailable();
        if (!models.length) {
          void vscode.window.showWarningMessage('Pi: no model has credentials. Run `pi` in a terminal and use /login, or set a provider API key.');
          return;
        }
        const current = s.model ? `${s.model.provider}/${s.model.id}` : '';
        const pick = await vscode.window.showQuickPick(
          models.map((m) => ({ label: m.name || m.id, description: `${m.provider}/${m.id}`, picked: `${m.provider}/${m.id}` === current, model: m })),
          { title: 'Pi: Select Model', placeHolder: current ? `Current: ${current}` : 'Choose a model', matchOnDescription: true },
        );
        if (!pick) return;
        await s.setModel(pick.model);
        controller.refreshSessionInfo();
      } catch (err) {
        fail('could not change the model', err);
      }
    }),
    vscode.commands.registerCommand('piPanel.setThinkingLevel', async () => {
      const s = await session();
      if (!s) return;
      const levels = s.getAvailableThinkingLevels();
      const pick = await vscode.window.showQuickPick(
        levels.map((l) => ({ label: l, description: l === s.thinkingLevel ? 'current' : undefined })),
        { title: 'Pi: Set Thinking Level' },
      );
      if (!pick) return;
      try {
        s.setThinkingLevel(pick.label as Parameters<typeof s.setThinkingLevel>[0]);
        controller.refreshSessionInfo();
      } catch (err) {
        fail('could not change the thinking level', err);
      }
    }),
    vscode.commands.registerCommand('piPanel.resumeSession', async () => {
      try {
        const pi = loadPi(distDir);
        const { cwd, agentDir } = piLocation(distDir);
        const sessions = await listPiSessions(pi, cwd, agentDir);
        if (!sessions.length) {
          void vscode.window.showInformationMessage('Pi: there are no saved sessions for this folder yet.');
          return;
        }
        const pick = await vscode.window.showQuickPick(
          sessions.map((info) => ({
            label: info.name || info.firstMessage.replace(/\s+/g, ' ').slice(0, 80) || '(empty session)',
            description: `${info.messageCount} messages`,
            detail: info.modified.toLocaleString(),
            path: info.path,
          })),
          { title: 'Pi: Resume Session', matchOnDetail: true },
        );
        if (pick) await controller.resumeSession(pick.path);
      } catch (err) {
        fail('could not list sessions', err);
      }
    }),
    vscode.commands.registerCommand('piPanel.exportTranscript', async () => {
      const s = await session();
      if (!s) return;
      try {
        const file = await s.exportToHtml();
        const choice = await vscode.window.showInformationMessage(plainNotificationText(`Pi: transcript exported to ${file}`), 'Open');
        if (choice === 'Open') await vscode.env.openExternal(vscode.Uri.file(file));
      } catch (err) {
        fail('could not export the transcript', err);
      }
    }),
  ];
}
