/** Ends the processes a stopped Pi worker left behind: its children belong to the extension host process, not to the worker. */

import { spawn } from 'node:child_process';
import type { ChildProcessRef } from '../shared/childProcessTable.ts';

/** Kills each process (and, for a process-group leader, its whole group: what a shell command started). */
export function killProcesses(running: readonly ChildProcessRef[]): void {
  for (const p of running) killTree(p);
}

function killTree({ pid, group }: ChildProcessRef): void {
  if (process.platform === 'win32') {
    try {
      spawn('taskkill', ['/F', '/T', '/PID', String(pid)], { stdio: 'ignore', windowsHide: true }).once('error', () => undefined);
    } catch {
      // Nothing more can be done from here.
    }
    return;
  }
  try {
    // A group that no longer exists means its leader is gone too: its pid may be someone else's by now.
    process.kill(group ? -pid : pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
