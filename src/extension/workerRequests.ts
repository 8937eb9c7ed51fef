/**
 * The one table of how each request to the Pi worker is sent: when (whether it starts a worker, waits for
 * the session), how long its answer may take, and who hears of a failure. Plus the timed send itself.
 */

import type { MessageConnection } from 'vscode-jsonrpc/node.js';
import type { Scheduler } from '../shared/batcher.ts';
import { COMMANDS, type RequestRule } from '../shared/wire/commands.ts';
import type { WorkerRequestMethod, WorkerRequests } from '../shared/wire/workerProtocol.ts';

/** Every request of the protocol, with its rule: a request left out is a compile error. */
export const REQUEST_RULES = {
  // The commands the view passes through: their rules are in their table.
  ...COMMANDS,
  // To the worker running now only. The supervisor configures the worker it starts, opens its session and
  // pings it; the mirror asks the worker that sent a snapshot for the rows before it. Without a worker there
  // is nothing to cancel, answer, tell or reload.
  configure: { when: 'running', timeout: 'none', failure: 'throw' },
  ensureSession: { when: 'running', timeout: 'none', failure: 'throw' },
  ping: { when: 'running', timeout: 'none', failure: 'throw' },
  earlierRows: { when: 'running', timeout: 'short', failure: 'throw' },
  findRows: { when: 'running', timeout: 'short', failure: 'throw' },
  cancel: { when: 'running', timeout: 'short', failure: 'report' },
  forceIdle: { when: 'running', timeout: 'short', failure: 'throw' },
  answerDialog: { when: 'running', timeout: 'short', failure: 'report' },
  reload: { when: 'running', timeout: 'none', failure: 'report' },
  // Bounded by the supervisor's own stop deadline, not the request timeout; a worker that fails it is ended anyway.
  shutdown: { when: 'running', timeout: 'none', failure: 'throw' },
  // Need the open session. A run (retry, compaction, a `!` command) takes as long as Pi does.
  compact: { when: 'ready', timeout: 'none', failure: 'report' },
  compactWith: { when: 'ready', timeout: 'none', failure: 'report' },
  listCommands: { when: 'ready', timeout: 'short', failure: 'report' },
  setSessionName: { when: 'ready', timeout: 'short', failure: 'report' },
  setPlanMode: { when: 'ready', timeout: 'short', failure: 'report' },
  actOnPlan: { when: 'ready', timeout: 'none', failure: 'report' },
  listModels: { when: 'ready', timeout: 'short', failure: 'throw' },
  thinkingLevels: { when: 'ready', timeout: 'short', failure: 'throw' },
  fileBefore: { when: 'ready', timeout: 'short', failure: 'throw' },
  // Undo may ask in the chat's card first (files changed after the run): it waits for the user's answer.
  undo: { when: 'ready', timeout: 'none', failure: 'throw' },
  // Replace the session: sent once the session attempt is over, whatever its outcome.
  resumeSession: { when: 'opened', timeout: 'none', failure: 'report', movesSession: true },
  importSession: { when: 'opened', timeout: 'none', failure: 'report', movesSession: true },
  navigateTree: { when: 'opened', timeout: 'none', failure: 'report', movesSession: true },
  clearCheckpoints: { when: 'opened', timeout: 'none', failure: 'report' },
  // At once: a prompt (the client holds it until the session opens), and what a picker or a command asks,
  // the worker waiting for its session where it needs one. Exports and the tree take what they take.
  send: { when: 'now', timeout: 'none', failure: 'report' },
  setModel: { when: 'now', timeout: 'short', failure: 'throw' },
  setThinkingLevel: { when: 'now', timeout: 'short', failure: 'throw' },
  listSessions: { when: 'now', timeout: 'short', failure: 'throw' },
  sessionPage: { when: 'now', timeout: 'short', failure: 'throw' },
  renameSession: { when: 'now', timeout: 'short', failure: 'throw' },
  lastAnswer: { when: 'now', timeout: 'short', failure: 'throw' },
  sessionTree: { when: 'now', timeout: 'none', failure: 'throw' },
  // The user answers when they like: no timeout.
  askPanel: { when: 'now', timeout: 'none', failure: 'throw' },
  exportHtml: { when: 'now', timeout: 'none', failure: 'throw' },
  exportJsonl: { when: 'now', timeout: 'none', failure: 'throw' },
  // The first run: a sign-in waits on the user (input boxes, the browser); the catalog and a pick are quick.
  login: { when: 'now', timeout: 'none', failure: 'throw' },
  addCustomProvider: { when: 'now', timeout: 'none', failure: 'throw' },
  authAnswer: { when: 'running', timeout: 'short', failure: 'throw' },
  logout: { when: 'now', timeout: 'short', failure: 'throw' },
  modelCatalog: { when: 'now', timeout: 'short', failure: 'throw' },
  providers: { when: 'now', timeout: 'short', failure: 'throw' },
  mcpServers: { when: 'now', timeout: 'short', failure: 'throw' },
  setMcpEnabled: { when: 'now', timeout: 'none', failure: 'throw' },
  restartMcp: { when: 'now', timeout: 'none', failure: 'throw' },
  reconnectMcp: { when: 'now', timeout: 'none', failure: 'throw' },
  signInMcp: { when: 'now', timeout: 'none', failure: 'throw' },
  pickModel: { when: 'now', timeout: 'short', failure: 'throw' },
} as const satisfies { readonly [M in WorkerRequestMethod]: RequestRule };

/** Sends one request; with `timeoutMs` > 0 it is given up (rejected) after that long without an answer. */
export function timedRequest<M extends WorkerRequestMethod>(
  connection: MessageConnection,
  method: M,
  params: WorkerRequests[M]['params'],
  timeoutMs: number,
  clock: Scheduler,
): Promise<WorkerRequests[M]['result']> {
  const sent: Promise<WorkerRequests[M]['result']> = params === null ? connection.sendRequest(method) : connection.sendRequest(method, params);
  if (!timeoutMs) return sent;
  return new Promise((resolve, reject) => {
    const cancel = clock.setTimer(() => reject(new Error(`the Pi worker did not answer "${method}" within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    sent.then(
      (v) => {
        cancel();
        resolve(v);
      },
      (err: unknown) => {
        cancel();
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

/** An error's message, for logs and notices. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
