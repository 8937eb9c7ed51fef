/** Worktree chats' commands: New Chat in Worktree, Apply to Workspace, Discard, Open Worktree in New Window, Clean Up Worktrees and the Chats list. */

import * as path from 'node:path';
import * as vscode from 'vscode';
import { plainNotificationText } from '../../shared/notificationText.ts';
import type { Chat, Chats } from '../chats.ts';
import {
  applyWorktree,
  createWorktree,
  defaultWorktreeFolder,
  inspectRepo,
  isDirty,
  listWorktrees,
  removeWorktree,
  worktreeChanges,
  WorktreeError,
  type WorktreeChange,
  type WorktreeInfo,
} from './worktreeGit.ts';
import { mergeWorktree } from './worktreeMerge.ts';

/** The choice cards' answers: their buttons' `data-choice`, which e2e cases click by (a stable test hook); the card shows them translated. */
// l10n-ignore: the answers' English, as the worker's cards keep theirs
const APPLY = 'Apply';
// l10n-ignore: as above
const MERGE = 'Merge Branch';
// l10n-ignore: as above
const DISCARD = 'Discard';
// l10n-ignore: as above
const CANCEL = 'Cancel';

/** Files a card or message names before it says "and N more". */
const LISTED = 20;

/** What the commands need of the extension. */
export interface WorktreeCommandsContext {
  readonly chats: Chats;
  /** The chat a command run with `args` acts on (see chatRouting.ts). */
  readonly target: (args: readonly unknown[]) => Chat | undefined;
  /** The extension's storage folder: worktrees go to its `worktrees` unless `piPanel.worktreeFolder` says otherwise. */
  readonly storage: string;
  readonly log: vscode.LogOutputChannel;
}

const say = (text: string) => void vscode.window.showInformationMessage(plainNotificationText(vscode.l10n.t('Pi: {0}', text)));
const warn = (text: string, ...buttons: string[]) => vscode.window.showWarningMessage(plainNotificationText(vscode.l10n.t('Pi: {0}', text)), ...buttons);

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** `files` as a short list: the first `LISTED`, then how many more. */
function listed(files: readonly string[]): string {
  const shown = files.slice(0, LISTED).join(', ');
  return files.length > LISTED ? vscode.l10n.t('{0} and {1} more', shown, files.length - LISTED) : shown;
}

const changeLine = (c: WorktreeChange) => `${c.status} ${c.path}`;

/** The folder worktrees are made in: `piPanel.worktreeFolder`, else the extension's storage. */
function worktreeFolder(storage: string): string {
  const set = vscode.workspace.getConfiguration('piPanel').get<string>('worktreeFolder', '')?.trim();
  return set ? set : defaultWorktreeFolder(storage);
}

/** Has VS Code's git extension read the repository of `uri` again, so its merge editor knows the merge just left in progress. */
async function refreshGitStatus(uri: vscode.Uri): Promise<void> {
  try {
    const git = vscode.extensions.getExtension<{ getAPI(v: 1): { getRepository(u: vscode.Uri): { status(): Promise<void> } | null } }>('vscode.git');
    if (!git || !vscode.workspace.getConfiguration('git').get<boolean>('enabled', true)) return;
    const api = (git.isActive ? git.exports : await git.activate()).getAPI(1);
    await api.getRepository(uri)?.status();
  } catch {
    // Git turned off or its API changed: the files opened with their conflict markers are the way to resolve.
  }
}

