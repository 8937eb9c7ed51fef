/**
 * The processes the Pi worker starts (Pi's shells for the bash tool and `!` commands, MCP servers, what
 * extensions spawn), tracked from spawn to close, and started in the workspace unless told otherwise. A worker
 * thread's children belong to the whole extension host process: ending the worker leaves them running, so
 * they are recorded where the main thread can read them when it ends the worker (src/shared/childProcessTable.ts).
 */

import type * as childProcess from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { ChildProcessTable } from '../shared/childProcessTable.ts';

export class ChildProcesses {
  private readonly _table: ChildProcessTable;
  private readonly _onUntracked: (pid: number) => void;
  private readonly _workspace: () => string | undefined;

  /**
   * `onUntracked`: a child the full table could not record (it would outlive the worker). `workspace`: the
   * folder a child starts in when its call names none; by default the worker's `process.cwd()`, which answers
   * the workspace (workspaceCwd.ts) while the process itself stays in the extension host's folder.
   */
  constructor(table: ChildProcessTable, onUntracked: (pid: number) => void, workspace: () => string | undefined = () => process.cwd()) {
    this._table = table;
    this._onUntracked = onUntracked;
    this._workspace = workspace;
  }

  /**
   * Wraps `spawn`, `execFile`, `exec` and `fork` of `cp` (the module object every `require('node:child_process')`
   * of this thread shares, Pi's bundle included; it calls them through it at each use): each child is
   * recorded before the call returns, until it closes. Once the worker is being stopped, they refuse to start one.
   * Those and `spawnSync`, `execSync` and `execFileSync` start a child without `cwd` in the workspace, as
   * `pi` started there would: a worker thread cannot `chdir`, so Node would start it in the host's folder.
   */
  install(cp: typeof childProcess): void {
    const workspace = this._workspace;
    for (const name of ['spawn', 'execFile', 'exec', 'fork'] as const) {
      const original = cp[name] as (...a: unknown[]) => childProcess.ChildProcess;
      const table = this._table;
      const track = (child: childProcess.ChildProcess, args: readonly unknown[]) => this._track(child, args);
      const wrapped = function (this: unknown, ...given: unknown[]) {
        if (!table.beginSpawn()) throw new Error('Pi is stopping: no new process starts.');
        try {
          const args = inWorkspace(name, given, workspace());
          const child = original.apply(this, args);
          track(child, args);
          return child;
        } finally {
          table.endSpawn();
        }
      };
      replace(cp, name, original, wrapped);
    }
    // A synchronous child has ended when the call returns: nothing to record.
    for (const name of ['spawnSync', 'execSync', 'execFileSync'] as const) {
      const original = cp[name] as (...a: unknown[]) => unknown;
      const wrapped = function (this: unknown, ...given: unknown[]) {
        return original.apply(this, inWorkspace(name, given, workspace()));
      };
      replace(cp, name, original, wrapped);
    }
  }

  private _track(child: childProcess.ChildProcess, args: readonly unknown[]): void {
    const pid = child.pid;
    if (pid === undefined) return;
    const options = args.find((a): a is childProcess.SpawnOptions => typeof a === 'object' && a !== null && !Array.isArray(a));
    // Pi starts its shells detached: each leads a process group of its own, which holds what the command started.
    if (!this._table.add({ pid, group: options?.detached === true && process.platform !== 'win32' })) {
      this._onUntracked(pid);
      return;
    }
    // 'close' comes after the pipes close too, so a command's background job still holding them keeps it listed.
    child.once('close', () => this._table.remove(pid));
  }
}

type ChildProcessCall = 'spawn' | 'execFile' | 'exec' | 'fork' | 'spawnSync' | 'execSync' | 'execFileSync';

/** Puts `wrapped` in `original`'s place on `cp`. */
function replace(cp: typeof childProcess, name: ChildProcessCall, original: object, wrapped: (...a: unknown[]) => unknown): void {
  const properties = Object.getOwnPropertyDescriptors(original) as Record<PropertyKey, PropertyDescriptor>;
  // `util.promisify(exec)` and `execFile` keep working (they read this symbol off the function), but Node's
  // own promisified forms call the unwrapped function: theirs go through the wrapper.
  if (promisify.custom in properties) properties[promisify.custom] = { value: promisified(wrapped) };
  Object.defineProperties(wrapped, properties);
  (cp as Record<ChildProcessCall, unknown>)[name] = wrapped;
}

type ExecError = Error & { stdout?: unknown; stderr?: unknown };

/** `util.promisify` of `exec` or `execFile` as Node makes it (`{ stdout, stderr }`, both on the error too, the child as `.child`), calling `call`. */
function promisified(call: (...a: unknown[]) => unknown): (...a: unknown[]) => Promise<{ stdout: unknown; stderr: unknown }> {
  return function (this: unknown, ...args: unknown[]) {
    let settle: { resolve: (v: { stdout: unknown; stderr: unknown }) => void; reject: (err: unknown) => void } | undefined;
    const promise = new Promise<{ stdout: unknown; stderr: unknown }>((resolve, reject) => (settle = { resolve, reject }));
    const done = (err: ExecError | null, stdout: unknown, stderr: unknown) => {
      if (!err) return settle!.resolve({ stdout, stderr });
      err.stdout = stdout;
      err.stderr = stderr;
      settle!.reject(err);
    };
    return Object.assign(promise, { child: call.apply(this, [...args, done]) });
  };
}

/**
 * The arguments of a `name` call with its options' `cwd` in `dir`: added when none is given, resolved
 * against `dir` when relative; the caller's options object is copied, never changed. Arguments Node would
 * refuse are left for Node to refuse.
 */
function inWorkspace(name: ChildProcessCall, args: readonly unknown[], dir: string | undefined): unknown[] {
  const out = [...args];
  if (!dir) return out;
  // `exec(command, options?, callback?)`; the others take an argument list first, which may be left out or null.
  const listGiven = Array.isArray(args[1]) || (args[1] == null && args.length > 2);
  const at = name === 'exec' || name === 'execSync' || !listGiven ? 1 : 2;
  const options = args[at];
  if (options == null) out[at] = { cwd: dir };
  else if (typeof options === 'function') out.splice(at, 0, { cwd: dir });
  else if (typeof options === 'object') {
    const cwd = (options as { cwd?: unknown }).cwd;
    if (cwd == null) out[at] = { ...options, cwd: dir };
    else if (typeof cwd === 'string' && !path.isAbsolute(cwd)) out[at] = { ...options, cwd: path.resolve(dir, cwd) };
  }
  return out;
}
