/** The worker's own environment, cleaned once at start with the bash tool's allow-list, so every process it starts inherits only that. */

import { agentShellEnv } from './piSessions.ts';

/**
 * Removes from `env` (the worker thread's own copy of the extension host's environment) every variable the
 * agent's bash would not get: the editor's IPC handles, askpass hooks, code-server's password. `!cmd`
 * (Pi's `executeBash`), MCP stdio servers (their transport copies `process.env`) and extensions' child
 * processes then inherit the same environment as the bash tool. Returns the names removed.
 */
export function cleanProcessEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const keep = agentShellEnv(env);
  const removed = Object.keys(env).filter((name) => !(name in keep));
  for (const name of removed) delete env[name];
  return removed;
}
