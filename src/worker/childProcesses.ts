/**
 * The processes the Pi worker starts (Pi's shells for the bash tool and `!` commands, MCP servers, what
 * extensions spawn), tracked from spawn to close. A worker thread's children belong to the whole extension
 * host process: ending the worker leaves them running, so they are recorded where the main thread can read
 * them when it ends the worker (src/shared/childProcessTable.ts).
 */

import type * as childProcess from 'node:child_process';
import type { ChildProcessTable } from '../shared/childProcessTable.ts';

export class ChildProcesses {
  private readonly _table: ChildProcessTable;
  private readonly _onUntracked: (pid: number) => void;

  /** `onUntracked`: a child the full table could not record (it would outlive the worker). */
  constructor(table: ChildProcessTable, onUntracked: (pid: number) => void) {
    this._table = table;
    this._onUntracked = onUntracked;
  }

  /**
   * Wraps `spawn`, `execFile`, `exec` and `fork` of `cp` (the module object every `require('node:child_process')`
   * of this thread shares, Pi's bundle included; it calls them through it at each use): each child is
   * recorded before the call returns, until it closes. Once the worker is being stopped, they refuse to start one.
   */
  install(cp: typeof childProcess): void {
    for (const name of ['spawn', 'execFile', 'exec', 'fork'] as const) {
      const original = cp[name] as (...a: unknown[]) => childProcess.ChildProcess;
      const table = this._table;
      const track = (child: childProcess.ChildProcess, args: readonly unknown[]) => this._track(child, args);
      const wrapped = function (this: unknown, ...args: unknown[]) {
        if (!table.beginSpawn()) throw new Error('Pi is stopping: no new process starts.');
        try {
          const child = original.apply(this, args);
          track(child, args);
          return child;
        } finally {
          table.endSpawn();
        }
      };
      // `util.promisify(exec)` and friends keep working: they read this symbol off the function.
      Object.defineProperties(wrapped, Object.getOwnPropertyDescriptors(original));
      (cp as Record<typeof name, unknown>)[name] = wrapped;
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
