/** Entry point: wires the Pi worker's client, the chat view, the status bar and the commands. */

import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import * as vscode from 'vscode';
import { realScheduler } from '../shared/batcher.ts';
import { ChatViewProvider } from './chatViewProvider.ts';
import { PiClient } from './piClient.ts';
import { registerSessionFileCommands } from './sessionActions.ts';
import { registerSessionCommands } from './sessionCommands.ts';
import { StatusBar } from './statusBar.ts';
import { workerConfig } from './workerConfig.ts';

/** What `activate` returns: the worker's client, for the integration tests. */
export interface PiPanelApi {
  readonly controller: PiClient;
}

export function activate(context: vscode.ExtensionContext): PiPanelApi {
  const log = vscode.window.createOutputChannel('Pi Agent Panel', { log: true });
  const distDir = vscode.Uri.joinPath(context.extensionUri, 'dist').fsPath;
  // Pi runs in a worker thread started when the view first opens: loading it, its tools and its extensions
  // never block or take down the extension host that every extension shares.
  const controller = new PiClient(() => new Worker(path.join(distDir, 'worker.js'), { name: 'Pi' }), workerConfig, log, realScheduler, {
    requestTimeoutMs: 10_000,
    pingMs: 2_000,
    hangMs: 10_000,
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
      const actions = n.code === 'workerStopped' ? ['Restart', 'Open Chat', 'Show Log'] : ['Open Chat', 'Show Log'];
      void show(n.message, ...actions).then((choice) => {
        if (choice === 'Restart') controller.restart();
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
    ...registerSessionCommands(controller),
    ...registerSessionFileCommands(controller, async () => {
      await vscode.commands.executeCommand(`${ChatViewProvider.viewType}.focus`);
      view.showSessions();
    }),
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
