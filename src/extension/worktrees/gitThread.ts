/**
 * Git's child processes, started by a small helper process that a worker thread of this one starts once. Starting a
 * process forks the process that starts it, copying its page tables; in the extension host (hundreds of MB) that
 * stalls the starting thread (worktreeBench's profile found `spawn` the longest stall), and, from any thread, the
 * main thread too, whose page faults wait for the copy (worktreeBench with 600 MB held: up to 400 ms). The helper
 * is small, so its forks cost little and stall nothing here; the thread takes the one wait for starting it.
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

// One git call, in the helper (or in the thread, when the helper cannot start): a function's text, so the two share it.
const RUN = `(r, reply) => {
  const child = require('node:child_process').execFile(r.file, r.args, { cwd: r.cwd, env: r.env, encoding: 'buffer', maxBuffer: r.maxBuffer, windowsHide: true }, (err, stdout, stderr) => {
    const code = err ? (typeof err.code === 'string' || typeof err.code === 'number' ? err.code : 1) : 0;
    reply({ id: r.id, code, stdout, stderr });
  });
  child.stdin && child.stdin.on('error', () => undefined);
  child.stdin && child.stdin.end(r.input);
}`;

// The helper process: it ends with its channel (the thread, or the whole extension host, gone).
const HELPER = `const run = ${RUN};
process.on('message', (r) => run(r, (m) => process.send(m)));
process.on('disconnect', () => process.exit(0));`;

// The thread's code is plain CommonJS text, so it needs no bundle entry of its own.
// l10n-ignore: code, not text; its one message stands where git's own stderr (untranslated, LC_ALL=C) would
const CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const { spawn } = require('node:child_process');
const run = ${RUN};
const reply = (m) => parentPort.postMessage(m);
const pending = new Map();
let helper;
let answered = false;
let direct = false;
function started() {
  if (helper) return helper;
  // ELECTRON_RUN_AS_NODE: in VS Code the host's executable is Electron's, which runs as plain Node with it.
  const h = spawn(process.execPath, ['-e', workerData.helper], {
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    serialization: 'advanced',
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', NODE_OPTIONS: undefined },
    windowsHide: true,
  });
  h.on('message', (m) => {
    answered = true;
    pending.delete(m.id);
    reply(m);
  });
  const gone = () => {
    if (helper !== h) return;
    helper = undefined;
    // A helper that never answered cannot start here: its calls, and all later ones, run from this thread. One that
    // worked and ended (killed) fails only the calls it had: a git command may have half run, so none runs twice.
    if (!answered) direct = true;
    for (const r of pending.values()) direct ? run(r, reply) : reply({ id: r.id, code: 1, stdout: Buffer.alloc(0), stderr: Buffer.from('the git helper process ended') });
    pending.clear();
  };
  h.on('exit', gone);
  h.on('error', gone);
  return (helper = h);
}
parentPort.on('message', (r) => {
  if (direct) return run(r, reply);
  pending.set(r.id, r);
  started().send(r);
});
`;

let thread: Worker | undefined;
let nextId = 0;
const waiting = new Map<number, { resolve: (r: SpawnedResult) => void; reject: (e: Error) => void }>();

const asBuffer = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

function started(): Worker {
  if (thread) return thread;
  const w = new Worker(CODE, { eval: true, name: 'Pi git', workerData: { helper: HELPER } }); // l10n-ignore: the thread's name, for debuggers
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
