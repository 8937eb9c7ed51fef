import { strict as assert } from 'node:assert';
import { WorkerRpc, type WorkerLink, type WorkerSource } from '../../src/extension/workerRpc.ts';
import type { WorkerRequestMethod, WorkerRequests } from '../../src/shared/wire/workerProtocol.ts';
import { MemoryLog } from '../support/memoryLog.ts';

/** A worker that records the requests it gets and answers them at once (or fails them). */
class FakeWorker implements WorkerLink {
  ready: Promise<boolean>;
  stopping = false;
  readonly sent: WorkerRequestMethod[] = [];
  failWith: Error | undefined;
  private _open: (ok: boolean) => void = () => {};

  /** `ready`: whether the session opened; undefined keeps it opening until `open()`. */
  constructor(ready?: boolean) {
    this.ready = ready === undefined ? new Promise((resolve) => (this._open = resolve)) : Promise.resolve(ready);
  }

  open(ok: boolean): void {
    this._open(ok);
  }

  request<M extends WorkerRequestMethod>(method: M, _params: WorkerRequests[M]['params']): Promise<WorkerRequests[M]['result']> {
    this.sent.push(method);
    if (this.failWith) return Promise.reject(this.failWith);
    return Promise.resolve({ commands: [], models: [] } as any);
  }
}

/** Hands out `worker` when asked to start one, and counts the starts. */
class FakeSource implements WorkerSource {
  current: FakeWorker | undefined;
  starts = 0;
  private readonly _worker: FakeWorker;

  constructor(worker: FakeWorker, running = false) {
    this._worker = worker;
    if (running) this.current = worker;
  }

  start(): FakeWorker {
    if (!this.current) {
      this.starts++;
      this.current = this._worker;
    }
    return this.current;
  }
}

function setup(worker: FakeWorker, running = false) {
  const source = new FakeSource(worker, running);
  const log = new MemoryLog();
  const reports: string[] = [];
  const rpc = new WorkerRpc(source, log, (text) => reports.push(text));
  return { source, log, reports, rpc };
}

/** Lets pending promise callbacks run. */
const tick = () => new Promise((r) => setImmediate(r));

describe('WorkerRpc (the request rules)', () => {
  it('starts no worker for a request that only goes to a running one (cancel, a dialog answer, reload)', async () => {
    const worker = new FakeWorker(true);
    const { source, rpc } = setup(worker);
    assert.equal(await rpc.call('cancel', null), undefined);
    assert.equal(await rpc.call('answerDialog', { id: 'd1' }), undefined);
    assert.equal(source.starts, 0);
    assert.deepEqual(worker.sent, []);
  });

  it('does not send a request that needs the session when the session could not open', async () => {
    const worker = new FakeWorker(false);
    const { source, rpc } = setup(worker);
    assert.equal(await rpc.call('listCommands', null), undefined);
    assert.equal(await rpc.call('bash', { command: 'ls', excluded: false }), undefined);
    assert.equal(source.starts, 1);
    assert.deepEqual(worker.sent, []);
  });

  it('sends a session replacement once the session attempt is over, also when it failed', async () => {
    const worker = new FakeWorker();
    const { rpc } = setup(worker);
    const replacing = rpc.call('newSession', null);
    await tick();
    assert.deepEqual(worker.sent, [], 'not before the session attempt ends');
    worker.open(false);
    await replacing;
    assert.deepEqual(worker.sent, ['newSession']);
  });

  it('sends a question the worker itself waits on at once, before the session has opened', async () => {
    const worker = new FakeWorker();
    const { source, rpc } = setup(worker);
    void rpc.ask('setModel', { provider: 'p', id: 'm' });
    assert.deepEqual(worker.sent, ['setModel']);
    assert.equal(source.starts, 1);
  });

  it("shows a failed run request in the transcript and gives the caller nothing, but not a stopped worker's", async () => {
    const worker = new FakeWorker(true);
    worker.failWith = new Error('boom');
    const { log, reports, rpc } = setup(worker, true);
    assert.equal(await rpc.call('compact', null), undefined);
    assert.deepEqual(reports, ['Pi did not complete "compact": boom']);
    assert.deepEqual(log.lines, ['error Pi worker request "compact" failed: boom']);
    worker.stopping = true;
    assert.equal(await rpc.call('compact', null), undefined);
    assert.equal(reports.length, 1, 'a worker stopped on purpose fails its requests quietly');
  });

  it('rejects a failed question, whose caller shows the failure (a picker, a command)', async () => {
    const worker = new FakeWorker(true);
    worker.failWith = new Error('no answer');
    const { reports, rpc } = setup(worker, true);
    await assert.rejects(rpc.call('listModels', null), /no answer/);
    await assert.rejects(rpc.ask('sessionTree', null), /no answer/);
    assert.deepEqual(reports, []);
  });
});
