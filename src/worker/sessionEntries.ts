/** What the checkpoints read of a Pi session: its id and the user messages on its branch. */

import type { AgentSessionLike } from './agentSession.ts';

/** The id Pi gives the session (its checkpoints are named by it); undefined for a test's plain session. */
export function sessionIdOf(session: AgentSessionLike | undefined): string | undefined {
  try {
    return session?.sessionManager?.getSessionId();
  } catch {
    return undefined;
  }
}

/** The ids of the user messages on `session`'s branch after entry `leafId` (all of them without one). */
export function userEntriesAfter(session: AgentSessionLike | undefined, leafId: string | undefined): string[] {
  const branch = session?.sessionManager?.getBranch() ?? [];
  const start = leafId === undefined ? 0 : branch.findIndex((e) => e.id === leafId) + 1;
  return branch
    .slice(start)
    .filter((e) => e.type === 'message' && (e.message as { role?: string }).role === 'user')
    .map((e) => e.id);
}
