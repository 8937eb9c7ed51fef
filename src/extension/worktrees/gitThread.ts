/**
 * Git's child processes, started from a worker thread of their own: starting a process copies the page tables of
 * the thread's whole process (tens of milliseconds in an extension host, more under load: worktreeBench's profile
 * found `spawn` the longest stall), and then it stalls that worker thread, not the extension host's.
 */

import { Worker } from 'node:worker_threads';

/** What a finished git gives back: its exit code, or the code of the error that kept it from running (`ENOENT`). */
export interface SpawnedResult {
  /** 0, the exit code, or a Node error code (a string: git did not start, or its output was too large). */
  readonly code: number | string;
  readonly stdout: Buffer;
  readonly stderr: Buffer;
}

interface Request {
  readonly id: number;
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly input: string;
  readonly maxBuffer: number;
}

// The thread's code is plain CommonJS text, so it needs no bundle entry of its own.
const CODE = `
const { parentPort } = require('node:worker_threads');
const { execFile } = require('node:child_process');
parentPort.on('message', (r) => {
  const child = execFile(r.file, r.args, { cwd: r.cwd, env: r.env, encoding: 'buffer', maxBuffer: r.maxBuffer, windowsHide: true }, (err, stdout, stderr) => {
    const code = err ? (typeof err.code === 'string' || typeof err.code === 'number' ? err.code : 1) : 0;
    parentPort.postMessage({ id: r.id, code, stdout, stderr });
  });
  child.stdin && child.stdin.on('error', () => undefined);
  child.stdin && child.stdin.end(r.input);
});
`;

let thread: Worker | undefined;
let nextId = 0;
const waiting = new Map<number, { resolve: (r: SpawnedResult) => void; reject: (e: Error) => void }>();

const asBuffer = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

function started(): Worker {
  if (thread) return thread;
  const w = new Worker(CODE, { eval: true, name: 'Pi git' }); // l10n-ignore: the thread's name, for debuggers
  w.on('message', (m: { id: number; code: number | string; stdout: Uint8Array; stderr: Uint8Array }) => {
    const p = waiting.get(m.id);
    waiting.delete(m.id);
    p?.resolve({ code: m.code, stdout: asBuffer(m.stdout), stderr: asBuffer(m.stderr) });
    // Idle, it never keeps the extension host (or a test run) alive by itself.
    if (!waiting.size) w.unref();
  });
  const fail = (err: Error) => {
    if (thread === w) thread = undefined;
    for (const p of waiting.values()) p.reject(err);
    waiting.clear();
  };
  w.on('error', fail);
  w.on('exit', (code) => fail(new Error(`the git thread ended (${code})`)));
  thread = w;
  return w;
}

/** Runs `file args` in `cwd` from the git thread, `input` on its stdin; resolves when it has exited. */
export function spawnOffThread(
  file: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  input: string,
  maxBuffer: number,
): Promise<SpawnedResult> {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    waiting.set(id, { resolve, reject });
    const request: Request = { id, file, args, cwd, env, input, maxBuffer };
    const w = started();
    w.ref();
    w.postMessage(request);
  });
}
