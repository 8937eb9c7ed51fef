/** `@folder` on the workspace: the tree read through `workspace.fs`, `files.exclude` matched as VS Code globs, and the folder picker. */

import * as path from 'node:path';
import { minimatch } from 'minimatch';
import * as vscode from 'vscode';
import type { CodeChip } from '../../shared/chips.ts';
import { realPath, realPathInside } from '../linkTarget.ts';
import { folderTree, type TreeFs } from './folderTree.ts';
import { GitignoreRules } from './gitignore.ts';

const MAX_PICK_FILES = 5000;

// Git on a case-insensitive file system sets core.ignorecase.
const IGNORE_CASE = process.platform === 'darwin' || process.platform === 'win32';

/** `files.exclude`'s patterns that are on (`true`; a `when` condition is not evaluated, so those stay shown). */
function excludedBy(folder: vscode.WorkspaceFolder): (rel: string) => boolean {
  const patterns = Object.entries(vscode.workspace.getConfiguration('files', folder.uri).get<Record<string, unknown>>('exclude') ?? {})
    .filter(([, on]) => on === true)
    .map(([glob]) => glob);
  return (rel) => patterns.some((glob) => minimatch(rel, glob, { dot: true, nocase: IGNORE_CASE }));
}

/** The workspace folder `root` for `folderTree`; symlinked folders are followed only where their real path stays in it. */
function treeFs(root: vscode.Uri): TreeFs {
  const at = (rel: string) => (rel ? vscode.Uri.joinPath(root, ...rel.split('/')) : root);
  // Real paths exist only on disk; elsewhere no symlinked folder is followed.
  const onDisk = root.scheme === 'file';
  return {
    async readDir(rel) {
      const entries = await vscode.workspace.fs.readDirectory(at(rel));
      return entries.map(([name, type]) => [name, (type & vscode.FileType.Directory) !== 0, (type & vscode.FileType.SymbolicLink) !== 0] as const);
    },
    ...(onDisk && {
      realPath: async (rel: string) => {
        const real = realPathInside(at(rel).fsPath, [root.fsPath]);
        return real === undefined ? undefined : path.relative(realPath(root.fsPath), real).split(path.sep).join('/');
      },
    }),
    async readText(rel) {
      try {
        return new TextDecoder().decode(await vscode.workspace.fs.readFile(at(rel)));
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * The workspace folder holding `uri`, when its real path is inside one (as links require: a symlink out of the
 * workspace is outside); otherwise undefined, and the user is told it was not added. A drop or a view message can
 * name any `file:` URI (`~/.ssh/id_rsa`), so every file and folder chip asks this first.
 */
export function workspaceFolderOf(uri: vscode.Uri): vscode.WorkspaceFolder | undefined {
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  // Only file: folders have real paths to compare; another scheme has no symlinks the host could follow.
  const roots = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  const inside = uri.scheme === 'file' ? realPathInside(uri.fsPath, roots) !== undefined : folder !== undefined;
  if (folder && inside) return folder;
  void vscode.window.showInformationMessage(
    vscode.l10n.t('Pi: {0} is outside the workspace, so it was not added.', uri.scheme === 'file' ? uri.fsPath : uri.toString(true)),
  );
  return undefined;
}

/** The folder's tree as a chip; `uri` must be inside a workspace folder (refused with a message otherwise). */
export async function folderChip(uri: vscode.Uri): Promise<CodeChip | undefined> {
  const folder = workspaceFolderOf(uri);
  if (!folder) return undefined;
  const rel = uri.path === folder.uri.path ? '' : vscode.workspace.asRelativePath(uri, false);
  const tree = await folderTree(rel, treeFs(folder.uri), { excluded: excludedBy(folder), ignoreCase: IGNORE_CASE });
  const counts = `${tree.folders === 1 ? vscode.l10n.t('1 folder') : vscode.l10n.t('{0} folders', tree.folders)}, ${tree.files === 1 ? vscode.l10n.t('1 file') : vscode.l10n.t('{0} files', tree.files)}`;
  return {
    kind: 'folder',
    path: rel,
    text: tree.text,
    detail: tree.clipped
      ? vscode.l10n.t('Folder tree: {0} listed (clipped), without .gitignore and files.exclude matches', counts)
      : vscode.l10n.t('Folder tree: {0}, without .gitignore and files.exclude matches', counts),
  };
}

/** Every `.gitignore` in the first workspace folder, as rules (`findFiles` already leaves out `files.exclude`). */
export async function workspaceGitignore(folder: vscode.WorkspaceFolder): Promise<GitignoreRules> {
  const rules = new GitignoreRules({ ignoreCase: IGNORE_CASE });
  const files = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, '**/.gitignore'), undefined, 1000);
  for (const uri of files) {
    try {
      const rel = vscode.workspace.asRelativePath(uri, false);
      rules.add(rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '', new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)));
    } catch {
      // An unreadable .gitignore ignores nothing, as in git.
    }
  }
  return rules;
}

/** Asks which folder (the workspace's folders that hold files, without ignored ones), then makes its chip. */
export async function pickFolderChip(): Promise<CodeChip | undefined> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Pi: open a folder first.'));
    return undefined;
  }
  const [rules, files] = await Promise.all([
    workspaceGitignore(folder),
    vscode.workspace.findFiles(new vscode.RelativePattern(folder, '**/*'), undefined, MAX_PICK_FILES),
  ]);
  const dirs = new Set<string>();
  for (const uri of files) {
    const parts = vscode.workspace.asRelativePath(uri, false).split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  const items = [
    { label: '.', description: vscode.l10n.t('the whole workspace folder'), uri: folder.uri },
    ...[...dirs]
      .filter((d) => !rules.ignores(d, true))
      .sort()
      .map((d) => ({ label: d, uri: vscode.Uri.joinPath(folder.uri, ...d.split('/')) })),
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Pi: Add Folder to Chat'),
    placeHolder: vscode.l10n.t('Type to search folders'),
  });
  return picked ? folderChip(picked.uri) : undefined;
}
