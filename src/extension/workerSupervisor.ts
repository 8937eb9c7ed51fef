/**
 * Supervises one Pi worker thread at a time: starts it with its channel and configuration, watches that it
 * answers, stops it (and every process it started) on purpose, and tells its owner when it fails.
 */

import type { Worker } from 'node:worker_threads';
import { createMessageConnection, PortMessageReader, PortMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node.js';
import type { Scheduler } from '../shared/batcher.ts';
import { ChildProcessTable } from '../shared/childProcessTable.ts';
import { Disposable, Emitter } from '../shared/disposable.ts';
import type {
  HostRequestMethod,
  HostRequests,
  Logger,
  SessionStart,
  WorkerConfig,
  WorkerData,
  WorkerNotificationMethod,
  WorkerNotifications,
  WorkerRequestMethod,
  WorkerRequests,
} from '../shared/wire/workerProtocol.ts';
import { killProcesses } from './childProcesses.ts';
import { REQUEST_RULES, timedRequest } from './workerRequests.ts';
import { t } from '../shared/l10n.ts';

/** How the supervisor times requests and watches the worker's liveness. */
export interface WorkerSupervisorOptions {
  /** How long a request with a short timeout (cancel, model list, …) may go unanswered before it is given up. */
  readonly requestTimeoutMs: number;
  /** How often the worker is asked for a sign of life, and how long it may take to answer before the user is told. */
  readonly pingMs: number;
  readonly hangMs: number;
  /** How the host answers the worker's own requests (the VS Code tools); none answers them with an error. */
  readonly hostRequests?: HostRequestHandlers;
}

/** One handler per request the worker sends the host. */
export type HostRequestHandlers = {
  readonly [M in HostRequestMethod]: (params: HostRequests[M]['params']) => Promise<HostRequests[M]['result']>;
};

/** What the worker's notifications do, one handler each; only the current worker's are delivered. */
export type NotificationHandlers = {
  readonly [M in WorkerNotificationMethod]: (params: WorkerNotifications[M], worker: RunningWorker) => void;
};

/** A worker that stopped without being asked to: why, and how many prompts it had not finished. */
export interface WorkerFault {
  readonly reason: string;
  readonly sending: number;
}

/** One started worker and its channel. */
export class RunningWorker {
  /** Resolves once the worker has opened the session (true) or failed to (false). */
  ready: Promise<boolean> = Promise.resolve(false);
  /** Set when we stop it on purpose: its exit is not a fault. */
  stopping = false;
  /** Set once the user was told it does not answer; cleared when it answers again. */
  hangReported = false;
  /** Prompts handed to it whose run has not ended: a fault now fails a run even before Pi started it. */
  sending = 0;
  stopPing: (() => void) | undefined;
  readonly thread: Worker;
  readonly connection: MessageConnection;
  /** What it has running (shells, servers), recorded by the worker in shared memory: killed when it ends, since they would outlive it. */
  readonly processes: ChildProcessTable;
  private readonly _requestTimeoutMs: number;
  private readonly _clock: Scheduler;

  constructor(thread: Worker, processes: ChildProcessTable, requestTimeoutMs: number, clock: Scheduler) {
    this.thread = thread;
    this.processes = processes;
    this.connection = createMessageConnection(new PortMessageReader(thread), new PortMessageWriter(thread));
    this._requestTimeoutMs = requestTimeoutMs;
    this._clock = clock;
  }

  /** Sends one request, given up after the timeout its rule says (`REQUEST_RULES`). */
  request<M extends WorkerRequestMethod>(method: M, params: WorkerRequests[M]['params']): Promise<WorkerRequests[M]['result']> {
    const timeoutMs = REQUEST_RULES[method].timeout === 'short' ? this._requestTimeoutMs : 0;
    return timedRequest(this.connection, method, params, timeoutMs, this._clock);
  }
}

/** The worker thread of one chat: one supervisor per `PiClient`, no module state. */
export class WorkerSupervisor extends Disposable {
  private _current: RunningWorker | undefined;
  private readonly _spawn: (data: WorkerData) => Worker;
  private readonly _config: () => WorkerConfig;
  private readonly _sessionStart: () => SessionStart;
  private readonly _handlers: NotificationHandlers;
  private readonly _log: Logger;
  private readonly _clock: Scheduler;
  private readonly _options: WorkerSupervisorOptions;

  private readonly _onDidFault = this._register(new Emitter<WorkerFault>());
  /** The current worker stopped without being asked to (it threw or exited); it is gone already. */
  readonly onDidFault = this._onDidFault.event;
  private readonly _onDidHang = this._register(new Emitter<void>());
  /** The current worker has not answered a ping for `hangMs` (said once per hang). */
  readonly onDidHang = this._onDidHang.event;

  /**
   * `config` is read at each start; `sessionStart` says which session a new worker opens (the file to reopen
   * quietly after a fault, so the conversation continues; or a chat's first session).
   */
  constructor(
    spawn: (data: WorkerData) => Worker,
    config: () => WorkerConfig,
    sessionStart: () => SessionStart,
    handlers: NotificationHandlers,
    log: Logger,
    clock: Scheduler,
    options: WorkerSupervisorOptions,
  ) {
    super();
    this._spawn = spawn;
    this._config = config;
    this._sessionStart = sessionStart;
    this._handlers = handlers;
    this._log = log;
    this._clock = clock;
    this._options = options;
  }

  /** The worker running now, if any. */
  get current(): RunningWorker | undefined {
    return this._current;
  }

  /** The running worker, or a new one: configured, opening its session, pinged. */
  start(): RunningWorker {
    if (this._current) return this._current;
    if (this.isDisposed) throw new Error('The Pi panel is shutting down.');
    const processes = new ChildProcessTable();
    const worker = new RunningWorker(this._spawn({ processTable: processes.buffer }), processes, this._options.requestTimeoutMs, this._clock);
    this._current = worker;
    for (const method of Object.keys(this._handlers)) if (isNotificationMethod(this._handlers, method)) this._deliver(worker, method);
    const host = this._options.hostRequests;
    if (host) for (const method of Object.keys(host) as HostRequestMethod[]) this._answer(worker, method, host);
    worker.thread.on('error', (err: Error) => this._onFault(worker, t('it threw: {0}', err.message)));
    worker.thread.on('exit', (code: number) => {
      // A worker stopped on purpose had its processes killed then (its table closed, nothing started after).
      if (!worker.stopping) killProcesses(worker.processes.running());
      this._onFault(worker, t('it exited with code {0}', code));
    });
    worker.connection.listen();
    void worker.request('configure', this._config()).catch(() => undefined);
    worker.ready = worker.request('ensureSession', this._sessionStart()).then(
      (r) => r.ok,
      () => false,
    );
    this._ping(worker);
    return worker;
  }

  /**
   * Stops the current worker on purpose, keeping the turn: it is asked to shut down (the run aborted and saved,
   * Pi's extensions told) and given until `deadlineMs`, then stopped as `stop()` does. Its events still arrive
   * meanwhile, so the aborted reply reaches the transcript. A worker that never answered a ping is stopped at once.
   */
  async shutdown(settleMs: number, extensionsMs: number, deadlineMs: number): Promise<RunningWorker | undefined> {
    const worker = this._current;
    if (!worker) return undefined;
    if (!worker.hangReported && !worker.stopping) {
      // Its exit meanwhile (an extension calling process.exit on shutdown) is not a fault.
      worker.stopping = true;
      let cancel: (() => void) | undefined;
      const deadline = new Promise<void>((resolve) => (cancel = this._clock.setTimer(resolve, deadlineMs)));
      const asked = worker.request('shutdown', { settleMs, extensionsMs }).then(
        () => undefined,
        (err: unknown) => this._log.warn(`The Pi worker did not shut down cleanly: ${err instanceof Error ? err.message : String(err)}`),
      );
      await Promise.race([asked, deadline]);
      cancel?.();
    }
    if (this._current === worker) return this.stop();
    // It ended by itself meanwhile: what it left running is killed here, since its exit saw it stopping.
    killProcesses(worker.processes.close());
    return worker;
  }

  /** Stops the current worker on purpose, and whatever it has running; returns it (undefined when none ran). */
  stop(): RunningWorker | undefined {
    const worker = this._current;
    if (!worker) return undefined;
    worker.stopping = true;
    this._drop(worker);
    // Closed first: a spawn under way is recorded before the worker stops, and none starts after.
    const running = worker.processes.close();
    void worker.thread.terminate();
    // Now, not at its exit: the extension host may be shutting down.
    killProcesses(running);
    return worker;
  }

  override dispose(): void {
    this.stop();
    super.dispose();
  }

  /** Hands `method`'s notifications from `worker` to their handler while it is the current worker. */
  private _deliver<M extends WorkerNotificationMethod>(worker: RunningWorker, method: M): void {
    const handler = this._handlers[method];
    worker.connection.onNotification(method, (params: WorkerNotifications[M]) => {
      if (this._current === worker) handler(params, worker);
    });
  }

  /** Answers `worker`'s `method` requests with `handler` (a worker no longer current gets an error). */
  private _answer<M extends HostRequestMethod>(worker: RunningWorker, method: M, handlers: HostRequestHandlers): void {
    const handler = handlers[method] as (params: HostRequests[M]['params']) => Promise<HostRequests[M]['result']>;
    worker.connection.onRequest(method, (params: HostRequests[M]['params']) => {
      if (this._current !== worker) throw new Error('this Pi worker is being replaced');
      return handler(params);
    });
  }

  /** Asks for a sign of life every `pingMs`; a worker silent for `hangMs` is reported (once per hang). */
  private _ping(worker: RunningWorker): void {
    worker.stopPing = this._clock.setTimer(() => {
      if (this._current !== worker) return;
      let answered = false;
      const cancelHang = this._clock.setTimer(() => {
        if (answered || this._current !== worker || worker.hangReported) return;
        worker.hangReported = true;
        this._onDidHang.fire();
      }, this._options.hangMs);
      worker.request('ping', null).then(
        () => {
          answered = true;
          cancelHang();
          worker.hangReported = false;
          this._ping(worker);
        },
        () => cancelHang(),
      );
    }, this._options.pingMs);
  }

  private _onFault(worker: RunningWorker, reason: string): void {
    if (this._current !== worker) return;
    this._drop(worker);
    if (worker.stopping || this.isDisposed) return;
    this._log.error(`The Pi worker stopped: ${reason}.`);
    this._onDidFault.fire({ reason, sending: worker.sending });
  }

  /** Forgets a worker: no more of its messages are delivered, its pending requests fail. */
  private _drop(worker: RunningWorker): void {
    if (this._current === worker) this._current = undefined;
    worker.stopPing?.();
    worker.connection.dispose();
  }
}

function isNotificationMethod(handlers: NotificationHandlers, method: string): method is WorkerNotificationMethod {
  return Object.hasOwn(handlers, method);
}
