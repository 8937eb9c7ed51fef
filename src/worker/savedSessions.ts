/** The workspace's saved sessions as the Sessions list and the palette ask for them: listed, paged, searched and named. */

import type { CommandHandlers } from '../shared/wire/commands.ts';
import { listPiSessions, sessionDirFor } from './piSessions.ts';
import { listSessionPage } from './sessionRuntime.ts';
import type { WorkerContext } from './workerContext.ts';

/** What the saved sessions' commands need besides the worker context: the open session's file, and naming it. */
export interface SavedSessionsTarget extends WorkerContext {
  current(): string | undefined;
  renameOpen(name: string): Promise<void>;
}

/** The commands of the table (`COMMANDS`) about the workspace's saved sessions. */
export function savedSessionCommands(target: SavedSessionsTarget): CommandHandlers<'listSessions' | 'sessionPage' | 'renameSession'> {
  const dir = (): string => sessionDirFor(target.config().cwd, target.agentDir());
  return {
    listSessions: async () => {
      const sessions = await listPiSessions(target.pi(), target.config().cwd, target.agentDir());
      return {
        sessions: sessions.map((i) => ({
          path: i.path,
          name: i.name,
          firstMessage: i.firstMessage,
          modified: i.modified.getTime(),
          messageCount: i.messageCount,
        })),
      };
    },
    sessionPage: ({ query, offset, limit }) => listSessionPage(target.pi(), target.config().cwd, dir(), { query, offset, limit, current: target.current() }),
    renameSession: async ({ file, name }) => {
      if (!file || file === target.current()) return target.renameOpen(name);
      // Another saved session: append the name to its file, as Pi's /name would.
      target.pi().SessionManager.open(file, dir()).appendSessionInfo(name.trim());
    },
  };
}
