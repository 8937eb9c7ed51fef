/** Typed requests to the Pi worker, each sent as its rule in `REQUEST_RULES` says. */

import type { Logger, WorkerRequestMethod, WorkerRequests } from '../shared/wire/workerProtocol.ts';
import { errorText, REQUEST_RULES } from './workerRequests.ts';
import type { RunningWorker } from './workerSupervisor.ts';
import { t } from '../shared/l10n.ts';

type Rules = typeof REQUEST_RULES;

/** Requests that always go out (a worker is started for them) and whose failure the caller handles: they answer or throw. */
export type AskMethod = { [M in WorkerRequestMethod]: Rules[M] extends { when: 'now'; failure: 'throw' } ? M : never }[WorkerRequestMethod];

/** Requests sent when their rule says, whose failure may be reported for the caller: the rest. */
export type CallMethod = Exclude<WorkerRequestMethod, AskMethod>;

/** What the client needs of a worker: its session's readiness and a request with its rule's timeout. */
export type WorkerLink = Pick<RunningWorker, 'ready' | 'stopping' | 'request'>;

/** Where the client's worker comes from (`WorkerSupervisor`). */
export interface WorkerSource {
  /** The worker running now, if any. */
  readonly current: WorkerLink | undefined;
  /** The running worker, or a new one. */
  start(): WorkerLink;
}

/** Requests to one chat's worker, as the rules say; it owns no worker (`WorkerSupervisor` does). */
export class WorkerRpc {
  private readonly _supervisor: WorkerSource;
  private readonly _log: Logger;
  private readonly _report: (text: string) => void;

  /** `report` shows a failed request of rule `failure: 'report'` in the transcript. */
  constructor(supervisor: WorkerSource, log: Logger, report: (text: string) => void) {
    this._supervisor = supervisor;
    this._log = log;
    this._report = report;
  }

  /**
   * Sends `method` when its rule says, to the worker that was running (or started) when it was asked for.
   * Undefined when it was not sent (no worker, no session) or failed and was reported; a failure of rule
   * `failure: 'throw'` rejects.
   */
  async call<M extends CallMethod>(method: M, params: WorkerRequests[M]['params']): Promise<WorkerRequests[M]['result'] | undefined> {
    const rule = REQUEST_RULES[method];
    const worker = rule.when === 'running' ? this._supervisor.current : this._supervisor.start();
    if (!worker) return undefined;
    if (rule.when === 'ready' && !(await worker.ready)) return undefined;
    if (rule.when === 'opened') await worker.ready;
    if (rule.failure === 'throw') return worker.request(method, params);
    try {
      return await worker.request(method, params);
    } catch (err) {
      if (this._supervisor.current === worker && !worker.stopping) {
        this._log.error(`Pi worker request "${method}" failed: ${errorText(err)}`);
        this._report(t('Pi did not complete "{0}": {1}', method, errorText(err)));
      }
      return undefined;
    }
  }

  /** Sends `method` at once (starting a worker if none runs); its answer, or a rejection. */
  ask<M extends AskMethod>(method: M, params: WorkerRequests[M]['params']): Promise<WorkerRequests[M]['result']> {
    return this._supervisor.start().request(method, params);
  }
}
