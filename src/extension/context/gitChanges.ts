/** `@changes` / `@changes:staged`: the working tree's uncommitted diff through the built-in Git extension's API (no shelling out). */

import * as vscode from 'vscode';
import type { CodeChip } from '../../shared/chips.ts';
import { changesText } from './changesText.ts';
import { GIT_UNTRACKED, type GitApi, type GitExtension, type GitRepository } from './gitApi.ts';

/** How long to wait for the Git extension to finish opening the workspace's repositories. */
const GIT_READY_MS = 10_000;

const tell = (message: string): undefined => {
  void vscode.window.showInformationMessage(message);
  return undefined;
};

async function gitApi(): Promise<GitApi | string> {
  const ext = vscode.extensions.getExtension<GitExtension>('vscode.git');
  if (!ext) return vscode.l10n.t('Pi: the built-in Git extension is not available, so Pi cannot read your changes.');
  const git = ext.isActive ? ext.exports : await ext.activate();
  if (!git.enabled) return vscode.l10n.t('Pi: Git is turned off in VS Code (setting git.enabled), so Pi cannot read your changes.');
  const api = git.getAPI(1);
  if (api.state !== 'initialized') {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, GIT_READY_MS);
      const sub = api.onDidChangeState((s) => s === 'initialized' && done());
      function done(): void {
        clearTimeout(timer);
        sub.dispose();
        resolve();
      }
    });
  }
  return api;
}

async function repositoryFor(api: GitApi): Promise<GitRepository | undefined> {
  const editor = vscode.window.activeTextEditor?.document.uri;
  const folder = (editor && vscode.workspace.getWorkspaceFolder(editor)) ?? vscode.workspace.workspaceFolders?.[0];
  if (!folder) return undefined;
  const known = api.getRepository(folder.uri);
  if (known) return known;
  // The Git extension may not have opened this folder's repository yet (or only scans parents lazily).
  return (await api.openRepository?.(folder.uri)) ?? undefined;
}

/** The chip for the uncommitted changes (`stagedOnly`: what is staged), or a message saying why there is none. */
export async function changesChip(stagedOnly: boolean): Promise<CodeChip | undefined> {
  const api = await gitApi();
  if (typeof api === 'string') return tell(api);
  const repo = await repositoryFor(api);
  if (!repo) return tell(vscode.l10n.t('Pi: this workspace is not in a Git repository that VS Code has open.'));
  // The state's lists lag file changes until the extension refreshes; the diffs themselves are read fresh.
  await repo.status().catch(() => undefined);
  const [staged, unstaged] = await Promise.all([repo.diff(true), stagedOnly ? Promise.resolve('') : repo.diff(false)]);
  const untrackedChanges = [...(repo.state.untrackedChanges ?? []), ...repo.state.workingTreeChanges.filter((c) => c.status === GIT_UNTRACKED)];
  const untracked = [...new Set(untrackedChanges.map((c) => vscode.workspace.asRelativePath(c.uri, false)))].sort();
  const result = changesText({ stagedOnly, staged, unstaged, untracked });
  if (!result) return tell(stagedOnly ? vscode.l10n.t('Pi: nothing is staged.') : vscode.l10n.t('Pi: there are no uncommitted changes.'));
  return { kind: 'changes', path: stagedOnly ? 'staged' : '', text: result.text, detail: result.detail };
}
