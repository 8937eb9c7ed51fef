/** What a bench's thread did while some work ran: its longest stall, and how much of it was the thread's own doing, not the machine's. */

import { closeSync, openSync, readSync } from 'node:fs';

/** The calling thread's longest gaps between two ticks of a 2 ms timer, each counted three ways (ms). */
export interface ThreadStalls {
  /** Wall time: what a user would feel, waiting for a core on a busy machine included. */
  readonly stallMs: number;
  /** Less the time the thread waited for a core: its own work or a wait it made (a synchronous spawn, a lock, sync I/O). */
  readonly ownMs: number;
  /** The thread's CPU time in it: the longest stretch of synchronous work. */
  readonly busyMs: number;
}

/**
 * The milliseconds the calling thread has waited, runnable, for a core (Linux's schedstat), read into one buffer
 * without allocating: the watch's own garbage would otherwise bring collections into what it measures. Undefined
 * where there is no schedstat.
 */
function runQueueWait(): { read(): number; close(): void } | undefined {
  let fd: number;
  try {
    fd = openSync('/proc/thread-self/schedstat', 'r');
  } catch {
    return undefined;
  }
  const buf = Buffer.alloc(96);
  return {
    read: () => {
      const n = readSync(fd, buf, 0, buf.length, 0);
      // "<run ns> <wait ns> <slices>": the second number.
      let i = buf.indexOf(0x20) + 1;
      let ns = 0;
      for (; i < n && buf[i]! >= 0x30 && buf[i]! <= 0x39; i++) ns = ns * 10 + (buf[i]! - 0x30);
      return ns / 1e6;
    },
    close: () => closeSync(fd),
  };
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
  const wait = runQueueWait();
  let stallMs = 0;
  let ownMs = 0;
  let busyMs = 0;
  let wall = performance.now();
  let cpu = threadCpuMs();
  let waited = wait?.read() ?? 0;
  const timer = setInterval(() => {
    const w = performance.now();
    const c = threadCpuMs();
    const q = wait?.read() ?? 0;
    stallMs = Math.max(stallMs, w - wall);
    ownMs = Math.max(ownMs, w - wall - (q - waited));
    busyMs = Math.max(busyMs, c - cpu);
    wall = w;
    cpu = c;
    waited = q;
  }, 2);
  return () => {
    clearInterval(timer);
    wait?.close();
    return { stallMs, ownMs, busyMs };
  };
}
