/** A worktree chat's branch named from its first prompt (`pi/fix-login-bug`): made `pi/<n>` before there is a prompt, renamed once there is one. */

import { t } from '../../shared/l10n.ts';
import { run, WorktreeError, type GitOptions, type WorktreeInfo } from './worktreeGit.ts';

/** The longest slug: a branch name people can read in a tab title and type. */
const MAX = 32;

/** Latin letters that do not decompose into a base letter and an accent. */
const LETTERS: Readonly<Record<string, string>> = { đ: 'd', ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', þ: 'th', ð: 'd', ı: 'i' };

/**
 * The prompt's first words as a branch slug: lowercase ASCII letters and digits joined by `-`, at most 32
 * characters, accents dropped. Nothing of git's ref syntax (`..`, `@{`, `~`, control characters) can survive;
 * undefined when no Latin letter is left (a prompt in another script, digits alone), so the branch keeps `pi/<n>`.
 */
export function branchSlug(prompt: string): string | undefined {
  // Only the start matters: a pasted log file is not read to its end.
  const plain = prompt
    .slice(0, 400)
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x00-\x7f]/g, (c) => LETTERS[c] ?? ' ');
  const words = plain.split(/[^a-z0-9]+/).filter(Boolean);
  let slug = '';
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word.slice(0, MAX);
    if (next.length > MAX) break;
    slug = next;
  }
  return /[a-z]/.test(slug) ? slug : undefined;
}

/** Whether the branch still has the name it was made with (`pi/<n>`): only that one is renamed. */
const unnamed = (branch: string) => /^pi\/\d+$/.test(branch);

/**
 * Renames the worktree's branch `pi/<n>` after the chat's first prompt (`pi/<slug>`, `-2`, `-3` … when taken);
 * the worktree stays in its folder, now on the renamed branch. The same worktree back when the prompt gives no
 * slug or the branch was named already.
 */
export async function nameWorktreeBranch(info: WorktreeInfo, prompt: string, o: GitOptions = {}): Promise<WorktreeInfo> {
  const slug = branchSlug(prompt);
  if (!slug || !unnamed(info.branch)) return info;
  for (let n = 1; n < 100; n++) {
    const branch = n === 1 ? `pi/${slug}` : `pi/${slug}-${n}`;
    if ((await run(info.repo, ['show-ref', '--verify', '-q', `refs/heads/${branch}`], o)).code === 0) continue;
    const r = await run(info.repo, ['branch', '-m', info.branch, branch], o);
    if (r.code !== 0) throw new WorktreeError('failed', t('git branch -m failed: {0}', r.stderr.trim()));
    return { ...info, branch };
  }
  return info;
}
