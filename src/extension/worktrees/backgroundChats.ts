/** What the workspace keeps of editor-tab chats, and which of them a window reload brings back without a tab (worktree chats closed while they ran). */

import { keptWorktree } from './keptWorktree.ts';
import type { WorktreeInfo } from './worktreeGit.ts';

/** One editor chat as the workspace state keeps it, by its key: its session, a worktree chat's worktree, and whether it runs without a tab. */
export interface KeptChat {
  readonly sessionFile?: string;
  readonly worktree?: WorktreeInfo;
  /** Its tab was closed while it ran: no tab comes back after a reload, so the panel brings the chat back itself. */
  readonly background?: true;
}

export type KeptChats = Readonly<Record<string, KeptChat>>;

/** A chat key as the panel makes them (a UUID); anything else in the state is not the panel's. */
const KEY = /^[\w-]{1,64}$/;

/** The workspace state's kept chats, each entry checked (the state is only JSON). */
export function keptChats(raw: unknown): KeptChats {
  if (typeof raw !== 'object' || raw === null) return {};
  const out: Record<string, KeptChat> = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!KEY.test(key) || typeof value !== 'object' || value === null) continue;
    const v = value as Record<string, unknown>;
    const sessionFile = typeof v.sessionFile === 'string' && v.sessionFile.length > 0 ? v.sessionFile : undefined;
    const worktree = keptWorktree(v.worktree);
    // Only a worktree chat runs without a tab: its Pi cannot collide with anyone's files.
    out[key] = {
      ...(sessionFile ? { sessionFile } : {}),
      ...(worktree ? { worktree } : {}),
      ...(worktree && v.background === true ? { background: true } : {}),
    };
  }
  return out;
}

/** `kept` with the chat `key` marked as running without a tab (or no longer); a key the state does not know stays unknown. */
export function markBackground(kept: KeptChats, key: string, background: boolean): KeptChats {
  const entry = kept[key];
  if (!entry) return kept;
  const { background: _was, ...rest } = entry;
  return { ...kept, [key]: background ? { ...rest, background: true } : rest };
}

/** A background chat to bring back after a reload. */
export interface BackgroundChat {
  readonly key: string;
  readonly sessionFile: string | undefined;
  readonly worktree: WorktreeInfo;
}

/** The background chats to bring back, and those whose worktree folder is gone (`exists` says), which never move into the workspace. */
export function backgroundChats(
  kept: KeptChats,
  exists: (path: string) => boolean,
): { readonly restore: readonly BackgroundChat[]; readonly gone: readonly { readonly key: string; readonly worktree: WorktreeInfo }[] } {
  const restore: BackgroundChat[] = [];
  const gone: { key: string; worktree: WorktreeInfo }[] = [];
  for (const [key, entry] of Object.entries(kept)) {
    if (!entry.background || !entry.worktree) continue;
    if (exists(entry.worktree.path)) restore.push({ key, sessionFile: entry.sessionFile, worktree: entry.worktree });
    else gone.push({ key, worktree: entry.worktree });
  }
  return { restore, gone };
}
