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
  // The commands: their rules are in their table.
  ...COMMANDS,
  // The client's own requests. To the worker running now only: the supervisor configures the worker it starts,
  // opens its session and pings it; the mirror asks the worker that sent a snapshot for the rows before it.
  // Without a worker there is nothing to cancel, tell or reload.
  configure: { when: 'running', timeout: 'none', failure: 'throw' },
  ensureSession: { when: 'running', timeout: 'none', failure: 'throw' },
  ping: { when: 'running', timeout: 'none', failure: 'throw' },
  earlierRows: { when: 'running', timeout: 'short', failure: 'throw' },
  findRows: { when: 'running', timeout: 'short', failure: 'throw' },
  cancel: { when: 'running', timeout: 'short', failure: 'report' },
  forceIdle: { when: 'running', timeout: 'short', failure: 'throw' },
  reload: { when: 'running', timeout: 'none', failure: 'report' },
  // Bounded by the supervisor's own stop deadline, not the request timeout; a worker that fails it is ended anyway.
  shutdown: { when: 'running', timeout: 'none', failure: 'throw' },
  // At once: a prompt (the client holds it until the session opens); a run takes as long as Pi does.
  send: { when: 'now', timeout: 'none', failure: 'report' },
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
