/**
 * The processes the Pi worker has running, in memory both threads share. The worker records a child in the
 * same call that spawns it; the main thread reads the table when it ends the worker. A message would come
 * too late: a terminated worker drops what it had posted, and a child can act (write a file, answer) before
 * its parent's `spawn` has even returned. So stopping closes the table first: a spawn under way finishes and
 * is recorded, and none starts after.
 */

/** A process the worker started; `group`: it leads a process group of its own (Pi's detached shells). */
export interface ChildProcessRef {
  readonly pid: number;
  readonly group: boolean;
}

/** Children running at once that the table can hold; a worker with more says so, and the rest are not tracked. */
const CHILD_PROCESS_SLOTS = 1024;

/** How long closing waits for a spawn under way (it takes milliseconds; a bound only against the unforeseen). */
const CLOSE_WAIT_MS = 5000;

const CLOSED = 0;
const SPAWNING = 1;
const FIRST_SLOT = 2;

/**
 * 32-bit integers: a closed flag, the count of spawns under way, then fixed slots: 0 is free, `pid` a
 * process, `-pid` a process-group leader (the number `process.kill` takes to end its whole group). Every
 * access is atomic, so the two threads never see a torn or stale value.
 */
export class ChildProcessTable {
  readonly buffer: SharedArrayBuffer;
  private readonly _cells: Int32Array;

  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer((FIRST_SLOT + CHILD_PROCESS_SLOTS) * Int32Array.BYTES_PER_ELEMENT)) {
    this.buffer = buffer;
    this._cells = new Int32Array(buffer);
  }

  /** Worker: a spawn is about to start; false once the table is closed (the worker is being stopped). */
  beginSpawn(): boolean {
    Atomics.add(this._cells, SPAWNING, 1);
    if (Atomics.load(this._cells, CLOSED) === 0) return true;
    this.endSpawn();
    return false;
  }

  /** Worker: the spawn begun last returned (and its child, if any, was added). */
  endSpawn(): void {
    Atomics.sub(this._cells, SPAWNING, 1);
    Atomics.notify(this._cells, SPAWNING);
  }

  /** Worker: records a running child; false when every slot is taken. */
  add({ pid, group }: ChildProcessRef): boolean {
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid > 0x7fffffff) return false;
    const value = group ? -pid : pid;
    for (let i = FIRST_SLOT; i < this._cells.length; i++) {
      if (Atomics.compareExchange(this._cells, i, 0, value) === 0) return true;
    }
    return false;
  }

  /** Worker: forgets a child that ended. */
  remove(pid: number): void {
    for (let i = FIRST_SLOT; i < this._cells.length; i++) {
      const value = Atomics.load(this._cells, i);
      if (value !== 0 && (value === pid || value === -pid)) Atomics.compareExchange(this._cells, i, value, 0);
    }
  }

  /**
   * Main thread: no spawn starts from now on; waits (blocking, for the milliseconds a spawn takes) for those
   * under way to be recorded, and returns every child recorded.
   */
  close(waitMs = CLOSE_WAIT_MS): ChildProcessRef[] {
    Atomics.store(this._cells, CLOSED, 1);
    Atomics.notify(this._cells, CLOSED);
    const deadline = Date.now() + waitMs;
    for (let n = Atomics.load(this._cells, SPAWNING); n > 0; n = Atomics.load(this._cells, SPAWNING)) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      try {
        Atomics.wait(this._cells, SPAWNING, n, left);
      } catch {
        // A host that forbids blocking its main thread: what is recorded now is all there is to kill.
        break;
      }
    }
    return this.running();
  }

  /** The children recorded now. */
  running(): ChildProcessRef[] {
    const out: ChildProcessRef[] = [];
    for (let i = FIRST_SLOT; i < this._cells.length; i++) {
      const value = Atomics.load(this._cells, i);
      if (value !== 0) out.push({ pid: Math.abs(value), group: value < 0 });
    }
    return out;
  }
}
