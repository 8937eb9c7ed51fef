/** Apply by merging: a worktree chat's changes committed on its branch, and the branch merged into the workspace's current branch. */

import * as path from 'node:path';
import { t } from '../../shared/l10n.ts';
import { exists, git, run, WorktreeError, type GitOptions, type WorktreeInfo } from './worktreeGit.ts';

/** What a merge did: the files the branch brings; `conflicts` non-empty: the merge is left in progress in the workspace. */
export interface MergeResult {
  readonly merged: boolean;
  readonly files: readonly string[];
  readonly conflicts: readonly string[];
}

/** Git's markers of an operation under way in a repository: a merge on top of one would mix the two. */
const UNDER_WAY = ['MERGE_HEAD', 'CHERRY_PICK_HEAD', 'REVERT_HEAD', 'rebase-merge', 'rebase-apply'];

const names = (out: string) => out.split('\0').filter(Boolean);

/**
 * Commits everything the worktree holds (uncommitted and new files, not ignored ones) on its branch with a message
 * naming the chat, then merges the branch into the branch checked out in `root`. On a conflict the merge stays in
 * progress there, with conflict markers, for the user to resolve (or `git merge --abort`); both sides keep their
 * commits. Refuses, changing nothing in `root`, when a merge or rebase is under way there or when the workspace's
 * uncommitted changes are in files the merge changes.
 */
export async function mergeWorktree(info: WorktreeInfo, root: string, chatName: string, o: GitOptions = {}): Promise<MergeResult> {
  if (!(await exists(info.path)))
    throw new WorktreeError('missing', t('The worktree {0} no longer exists (deleted by hand?). Discard the chat to remove its branch.', info.path));
  const gitDir = (await git(root, ['rev-parse', '--absolute-git-dir'], o)).trim();
  for (const marker of UNDER_WAY)
    if (await exists(path.join(gitDir, marker)))
      throw new WorktreeError('busy', t('a merge, rebase or cherry-pick is under way in the workspace. Finish or abort it, then merge again.'));
  // Both commits need the user's name and email; without them nothing is committed, on either side.
  if ((await run(root, ['var', 'GIT_COMMITTER_IDENT'], o)).code !== 0)
    throw new WorktreeError(
      'noIdentity',
      t(
        'git does not know who you are (user.name and user.email), which a merge commit needs. Set them (git config --global user.name …), or apply as uncommitted changes.',
      ),
    );
  await git(info.path, ['add', '-A', '--', '.'], o);
  if ((await run(info.path, ['diff', '--cached', '--quiet'], o)).code !== 0)
    // The snapshot of Pi's work is the panel's commit, not the user's: their pre-commit checks are for their own.
    // l10n-ignore: a commit message, in git's language
    await git(info.path, ['commit', '-q', '--no-verify', '-m', `Pi: ${chatName}`], o);
  // What the branch changed since it left the workspace's branch: the files the merge brings.
  const files = names(await git(root, ['diff', '--name-only', '-z', '--no-renames', `HEAD...${info.branch}`], o));
  if (!files.length) return { merged: false, files: [], conflicts: [] };
  // l10n-ignore: a commit message, in git's language
  const r = await run(root, ['merge', '--no-ff', '--no-edit', '-m', `Merge branch '${info.branch}' (Pi: ${chatName})`, info.branch], o);
  if (r.code === 0) return { merged: true, files, conflicts: [] };
  const conflicts = names(await git(root, ['diff', '--name-only', '-z', '--diff-filter=U'], o));
  if (conflicts.length) return { merged: false, files, conflicts };
  // Git refused before it touched anything: name the files it would have overwritten.
  const blocked = r.stderr
    .split('\n')
    .filter((line) => line.startsWith('\t'))
    .map((line) => line.trim());
  if (/would be overwritten/.test(r.stderr))
    throw new WorktreeError(
      'dirty',
      t(
        'nothing was merged: the workspace has uncommitted changes in files the merge changes ({0}). Commit or stash them, then merge again.',
        blocked.join(', '),
      ),
    );
  throw new WorktreeError('failed', t('git merge failed: {0}', r.stderr.trim() || String(r.code)));
}
