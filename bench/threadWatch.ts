/** What a bench's thread did while some work ran: its longest stall, and how much of it was the thread's own doing, not the machine's. */

import { readFileSync } from 'node:fs';

/** The calling thread's longest gaps between two ticks of a 2 ms timer, each counted three ways (ms). */
export interface ThreadStalls {
  /** Wall time: what a user would feel, waiting for a core on a busy machine included. */
  readonly stallMs: number;
  /** Less the time the thread waited for a core: its own work or a wait it made (a synchronous spawn, a lock, sync I/O). */
  readonly ownMs: number;
  /** The thread's CPU time in it: the longest stretch of synchronous work. */
  readonly busyMs: number;
}

/** Nanoseconds the calling thread has waited, runnable, for a core (Linux's schedstat); undefined elsewhere. */
function runQueueWaitMs(): number | undefined {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return undefined;
  }
}

function threadCpuMs(): number {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * Watches the calling thread from now until the returned function is called. Without Linux's schedstat, `ownMs` is
 * the wall time: the machine's share cannot be told apart.
 */
export function watchThread(): () => ThreadStalls {
  let stallMs = 0;
  let ownMs = 0;
  let busyMs = 0;
  let wall = performance.now();
  let cpu = threadCpuMs();
  let waited = runQueueWaitMs();
  const timer = setInterval(() => {
    const w = performance.now();
    const c = threadCpuMs();
    const q = runQueueWaitMs();
    stallMs = Math.max(stallMs, w - wall);
    ownMs = Math.max(ownMs, w - wall - (q !== undefined && waited !== undefined ? q - waited : 0));
    busyMs = Math.max(busyMs, c - cpu);
    wall = w;
    cpu = c;
    waited = q;
  }, 2);
  return () => {
    clearInterval(timer);
    return { stallMs, ownMs, busyMs };
  };
}
