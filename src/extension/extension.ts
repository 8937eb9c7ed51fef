/** Entry point: wires the Pi worker's client, the chat view, the status bar and the commands. */

import { setL10nBundle } from '../shared/l10n.ts';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import * as vscode from 'vscode';
import { realScheduler } from '../shared/batcher.ts';
import type { CodeChip } from '../shared/chips.ts';
import { plainNotificationText } from '../shared/notificationText.ts';
import { ChatViewProvider } from './chatViewProvider.ts';
import { ComposerImageDraft } from './composerImageDraft.ts';
import { fileChip, pickChip, selectionChip } from './codeContext.ts';
import { contextPickerItems, droppedChips, registerContextCommands } from './context/contextCommands.ts';
import { TerminalHistory } from './context/terminal.ts';
import { FileReview } from './diffs.ts';
import { ExtensionSurfaces } from './extensionSurfaces.ts';
import { PiClient } from './piClient.ts';
import { registerSessionFileCommands } from './sessionActions.ts';
import { registerSessionCommands } from './sessionCommands.ts';
import { StatusBar } from './statusBar.ts';
import { keepRestoredInput, takeRestoredInput } from './restoredInputFile.ts';
import { TurnJournalFile } from './turnJournalFile.ts';
import { workerConfig } from './workerConfig.ts';

/** What `activate` returns: the worker's client, for the integration tests. */
export interface PiPanelApi {
  readonly client: PiClient;
}

/** Stops the chat's worker keeping its turn; set while the extension is active, awaited by `deactivate`. */
let stopGracefully: (() => Promise<void>) | undefined;

export function activate(context: vscode.ExtensionContext): PiPanelApi {
  // The host's pure modules (status texts, dialog mirror…) translate through the shared t(): same bundle, same rules.
  setL10nBundle(vscode.l10n.bundle, vscode.env.language);
  // l10n-ignore: the extension's name, as VS Code's own output channels keep theirs
  const log = vscode.window.createOutputChannel('Pi Agent Panel', { log: true });
  const distDir = vscode.Uri.joinPath(context.extensionUri, 'dist').fsPath;
  // Pi runs in a worker thread started when the view first opens: loading it, its tools and its extensions
  // never block or take down the extension host that every extension shares.
  const client = new PiClient(
    (data) =>
      new Worker(path.join(distDir, 'worker.js'), {
        name: 'Pi',
        workerData: { ...data, l10n: { language: vscode.env.language, bundle: vscode.l10n.bundle ?? {} } },
      }),
    () => workerConfig(context.storageUri?.fsPath),
    log,
    realScheduler,
    {
      requestTimeoutMs: 10_000,
      pingMs: 2_000,
      hangMs: 10_000,
    },
    new TurnJournalFile(vscode.Uri.joinPath(context.storageUri ?? context.globalStorageUri, 'turn-journal.json').fsPath, log),
  );
  const review = new FileReview(client, log, () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? client.sessionInfo.cwd);
  const imageDraft = new ComposerImageDraft(vscode.Uri.joinPath(context.storageUri ?? context.globalStorageUri, 'composer-images').fsPath, log);
  const view = new ChatViewProvider(context.extensionUri, client, log, review, imageDraft);
  const statusBar = new StatusBar(client);

  const focusChat = async () => {
    await vscode.commands.executeCommand(`${ChatViewProvider.viewType}.focus`);
    view.focusComposer();
  };

  const surfaces = new ExtensionSurfaces(client, () => view.isVisible, focusChat);
  const terminals = new TerminalHistory();
  const addChips = async (chips: readonly CodeChip[], prompt?: string) => {
    if (!chips.length) return;
    await focusChat();
    chips.forEach((chip, i) => view.addChip(chip, i === chips.length - 1 ? prompt : undefined));
  };

  context.subscriptions.push(
    log,
    client,
    view,
    statusBar,
    review.register(),
    surfaces,
    terminals,
    vscode.window.registerWebviewViewProvider(ChatViewProvider.viewType, view, { webviewOptions: { retainContextWhenHidden: false } }),
    client.onDidNotify((n) => {
      const show =
        n.level === 'error' ? vscode.window.showErrorMessage : n.level === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
      const [restart, openChat, showLog] = [vscode.l10n.t('Restart'), vscode.l10n.t('Open Chat'), vscode.l10n.t('Show Log')];
      const actions = n.code === 'workerStopped' ? [restart, openChat, showLog] : [openChat, showLog];
      // The message may carry a provider's or tool's text: never let it become a link.
      void show(plainNotificationText(n.message), ...actions).then((choice) => {
        if (choice === restart) void client.restart();
        if (choice === openChat) void focusChat();
        if (choice === showLog) log.show();
      });
    }),
    vscode.commands.registerCommand('piPanel.addSelection', async () => {
      const chip = selectionChip();
      if (!chip) return;
      await focusChat();
      view.addChip(chip);
    }),
    vscode.commands.registerCommand('piPanel.addFile', async (uri?: unknown) => {
      const chip = uri instanceof vscode.Uri ? await fileChip(uri) : await pickChip(contextPickerItems(terminals));
      if (!chip) return;
      await focusChat();
      view.addChip(chip);
    }),
    // The chat view's drop target: not in the palette.
    vscode.commands.registerCommand('piPanel.addDropped', async (uris: readonly string[]) => addChips(await droppedChips(uris, fileChip))),
    ...registerContextCommands(addChips, terminals, selectionChip),
    vscode.commands.registerCommand('piPanel.cancel', () => client.cancel()),
    vscode.commands.registerCommand('piPanel.newSession', () => client.newSession()),
    vscode.commands.registerCommand('piPanel.focusChat', focusChat),
    vscode.commands.registerCommand('piPanel.showLog', () => log.show()),
    vscode.commands.registerCommand('piPanel.compact', () => client.compact()),
    // While Pi waits for an answer the click shows the question instead of cancelling.
    vscode.commands.registerCommand('piPanel.statusClick', () => (client.isActive && !client.state.run.dialogs ? client.cancel() : focusChat())),
    ...registerSessionCommands(client),
    ...registerSessionFileCommands(client, async () => {
      await vscode.commands.executeCommand(`${ChatViewProvider.viewType}.focus`);
      view.showSessions();
    }),
    // Trust granted or Pi settings changed: reopen the session so its tools and directory follow.
    vscode.workspace.onDidGrantWorkspaceTrust(() => void client.reload()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('piPanel.tools') || e.affectsConfiguration('piPanel.agentDir')) void client.reload();
      else if (e.affectsConfiguration('piPanel.approval')) client.configure();
    }),
  );
  // The queue a stop takes back from Pi cannot reach a view that is closing: the next extension host restores it.
  const restoredFile = vscode.Uri.joinPath(context.storageUri ?? context.globalStorageUri, 'restored-input.json').fsPath;
  const left = takeRestoredInput(restoredFile, log);
  if (left) client.restoreInput(left);
  stopGracefully = async () => {
    const keep = client.onDidRestoreInput((input) => keepRestoredInput(restoredFile, input, log));
    await client.shutdown();
    keep.dispose();
  };
  log.info(`Pi Agent Panel activated (extension host Node ${process.versions.node}).`);
  return { client };
}

/**
 * A window reload or close: the run is aborted and saved and Pi's extensions hear `session_shutdown` before the
 * worker ends (bounded well inside the ~5 s VS Code gives). Everything else is in `context.subscriptions`.
 */
export async function deactivate(): Promise<void> {
  const stop = stopGracefully;
  stopGracefully = undefined;
  await stop?.();
}
