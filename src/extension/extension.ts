/** Entry point: wires the chats (sidebar and editor tabs), the status bar, attention and the commands. */

import { formatTime, setL10nBundle } from '../shared/l10n.ts';
import * as vscode from 'vscode';
import type { CodeChip } from '../shared/chips.ts';
import { plainNotificationText } from '../shared/notificationText.ts';
import { Attention } from './attention.ts';
import { ChatViewProvider } from './chatViewProvider.ts';
import { chatFor, namesChat, sidebarTitleCommand, sidebarTitleCommands } from './chatRouting.ts';
import { CHAT_EDITOR_TYPE, Chats, type Chat } from './chats.ts';
import { fileChip, pickChip, selectionChip } from './codeContext.ts';
import { startHeartbeatFromEnv } from './heartbeat.ts';
import { contextPickerItems, droppedChips, registerContextCommands } from './context/contextCommands.ts';
import { TerminalHistory } from './context/terminal.ts';
import { registerBeforeContent } from './diffs.ts';
import { IdleChats } from './idleChats.ts';
import { idleChatMs } from './config.ts';
import type { PiClient } from './piClient.ts';
import { PlanDocuments } from './planCommands.ts';
import { registerSessionFileCommands } from './sessionActions.ts';
import { registerSessionCommands } from './sessionCommands.ts';
import { registerSignInCommands } from './signInCommands.ts';
import { registerMcpCommands } from './mcpCommands.ts';
import { McpServersView } from './mcpServersView.ts';
import { StatusBar } from './statusBar.ts';
import { keepRestoredInput, takeRestoredInput } from './restoredInputFile.ts';
import { ApprovalRulesSetting } from './approvalRulesSetting.ts';
import { registerWorktreeCommands } from './worktrees/worktreeCommands.ts';
import { registerReviewCommands } from './review/reviewCommands.ts';
import { ReviewEditor } from './review/reviewEditor.ts';
import { registerCommentCommands, ReviewComments } from './review/reviewComments.ts';

/** What `activate` returns: the sidebar chat's client and every chat, for the integration tests. */
export interface PiPanelApi {
  readonly client: PiClient;
  readonly chats: Chats;
}

/** Stops every chat's worker keeping its turn; set while the extension is active, awaited by `deactivate`. */
let stopGracefully: (() => Promise<void>) | undefined;

