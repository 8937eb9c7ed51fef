/**
 * Under VS Code the worker's `process.execPath` is the editor's Electron binary, which runs as Node only with
 * `ELECTRON_RUN_AS_NODE=1`, a variable the worker's clean environment drops. Pi's extensions start
 * `process.execPath` to run `pi` again (subagents): those children get the variable back, no other child does.
 */

import type * as childProcess from 'node:child_process';

/** Wraps `spawn` of `cp` so a child that is this process's own executable runs as Node under Electron. */
export function runOwnExecutableAsNode(cp: typeof childProcess, proc: Pick<NodeJS.Process, 'execPath' | 'versions' | 'env'> = process): void {
  if (!proc.versions.electron) return;
  const original = cp.spawn as (...a: unknown[]) => childProcess.ChildProcess;
  const wrapped = function (this: unknown, command: unknown, ...rest: unknown[]) {
    if (command !== proc.execPath) return original.call(this, command, ...rest);
    const argsGiven = Array.isArray(rest[0]);
    const args = argsGiven ? rest[0] : [];
    const options = ((argsGiven ? rest[1] : rest[0]) ?? {}) as childProcess.SpawnOptions;
    return original.call(this, command, args, { ...options, env: { ...(options.env ?? proc.env), ELECTRON_RUN_AS_NODE: '1' } });
  };
  Object.defineProperties(wrapped, Object.getOwnPropertyDescriptors(original));
  (cp as { spawn: unknown }).spawn = wrapped;
}