export function registerWorktreeCommands(ctx: WorktreeCommandsContext): vscode.Disposable[] {
  const { chats, target, log } = ctx;

  /** The worktree chat a command acts on; says so when it is not one. */
  const worktreeChat = (args: readonly unknown[]): (Chat & { readonly worktree: WorktreeInfo }) | undefined => {
    const chat = target(args);
    if (chat?.worktree) return chat as Chat & { readonly worktree: WorktreeInfo };
    say(vscode.l10n.t('this chat works in the workspace, not in a worktree.'));
    return undefined;
  };

  const newChatInWorktree = async (): Promise<Chat | undefined> => {
    const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
    if (!folder) return void say(vscode.l10n.t('open a folder in a git repository to start a worktree chat.'));
    // Git runs the repository's hooks when it checks a worktree out: never for a folder the user does not trust.
    if (!vscode.workspace.isTrusted) return void say(vscode.l10n.t('worktree chats need a trusted workspace (git runs its hooks). Trust it first.'));
    try {
      const repo = await inspectRepo(folder.uri.fsPath);
      let carry = false;
      if (await isDirty(repo.root)) {
        const fromHead = { label: vscode.l10n.t('Start from the last commit'), description: repo.head.slice(0, 8), carry: false };
        const withChanges = { label: vscode.l10n.t('Bring my uncommitted changes'), description: vscode.l10n.t('the workspace keeps them too'), carry: true };
        const pick = await vscode.window.showQuickPick([fromHead, withChanges], {
          title: vscode.l10n.t('Pi: New Chat in Worktree'),
          placeHolder: vscode.l10n.t('The workspace has uncommitted changes. Start the worktree with them?'),
        });
        if (!pick) return undefined;
        carry = pick.carry;
      }
      const info = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Pi: making a worktree…') }, () =>
        createWorktree({ dir: repo.root, folder: worktreeFolder(ctx.storage), carry }),
      );
      log.info(`Worktree chat: ${info.branch} at ${info.path} from ${info.base}.`);
      const chat = await chats.open(undefined, info);
      // No chat could open (piPanel.maxChats): the worktree, still as it was made, is not left behind.
      if (!chat) await removeWorktree(info);
      return chat;
    } catch (err) {
      if (!(err instanceof WorktreeError)) log.error(`New chat in worktree failed: ${errorText(err)}`);
      void warn(errorText(err));
      return undefined;
    }
  };

  const apply = async (...args: unknown[]): Promise<void> => {
    const chat = worktreeChat(args);
    if (!chat) return;
    const info = chat.worktree;
    // Half a run's edits are not what the user wants in the workspace.
    if (chat.phase !== 'idle') return say(vscode.l10n.t('Pi is still working in {0}. Apply once its run has ended (or cancel it).', info.branch));
    try {
      const changes = await worktreeChanges(info);
      if (!changes.length) return say(vscode.l10n.t('{0} has no changes to apply.', info.branch));
      const answer = await chat.client.ask('askPanel', {
        title: vscode.l10n.t('Apply the changes of {0} to the workspace?', info.branch),
        message:
          vscode.l10n.t(
            'These files change in the workspace, as uncommitted changes: {0}. Files you changed there are merged line by line; if any conflicts, nothing is written and the conflicting files are named.',
            listed(changes.map(changeLine)),
          ) +
          '\n\n' +
          vscode.l10n.t('Merge Branch instead commits them on {0} and merges it into your current branch; a conflict opens the merge editor.', info.branch),
        options: [APPLY, MERGE, CANCEL],
      });
      if (answer.answer === MERGE) return await mergeBranch(chat);
      if (answer.answer !== APPLY) return;
      const result = await applyWorktree(info, info.repo);
      if (result.conflicts.length) {
        const open = vscode.l10n.t('Open Worktree in New Window');
        const choice = await warn(
          vscode.l10n.t(
            'nothing was applied from {0}: {1} conflict with the workspace ({2}). The workspace and the worktree are unchanged; resolve them in the worktree and apply again.',
            info.branch,
            result.conflicts.length,
            listed(result.conflicts),
          ),
          open,
        );
        if (choice === open) await openWindow(info);
        return;
      }
      say(vscode.l10n.t('applied {0} from {1} to the workspace as uncommitted changes: {2}.', result.applied.length, info.branch, listed(result.applied)));
    } catch (err) {
      void warn(errorText(err));
    }
  };

  /** Apply by merging: the worktree's work committed on its branch, merged into the workspace's branch; a conflict opens the merge editor. */
  const mergeBranch = async (chat: Chat & { readonly worktree: WorktreeInfo }): Promise<void> => {
    const info = chat.worktree;
    const result = await mergeWorktree(info, info.repo, chat.label);
    if (result.conflicts.length) {
      await openConflicts(info.repo, result.conflicts);
      void warn(
        vscode.l10n.t(
          'merging {0} into the workspace stopped at {1} conflict(s): {2}. The merge is in progress: resolve them and commit, or run git merge --abort. Both sides keep their commits.',
          info.branch,
          result.conflicts.length,
          listed(result.conflicts),
        ),
      );
      return;
    }
    if (!result.files.length) return say(vscode.l10n.t('{0} has no changes to apply.', info.branch));
    say(vscode.l10n.t('merged {0} into the workspace’s branch: {1} file(s) ({2}).', info.branch, result.files.length, listed(result.files)));
  };

  const discard = async (...args: unknown[]): Promise<void> => {
    const chat = worktreeChat(args);
    if (!chat) return;
    const info = chat.worktree;
    // A worktree deleted by hand has nothing left to lose but its branch.
    const changes = await worktreeChanges(info).catch(() => undefined);
    const answer = await chat.client
      .ask('askPanel', {
        title: vscode.l10n.t('Discard the worktree {0}?', info.branch),
        message: changes?.length
          ? vscode.l10n.t(
              'Its folder and its branch are deleted, and with them these changes, not applied to the workspace: {0}.',
              listed(changes.map(changeLine)),
            )
          : vscode.l10n.t('Its folder ({0}) and its branch are deleted. It has no changes.', info.path),
        options: [DISCARD, CANCEL],
      })
      .catch((err: unknown) => {
        void warn(errorText(err));
        return undefined;
      });
    if (answer?.answer !== DISCARD) return;
    try {
      // Its Pi and the processes it started work in the folder: they end first.
      await chat.client.shutdown();
      await removeWorktree(info);
      chats.close(chat);
      say(vscode.l10n.t('discarded the worktree {0}.', info.branch));
    } catch (err) {
      void warn(errorText(err));
    }
  };

  /** The conflicting files, with their markers, then the first in VS Code's merge editor. */
  const openConflicts = async (root: string, files: readonly string[]): Promise<void> => {
    const uris = files.slice(0, LISTED).map((f) => vscode.Uri.file(path.join(root, f)));
    for (const uri of uris) await Promise.resolve(vscode.commands.executeCommand('vscode.open', uri, { preview: false })).catch(() => undefined);
    // The git extension's merge editor, when it knows the repository; it does nothing otherwise, and the files
    // opened above show their conflict markers (with VS Code's own "Resolve in Merge Editor").
    if (!uris[0]) return;
    await refreshGitStatus(uris[0]);
    await Promise.resolve(vscode.commands.executeCommand('git.openMergeEditor', uris[0])).catch((err: unknown) =>
      log.info(`No merge editor: ${errorText(err)}`),
    );
  };

  const openWindow = async (info: WorktreeInfo): Promise<void> => {
    await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(info.path), { forceNewWindow: true });
  };

  const cleanUp = async (): Promise<void> => {
    const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
    if (!folder) return;
    try {
      const held = new Set(chats.all.map((c) => c.worktree?.path).filter((p): p is string => p !== undefined));
      const left = (await listWorktrees(folder.uri.fsPath)).filter((w) => !held.has(w.path));
      if (!left.length) return say(vscode.l10n.t('no worktree is left over: every pi/ worktree belongs to an open chat.'));
      const picks = await vscode.window.showQuickPick(
        left.map((w) => ({ label: w.branch, description: w.missing ? vscode.l10n.t('{0} (folder missing)', w.path) : w.path, worktree: w })),
        { canPickMany: true, title: vscode.l10n.t('Pi: Clean Up Worktrees'), placeHolder: vscode.l10n.t('Worktrees no open chat uses: which to delete?') },
      );
      if (!picks?.length) return;
      const remove = vscode.l10n.t('Delete');
      const sure = await vscode.window.showWarningMessage(
        vscode.l10n.t(
          'Delete {0} worktree(s) and their branches ({1})? Changes not applied to the workspace are lost.',
          picks.length,
          picks.map((p) => p.label).join(', '),
        ),
        { modal: true },
        remove,
      );
      if (sure !== remove) return;
      const repo = (await inspectRepo(folder.uri.fsPath)).root;
      for (const { worktree } of picks) await removeWorktree({ path: worktree.path, branch: worktree.branch, base: '', repo });
      say(vscode.l10n.t('deleted {0} worktree(s).', picks.length));
    } catch (err) {
      void warn(errorText(err));
    }
  };

  const showChats = async (): Promise<void> => {
    const pick = await vscode.window.showQuickPick(
      chats.all.map((chat) => ({
        label: chat.label,
        description: [chat.phase, chat.worktree?.branch, chat.number && !chat.panel ? vscode.l10n.t('no tab: runs in the background') : undefined]
          .filter(Boolean)
          .join(' · '),
        chat,
      })),
      { title: vscode.l10n.t('Pi: Show Chats'), placeHolder: vscode.l10n.t('Which chat to open?') },
    );
    if (pick) await chats.reveal(pick.chat);
  };

  return [
    vscode.commands.registerCommand('piPanel.newChatInWorktree', newChatInWorktree),
    vscode.commands.registerCommand('piPanel.applyWorktree', apply),
    vscode.commands.registerCommand('piPanel.discardWorktree', discard),
    vscode.commands.registerCommand('piPanel.openWorktreeWindow', async (...args: unknown[]) => {
      const chat = worktreeChat(args);
      if (chat) await openWindow(chat.worktree);
    }),
    vscode.commands.registerCommand('piPanel.cleanUpWorktrees', cleanUp),
    vscode.commands.registerCommand('piPanel.showChats', showChats),
  ];
}
