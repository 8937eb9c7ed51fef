/** Entry point: wires the session controller, the chat view, the status bar and the commands. */

import * as vscode from 'vscode';
import { realScheduler } from '../shared/batcher.ts';
import { plainNotificationText } from '../shared/notificationText.ts';
import { ChatViewProvider } from './chatViewProvider.ts';
import { readConfig } from './config.ts';
import { createPiSessionFactory } from './piSessionFactory.ts';
import { registerSessionCommands } from './sessionCommands.ts';
import { SessionController } from './sessionController.ts';
import { StatusBar } from './statusBar.ts';

/** What `activate` returns: the controller, for the integration tests. */
export interface PiPanelApi {
  readonly controller: SessionController;
}

export function activate(context: vscode.ExtensionContext): PiPanelApi {
  const log = vscode.window.createOutputChannel('Pi Agent Panel', { log: true });
  const config = readConfig();
  const distDir = vscode.Uri.joinPath(context.extensionUri, 'dist').fsPath;
  const controller = new SessionController(createPiSessionFactory(distDir), log, realScheduler, {
    settleTimeoutMs: config.settleTimeoutMs,
    noResponseMs: config.noResponseMs,
    collapseThinking: config.collapseThinking,
  });
  const view = new ChatViewProvider(context.extensionUri, controller, log);
  const statusBar = new StatusBar(controller);

  const focusChat = async () => {
    await vscode.commands.executeCommand(`${ChatViewProvider.viewType}.focus`);
    view.focusComposer();
  };

  context.subscriptions.push(
    log,
    controller,
    view,
    statusBar,
    vscode.window.registerWebviewViewProvider(ChatViewProvider.viewType, view, { webviewOptions: { retainContextWhenHidden: false } }),
    controller.onDidNotify((n) => {
      const show =
        n.level === 'error' ? vscode.window.showErrorMessage : n.level === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
      // The message may carry a provider's or tool's text: never let it become a link.
      void show(plainNotificationText(n.message), 'Open Chat', 'Show Log').then((choice) => {
        if (choice === 'Open Chat') void focusChat();
        if (choice === 'Show Log') log.show();
      });
    }),
    vscode.commands.registerCommand('piPanel.cancel', () => controller.cancel()),
    vscode.commands.registerCommand('piPanel.newSession', () => controller.newSession()),
    vscode.commands.registerCommand('piPanel.focusChat', focusChat),
    vscode.commands.registerCommand('piPanel.showLog', () => log.show()),
    vscode.commands.registerCommand('piPanel.compact', () => controller.compact()),
    vscode.commands.registerCommand('piPanel.statusClick', () => (controller.isActive ? controller.cancel() : focusChat())),
    ...registerSessionCommands(controller, distDir),
    // Trust granted or Pi settings changed: reopen the session so its tools and directory follow.
    vscode.workspace.onDidGrantWorkspaceTrust(() => void controller.reload()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('piPanel.tools') || e.affectsConfiguration('piPanel.agentDir')) void controller.reload();
    }),
  );
  log.info(`Pi Agent Panel activated (extension host Node ${process.versions.node}).`);
  return { controller };
}

export function deactivate(): void {
  // Everything is in context.subscriptions, which VS Code disposes.
}
