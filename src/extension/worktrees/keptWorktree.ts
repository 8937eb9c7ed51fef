/** A worktree chat's worktree as the workspace state kept it, checked before use (the state is only JSON). */

import type { WorktreeInfo } from './worktreeGit.ts';

/** `raw` as a worktree when every field is a non-empty string, else undefined. */
export function keptWorktree(raw: unknown): WorktreeInfo | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  const text = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length < 4096;
  if (!text(r.path) || !text(r.branch) || !text(r.base) || !text(r.repo)) return undefined;
  return { path: r.path, branch: r.branch, base: r.base, repo: r.repo };
}
