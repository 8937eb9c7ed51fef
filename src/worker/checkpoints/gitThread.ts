/**
 * Starts git processes from a thread of their own. Node's `spawn()` is synchronous until the child has exec'd
 * (fork, then a wait for the exec to report): on a busy machine that is 15–150 ms during which the calling
 * thread runs nothing else. Here that wait falls on a small helper thread, so the Pi worker keeps streaming
 * while a checkpoint runs its git commands.
 *
 * A fork copies the page tables of the whole process, so it costs more the more memory the extension host
 * holds (about 15 ms of CPU at 50 MB, 40 ms at 600 MB), more than the git command it starts. Where there is a
 * POSIX shell, a checkpoint's commands therefore go to one long-lived `sh` per repository (`runScriptOffThread`):
 * the helper writes each script to it, and the small shell forks git. Input and output go through files in the
 * shell's own temporary folder, so they may hold any bytes.
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

/** A shell script for a long-lived `sh` (one per `cwd` and `env`); `args` are its positional parameters. */
export interface ScriptRequest {
  readonly script: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Ends the shell (and what it runs) when the script takes longer; the next script starts a new one. */
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
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const shells = new Map();
let jobs = 0;
const quote = (a) => "'" + String(a).replace(/'/g, "'\\\\''") + "'";
const post = (reply, stdout) => {
  const bytes = stdout.buffer.slice(stdout.byteOffset, stdout.byteOffset + stdout.length);
  parentPort.postMessage({ ...reply, stdout: bytes }, [bytes]);
};
function shellFor(cwd, env) {
  const key = JSON.stringify([cwd, env]);
  const known = shells.get(key);
  if (known && !known.dead) return known;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-checkpoint-sh-'));
  // Its own process group, so a timeout ends the git it runs too; stdin is the script channel, stdout the done lines.
  const child = spawn('/bin/sh', ['-s'], { cwd, env, stdio: ['pipe', 'pipe', 'ignore'], detached: true });
  const sh = { child, dir, key, buf: '', pending: new Map(), dead: false, idle: undefined };
  // The shell removes its folder when it ends, also when this thread is gone first (its end of stdin closes).
  child.stdin.write('PI_SH_DIR=' + quote(dir) + '; trap \\'rm -rf -- "$PI_SH_DIR"\\' EXIT\\n');
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d) => {
    sh.buf += d;
    for (let nl = sh.buf.indexOf('\\n'); nl >= 0; nl = sh.buf.indexOf('\\n')) {
      const m = /^__pi_done__ (\\d+) (\\d+)$/.exec(sh.buf.slice(0, nl));
      sh.buf = sh.buf.slice(nl + 1);
      if (m) finish(sh, Number(m[1]), Number(m[2]), null);
    }
  });
  child.stdin.on('error', () => undefined);
  child.on('error', (e) => gone(sh, e));
  child.on('close', (code, signal) => gone(sh, undefined, signal));
  shells.set(key, sh);
  return sh;
}
function gone(sh, error, signal) {
  if (sh.dead) return;
  sh.dead = true;
  clearTimeout(sh.idle);
  if (shells.get(sh.key) === sh) shells.delete(sh.key);
  for (const id of [...sh.pending.keys()]) finish(sh, id, null, signal || 'SIGKILL', error);
  fs.rmSync(sh.dir, { recursive: true, force: true });
}
function finish(sh, id, code, signal, error) {
  const job = sh.pending.get(id);
  if (!job) return;
  sh.pending.delete(id);
  clearTimeout(job.timer);
  const read = (f) => { try { return fs.readFileSync(f); } catch { return Buffer.alloc(0); } };
  const stdout = read(job.base + '.out');
  const stderr = read(job.base + '.err').toString('utf8');
  for (const ext of ['.in', '.out', '.err']) fs.rmSync(job.base + ext, { force: true });
  const reply = { id: job.id, stderr, code, signal };
  if (error) Object.assign(reply, { errorCode: error.code || 'ESPAWN', errorMessage: error.message });
  post(reply, stdout);
  // An idle shell goes after a minute; the next script starts another.
  if (!sh.pending.size && !sh.dead) sh.idle = setTimeout(() => sh.child.stdin.end(), 60000);
}
function runScript({ id, script, args, cwd, env, timeoutMs, input }) {
  let sh;
  try {
    sh = shellFor(cwd, env);
  } catch (e) {
    parentPort.postMessage({ id, code: null, signal: null, errorCode: e.code || 'ESPAWN', errorMessage: e.message, stderr: '' });
    return;
  }
  clearTimeout(sh.idle);
  const n = ++jobs;
  const base = path.join(sh.dir, String(n));
  try {
    fs.writeFileSync(base + '.in', typeof input === 'string' ? input : Buffer.from(input));
  } catch (e) {
    // Its folder is gone (a temp cleaner): the next script gets a new shell and folder.
    sh.child.stdin.end();
    gone(sh);
    parentPort.postMessage({ id, code: null, signal: null, errorCode: e.code || 'EIO', errorMessage: e.message, stderr: '' });
    return;
  }
  const job = { id, base, timer: setTimeout(() => { try { process.kill(-sh.child.pid, 'SIGKILL'); } catch {} }, timeoutMs) };
  sh.pending.set(n, job);
  sh.child.stdin.write('( set -- ' + args.map(quote).join(' ') + '\\n' + script + '\\n) <' + quote(base + '.in') + ' >' + quote(base + '.out') + ' 2>' + quote(base + '.err') + '; echo "__pi_done__ ' + n + ' $?"\\n');
}
parentPort.on('message', (req) => {
  if (req.script !== undefined) return runScript(req);
  const { id, file, args, cwd, env, timeoutMs, input } = req;
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

  run(req: SpawnRequest | ScriptRequest): Promise<SpawnResult> {
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

/**
 * Runs a script in the helper thread's long-lived `sh` for `cwd` and `env` (started on first use); never rejects.
 * POSIX only. The script's exit status is the result's `code`; a shell that died or timed out gives a `signal`.
 */
export function runScriptOffThread(req: ScriptRequest): Promise<SpawnResult> {
  shared ??= new GitThread();
  return shared.run(req);
}
