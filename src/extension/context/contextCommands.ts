/** The commands that point Pi at what VS Code knows (terminal, changes, folders, dropped files, "Ask Pi to Fix"), and their `@` picker items. */

import * as vscode from 'vscode';
import type { CodeChip } from '../../shared/chips.ts';
import { AskPiToFixProvider, ASK_TO_FIX_COMMAND, askToFixChips } from './askPiToFix.ts';
import { changesChip } from './gitChanges.ts';
import type { TerminalHistory } from './terminal.ts';
import { folderChip, pickFolderChip } from './workspaceFolderTree.ts';

/** Puts chips in the chat's composer (opening it first); `prompt` goes into an empty composer. */
export type AddChips = (chips: readonly CodeChip[], prompt?: string) => Promise<void>;

/** An item the `@` picker offers above the files: choosing it makes a chip. */
export interface PickerItem extends vscode.QuickPickItem {
  make(): Promise<CodeChip | undefined>;
}

/** Most files and folders one drop adds. */
const MAX_DROPPED = 20;

/** The `@` picker's context items: each terminal, the changes, a folder. */
export function contextPickerItems(terminals: TerminalHistory): PickerItem[] {
  const open = terminals.names();
  return [
    // With no terminal open, choosing it says how to get one.
    ...(open.length ? [] : [{ label: '@terminal', description: vscode.l10n.t('the last command run in a terminal'), make: () => terminals.chip() }]),
    ...open.map((t) => ({
      label: t.active ? '@terminal' : `@terminal:${t.name}`,
      description: t.detail ?? vscode.l10n.t('terminal "{0}": its last command and output', t.name),
      make: () => terminals.chip(t.name),
    })),
    { label: '@changes', description: vscode.l10n.t('uncommitted changes (staged and not staged)'), make: () => changesChip(false) },
    { label: '@changes:staged', description: 'staged changes', make: () => changesChip(true) },
    { label: '@folder', description: vscode.l10n.t("a folder's file tree"), make: pickFolderChip },
  ];
}

/** Files and folders dropped on the composer (URIs as the workbench gives them), each as the chip `@` makes. */
export async function droppedChips(uris: readonly string[], fileChip: (uri: vscode.Uri) => Promise<CodeChip | undefined>): Promise<CodeChip[]> {
  const chips: CodeChip[] = [];
  for (const raw of uris.slice(0, MAX_DROPPED)) {
    let uri: vscode.Uri;
    try {
      uri = vscode.Uri.parse(raw, true);
      const stat = await vscode.workspace.fs.stat(uri);
      const chip = stat.type & vscode.FileType.Directory ? await folderChip(uri) : await fileChip(uri);
      if (chip) chips.push(chip);
    } catch {
      void vscode.window.showInformationMessage(vscode.l10n.t('Pi: {0} cannot be read, so it was not added.', raw));
    }
  }
  if (uris.length > MAX_DROPPED) void vscode.window.showInformationMessage(vscode.l10n.t('Pi: only the first {0} dropped items were added.', MAX_DROPPED));
  return chips;
}

/** Registers the commands and the quick fix; `selectionChip` is Add Selection's, reused by "Ask Pi to Fix". */
export function registerContextCommands(addChips: AddChips, terminals: TerminalHistory, selectionChip: () => CodeChip | undefined): vscode.Disposable[] {
  const add = async (chip: CodeChip | undefined) => {
    if (chip) await addChips([chip]);
  };
  return [
    vscode.commands.registerCommand('piPanel.addTerminalOutput', async (arg?: unknown) => {
      const name = arg && typeof arg === 'object' && 'name' in arg && typeof arg.name === 'string' ? arg.name : typeof arg === 'string' ? arg : undefined;
      await add(await terminals.chip(name));
    }),
    vscode.commands.registerCommand('piPanel.addChanges', async () => add(await changesChip(false))),
    vscode.commands.registerCommand('piPanel.addStagedChanges', async () => add(await changesChip(true))),
    vscode.commands.registerCommand('piPanel.addFolder', async (uri?: unknown) =>
      add(uri instanceof vscode.Uri ? await folderChip(uri) : await pickFolderChip()),
    ),
    vscode.commands.registerCommand(ASK_TO_FIX_COMMAND, async (arg?: unknown) => {
      const fix = await askToFixChips(arg, selectionChip);
      if (fix) await addChips(fix.chips, fix.prompt);
    }),
    vscode.languages.registerCodeActionsProvider('*', new AskPiToFixProvider(), { providedCodeActionKinds: AskPiToFixProvider.kinds }),
  ];
}
