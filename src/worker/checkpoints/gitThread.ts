/**
 * Starts git processes from a thread of their own. Node's `spawn()` is synchronous until the child has exec'd
 * (fork, then a wait for the exec to report): on a busy machine that is 15–150 ms during which the calling
 * thread runs nothing else. Here that wait falls on a small helper thread, so the Pi worker keeps streaming
 * while a checkpoint runs its git commands.
 */

import { Worker } from 'node:worker_threads';

/** One git command for the helper thread. */
export interface SpawnRequest {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly timeoutMs: number;
  readonly input: string | Buffer;
}

/** How the command ended: `errorCode` when it could not start (`ENOENT`: no such executable), else its status. */
export interface SpawnResult {
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly code: number | null;
  readonly signal: string | null;
  readonly errorCode?: string;
  readonly errorMessage?: string;
}

// The helper's code as plain JavaScript, run with `eval`: it needs no file of its own next to the bundle, and
// nothing a bundler or the type stripper does to this module can change it.
const HELPER = `
const { parentPort } = require('node:worker_threads');
const { spawn } = require('node:child_process');
parentPort.on('message', ({ id, file, args, cwd, env, timeoutMs, input }) => {
  const out = [];
  const err = [];
  let startError;
  let child;
  try {
    child = spawn(file, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], timeout: timeoutMs, windowsHide: true });
  } catch (e) {
    parentPort.postMessage({ id, code: null, signal: null, errorCode: e.code || 'ESPAWN', errorMessage: e.message, stderr: '' });
    return;
  }
  child.stdout.on('data', (b) => out.push(b));
  child.stderr.on('data', (b) => err.push(b));
  child.on('error', (e) => { startError = startError || e; });
  child.on('close', (code, signal) => {
    const stdout = Buffer.concat(out);
    const bytes = stdout.buffer.slice(stdout.byteOffset, stdout.byteOffset + stdout.length);
    const reply = { id, stdout: bytes, stderr: Buffer.concat(err).toString('utf8'), code, signal };
    if (startError) Object.assign(reply, { errorCode: startError.code || 'ESPAWN', errorMessage: startError.message });
    parentPort.postMessage(reply, [bytes]);
  });
  child.stdin.on('error', () => undefined);
  child.stdin.end(typeof input === 'string' ? input : Buffer.from(input));
});
`;

interface Reply {
  readonly id: number;
  readonly stdout?: ArrayBuffer;
  readonly stderr: string;
  readonly code: number | null;
  readonly signal: string | null;
  readonly errorCode?: string;
  readonly errorMessage?: string;
}

/** The helper thread, started on first use and shared by every shadow repository of this thread. */
class GitThread {
  private _worker: Worker | undefined;
  private _next = 0;
  private readonly _pending = new Map<number, (r: SpawnResult) => void>();

  run(req: SpawnRequest): Promise<SpawnResult> {
    const worker = this._start();
    const id = ++this._next;
    return new Promise<SpawnResult>((resolve) => {
      this._pending.set(id, resolve);
      // Kept alive only while a command is out: an idle helper must not hold a finishing process open.
      if (this._pending.size === 1) worker.ref();
      worker.postMessage({ id, ...req });
    });
  }

  private _start(): Worker {
    if (this._worker) return this._worker;
    const worker = new Worker(HELPER, { eval: true, name: 'pi-checkpoints-git', resourceLimits: { maxOldGenerationSizeMb: 256 } });
    worker.unref();
    worker.on('message', (r: Reply) => {
      const resolve = this._pending.get(r.id);
      this._pending.delete(r.id);
      if (!this._pending.size) worker.unref();
      resolve?.({
        stdout: r.stdout ? Buffer.from(r.stdout) : Buffer.alloc(0),
        stderr: r.stderr,
        code: r.code,
        signal: r.signal,
        ...(r.errorCode ? { errorCode: r.errorCode, errorMessage: r.errorMessage ?? r.errorCode } : {}),
      });
    });
    const fail = (message: string) => {
      if (this._worker === worker) this._worker = undefined;
      for (const resolve of this._pending.values())
        resolve({ stdout: Buffer.alloc(0), stderr: '', code: null, signal: null, errorCode: 'ETHREAD', errorMessage: message });
      this._pending.clear();
    };
    worker.on('error', (err) => fail(`the git helper thread failed: ${err.message}`));
    worker.on('exit', (code) => fail(`the git helper thread ended (${code})`));
    this._worker = worker;
    return worker;
  }
}

let shared: GitThread | undefined;

/** Runs one command from the helper thread; never rejects (a failure to start is in the result). */
export function spawnOffThread(req: SpawnRequest): Promise<SpawnResult> {
  shared ??= new GitThread();
  return shared.run(req);
}
