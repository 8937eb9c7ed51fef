/**
 * The processes the Pi worker starts (Pi's shells for the bash tool and `!` commands, MCP servers, what
 * extensions spawn), tracked from spawn to close. A worker thread's children belong to the whole extension
 * host process: ending the worker leaves them running, so the main thread is told which to kill then.
 */

import type * as childProcess from 'node:child_process';
import type { ChildProcessRef } from '../shared/workerProtocol.ts';

export class ChildProcesses {
  private readonly _running = new Map<number, ChildProcessRef>();
  private readonly _onChange: (running: readonly ChildProcessRef[]) => void;

  constructor(onChange: (running: readonly ChildProcessRef[]) => void) {
    this._onChange = onChange;
  }

  /** The children running now. */
  get running(): readonly ChildProcessRef[] {
    return [...this._running.values()];
  }

  /**
   * Wraps `cp.spawn` (the module object every `require('node:child_process')` of this thread shares, Pi's
   * bundle included; it calls `spawn` through it at each use): each child is recorded until it closes.
   */
  install(cp: typeof childProcess): void {
    const spawn = cp.spawn;
    const track = (child: childProcess.ChildProcess, args: readonly unknown[]) => this._track(child, args);
    cp.spawn = function (this: unknown, ...args: unknown[]) {
      const child = (spawn as (...a: unknown[]) => childProcess.ChildProcess).apply(this, args);
      track(child, args);
      return child;
    } as typeof cp.spawn;
  }

  private _track(child: childProcess.ChildProcess, args: readonly unknown[]): void {
    const pid = child.pid;
    if (pid === undefined) return;
    const options = args.find((a): a is childProcess.SpawnOptions => typeof a === 'object' && a !== null && !Array.isArray(a));
    // Pi starts its shells detached: each leads a process group of its own, which holds what the command started.
    this._running.set(pid, { pid, group: options?.detached === true && process.platform !== 'win32' });
    this._onChange(this.running);
    // 'close' comes after the pipes close too, so a command's background job still holding them keeps it listed.
    child.once('close', () => {
      if (this._running.delete(pid)) this._onChange(this.running);
    });
  }
}