export function activate(context: vscode.ExtensionContext): PiPanelApi {
  // Test-only: the workbench bench's main-thread heartbeat (off unless its environment variable is set).
  const heartbeat = startHeartbeatFromEnv();
  if (heartbeat) context.subscriptions.push(heartbeat);
  // The host's pure modules (status texts, dialog mirror…) translate through the shared t(): same bundle, same rules.
  setL10nBundle(vscode.l10n.bundle, vscode.env.language);
  // The status bar's first clock time builds the date format (ICU data, 30–80 ms of this thread): here, not in the first reply.
  setTimeout(() => formatTime(Date.now()), 0);
  // l10n-ignore: the extension's name, as VS Code's own output channels keep theirs
  const log = vscode.window.createOutputChannel('Pi Agent Panel', { log: true });
  const storage = context.storageUri ?? context.globalStorageUri;
  const chats = new Chats({
    extensionUri: context.extensionUri,
    storage,
    storageDir: context.storageUri?.fsPath,
    workspaceState: context.workspaceState,
    globalState: context.globalState,
    log,
  });
  const sidebar = chats.sidebar;
  const client = sidebar.client;
  const statusBar = new StatusBar(chats);

  /** The chat the user is in, else the sidebar's: the palette's commands act on it. */
  const focused = (): Chat => chats.focused ?? sidebar;
  /** The chat a command run with `args` acts on: the chat whose view ran it (none once closed), else the focused one. */
  const target = (args: readonly unknown[]): Chat | undefined => chatFor(args, (id) => chats.byId(id), focused);
  const focusChat = () => chats.reveal(focused());
  const mcpView = new McpServersView(() => focused().client);
  const terminals = new TerminalHistory();
  const addChips = async (chips: readonly CodeChip[], prompt?: string, chat: Chat = focused()) => {
    if (!chips.length) return;
    await chats.reveal(chat);
    chips.forEach((chip, i) => chat.view.addChip(chip, i === chips.length - 1 ? prompt : undefined));
  };
  /** The chat to cancel: the focused one if it runs, else the only one running, else the user picks (undefined: none). */
  const cancelTarget = async (): Promise<Chat | undefined> => {
    const focused = chats.focused;
    if (focused && focused.phase !== 'idle') return focused;
    const running = chats.running;
    if (running.length <= 1) return running[0] ?? focused ?? sidebar;
    const pick = await vscode.window.showQuickPick(
      running.map((chat) => ({ label: chat.label, description: chat.phase, chat })),
      { title: vscode.l10n.t('Pi: Cancel Run'), placeHolder: vscode.l10n.t('Which chat’s run?') },
    );
    return pick?.chat;
  };
  const watchNotices = (chat: Chat) =>
    chat.own(
      chat.client.onDidNotify((n) => {
        const show =
          n.level === 'error'
            ? vscode.window.showErrorMessage
            : n.level === 'warning'
              ? vscode.window.showWarningMessage
              : vscode.window.showInformationMessage;
        const [restart, openChat, showLog] = [vscode.l10n.t('Restart'), vscode.l10n.t('Open Chat'), vscode.l10n.t('Show Log')];
        const actions = n.code === 'workerStopped' ? [restart, openChat, showLog] : [openChat, showLog];
        // The message may carry a provider's or tool's text: never let it become a link.
        const where = chat.number ? `${plainNotificationText(chat.label)}: ` : '';
        void show(where + plainNotificationText(n.message), ...actions).then((choice) => {
          if (choice === restart) void chat.client.worker.restart();
          if (choice === openChat) void chats.reveal(chat);
          if (choice === showLog) log.show();
        });
      }),
    );
  watchNotices(sidebar);
  const approvalRules = new ApprovalRulesSetting(log);
  // "Always allow" in any chat saves the rule in the user's settings; every chat's worker gets it from there.
  const watchRules = (chat: Chat) => chat.own(chat.client.onDidSaveApprovalRule((rule) => void approvalRules.saveAllow(rule)));
  watchRules(sidebar);
  // Pending changes in the editor: every chat's, drawn again whenever one of them changes.
  const review = new ReviewEditor(() => chats.all, context.extensionUri);
  sidebar.own(review.watch(sidebar));
  const reviewComments = new ReviewComments(
    (uri) => review.filesOf(uri).length > 0,
    () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
  );

  context.subscriptions.push(
    log,
    chats,
    statusBar,
    new Attention(chats),
    new IdleChats(chats, idleChatMs),
    registerBeforeContent((id) => chats.byId(id)?.review),
    terminals,
    chats.onDidAdd(watchNotices),
    approvalRules,
    chats.onDidAdd(watchRules),
    review,
    chats.onDidAdd((chat) => chat.own(review.watch(chat))),
    ...registerReviewCommands(review, () => chats.all, target),
    reviewComments,
    ...registerCommentCommands(reviewComments, async (text, on) => {
      // The chat whose pending changes the comments are on, else the one the user is in.
      const chat = chats.all.find((c) => on.some((uri) => c.pending.relOf(uri) !== undefined)) ?? focused();
      await chats.reveal(chat);
      await chat.client.send(vscode.l10n.t('Review comments on your changes:') + '\n' + text, chat.client.isActive ? 'followUp' : 'prompt');
    }),
    vscode.window.registerWebviewViewProvider(ChatViewProvider.viewType, sidebar.view, { webviewOptions: { retainContextWhenHidden: false } }),
    vscode.window.registerWebviewPanelSerializer(CHAT_EDITOR_TYPE, chats),
    vscode.commands.registerCommand('piPanel.newChat', () => chats.open()),
    vscode.commands.registerCommand('piPanel.openInEditor', async () => {
      const file = sidebar.client.sessionFile;
      if (!file) {
        await chats.open();
        return;
      }
      if (sidebar.phase !== 'idle') {
        void vscode.window.showInformationMessage(vscode.l10n.t('Pi: the sidebar chat is running. Wait for it or cancel it, then open it in an editor.'));
        return;
      }
      // One session, one worker: the sidebar lets go of it before the tab opens it.
      await sidebar.client.request({ name: 'newSession', params: null });
      await chats.open(file);
    }),
    vscode.commands.registerCommand('piPanel.addSelection', async () => {
      const chip = selectionChip();
      if (chip) await addChips([chip]);
    }),
    // The explorer passes the file; a chat's `@` passes its chat, whose composer gets the chip picked.
    vscode.commands.registerCommand('piPanel.addFile', async (...args: unknown[]) => {
      const chat = target(args);
      if (!chat) return;
      const chip = args[0] instanceof vscode.Uri ? await fileChip(args[0]) : await pickChip(contextPickerItems(terminals));
      if (chip) await addChips([chip], undefined, chat);
    }),
    // The chat view's drop target: not in the palette. The chips go to the chat the files were dropped on.
    vscode.commands.registerCommand('piPanel.addDropped', async (uris: readonly string[], ...args: unknown[]) => {
      const chat = target(args);
      if (chat) await addChips(await droppedChips(uris, fileChip), undefined, chat);
    }),
    ...registerContextCommands(addChips, terminals, selectionChip),
    // A view's Cancel (the sidebar's title bar) cancels its own chat; the palette's picks one (cancelTarget).
    vscode.commands.registerCommand('piPanel.cancel', async (...args: unknown[]) => (namesChat(args) ? target(args) : await cancelTarget())?.client.cancel()),
    vscode.commands.registerCommand('piPanel.cancelAll', () => Promise.all(chats.running.map((c) => c.client.cancel()))),
    vscode.commands.registerCommand('piPanel.newSession', (...args: unknown[]) => target(args)?.client.request({ name: 'newSession', params: null })),
    // The sidebar's title-bar buttons get no arguments from VS Code: each runs its palette command naming the sidebar chat.
    ...sidebarTitleCommands.map((id) => vscode.commands.registerCommand(id, () => vscode.commands.executeCommand(...sidebarTitleCommand(id, sidebar.id)))),
    vscode.commands.registerCommand('piPanel.focusChat', focusChat),
    vscode.commands.registerCommand('piPanel.find', async (...args: unknown[]) => {
      const chat = target(args);
      if (!chat) return;
      await chats.reveal(chat);
      chat.view.openFind();
    }),
    vscode.commands.registerCommand('piPanel.showLog', () => log.show()),
    vscode.commands.registerCommand('piPanel.compact', (...args: unknown[]) => target(args)?.client.call('compact', null)),
    vscode.commands.registerCommand('piPanel.clearCheckpoints', async () => {
      const clear = vscode.l10n.t('Clear Checkpoints');
      const sure = await vscode.window.showWarningMessage(
        vscode.l10n.t("Delete every checkpoint of this workspace? Restore and older runs' Undo will no longer be possible."),
        { modal: true },
        clear,
      );
      if (sure !== clear) return;
      // Each chat keeps its checkpoints in its own storage: clear them all.
      const messages = await Promise.all(chats.all.map(async (c) => (await c.client.call('clearCheckpoints', null))?.message));
      for (const message of messages) if (message) void vscode.window.showInformationMessage(plainNotificationText(vscode.l10n.t('Pi: {0}', message)));
    }),
    ...registerWorktreeCommands({ chats, target, storage: storage.fsPath, log }),
    // The palette offers Apply, Discard and Open Worktree while a worktree chat is the one in focus.
    chats.onDidChange(() => void vscode.commands.executeCommand('setContext', 'piPanel.focusedWorktree', chats.focused?.worktree !== undefined)),
    chats.onDidFocus(() => void vscode.commands.executeCommand('setContext', 'piPanel.focusedWorktree', chats.focused?.worktree !== undefined)),
    ...new PlanDocuments(target, (context.storageUri ?? context.globalStorageUri).fsPath, log).register(),
    // While Pi waits for an answer the click shows the question instead of cancelling; with several chats
    // running it goes to the one that waits (or runs) longest.
    vscode.commands.registerCommand('piPanel.statusClick', () => {
      if (chats.running.length > 1) {
        const chat = statusBar.longest();
        return chat ? chats.reveal(chat) : focusChat();
      }
      const chat = statusBar.lead();
      return chat.client.isActive && !chat.client.state.run.dialogs ? chat.client.cancel() : chats.reveal(chat);
    }),
    ...registerMcpCommands((args) => target(args)?.client),
    mcpView,
    ...mcpView.register(),
    // Another chat in focus may run in another folder (a worktree): its servers are the ones to show.
    chats.onDidFocus(() => mcpView.refresh()),
    ...registerSignInCommands((args) => {
      const chat = target(args);
      return chat && { client: chat.client, models: chat.view.models };
    }),
    ...registerSessionCommands(
      (args) => target(args)?.client,
      async (file, client) => {
        const open = chats.withSession(file);
        if (!open || open.client === client) return false;
        await chats.reveal(open);
        return true;
      },
      (file, client) => {
        const open = chats.withSession(file);
        return open && open.client !== client ? open.place : undefined;
      },
    ),
    ...registerSessionFileCommands(
      (args) => target(args)?.client,
      async (args) => {
        const chat = target(args);
        if (!chat) return;
        await chats.reveal(chat);
        chat.view.showSessions();
      },
    ),
    // Trust granted or Pi settings changed: reopen the sessions so their tools and directory follow.
    vscode.workspace.onDidGrantWorkspaceTrust(() => chats.all.forEach((c) => void c.client.reload())),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (
        e.affectsConfiguration('piPanel.tools') ||
        e.affectsConfiguration('piPanel.agentDir') ||
        e.affectsConfiguration('piPanel.checkpoints') ||
        e.affectsConfiguration('piPanel.vscodeTools') ||
        e.affectsConfiguration('piPanel.diagnosticsAfterEdit')
      )
        chats.all.forEach((c) => void c.client.reload());
      else if (e.affectsConfiguration('piPanel.approval') || e.affectsConfiguration('piPanel.approvalRules')) chats.all.forEach((c) => c.client.configure());
    }),
  );
  // The queue a stop takes back from Pi cannot reach a view that is closing: the next extension host restores it.
  const restoredFile = vscode.Uri.joinPath(storage, 'restored-input.json').fsPath;
  const left = takeRestoredInput(restoredFile, log);
  if (left) client.restoreInput(left);
  // Worktree chats whose tab was closed while they ran: VS Code brings back only tabs.
  chats.restoreBackground();
  stopGracefully = async () => {
    const keep = client.onDidRestoreInput((input) => keepRestoredInput(restoredFile, input, log));
    await chats.shutdown();
    keep.dispose();
  };
  log.info(`Pi Agent Panel activated (extension host Node ${process.versions.node}).`);
  return { client, chats };
}

/**
 * A window reload or close: the runs are aborted and saved and Pi's extensions hear `session_shutdown` before the
 * workers end (bounded well inside the ~5 s VS Code gives). Everything else is in `context.subscriptions`.
 */
export async function deactivate(): Promise<void> {
  const stop = stopGracefully;
  stopGracefully = undefined;
  await stop?.();
}
