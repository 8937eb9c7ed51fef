/**
 * Checkpoints benchmark (not a test): a synthetic workspace of 10,000 files / 100 MB in a temp folder. Times the
 * first checkpoint, then an incremental checkpoint with 10 changed files over 20 rounds (p50/p95 wall time;
 * target p95 ≤ 200 ms), a restore to the first checkpoint and its undo, and the shadow repository's growth per
 * checkpoint. CPU is this process's plus git's: on a machine shared with other work it is the steadier figure.
 * For the calling thread (the Pi worker's, in the product) two figures: "stall", the longest wall-time gap
 * between 2 ms timer ticks (what a user feels, other processes' load included; compare with the idle line), and
 * "busy", the longest such gap in the thread's own CPU time, i.e. its longest synchronous stretch (target
 * ≤ 50 ms). git runs in child processes started from a helper thread (gitThread.ts), so both stay near idle.
 *
 * `--host-mb N` first fills N MB of this process's memory: in the product the checkpoints run inside the
 * extension host, which holds a few hundred MB, and every process Node starts forks all of it.
 *
 * Usage: node bench/checkpointBench.ts [--files 10000 --mb 100 --rounds 20 --changed 10 --host-mb 0]
 */

import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CheckpointStore } from '../src/worker/checkpoints/checkpointStore.ts';
import { numberArg, quantile } from './stats.ts';
import { watchThread } from './threadWatch.ts';

const FILES = numberArg('files', 10_000);
const MB = numberArg('mb', 100);
const ROUNDS = numberArg('rounds', 20);
const CHANGED = numberArg('changed', 10);
const HOST_MB = numberArg('host-mb', 0);
const PER_DIR = 100;

/** A small deterministic generator: the same workspace every run. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s;
  };
}

const WORDS = 'const let function return if else for while import export from class extends new this await async type interface'.split(' ');

/** Source-like text of about `bytes` bytes: compresses as code does, not as zeros or noise. */
function sourceText(rand: () => number, bytes: number): string {
  const lines: string[] = [];
  let n = 0;
  while (n < bytes) {
    const words = Array.from({ length: 3 + (rand() % 8) }, () => WORDS[rand() % WORDS.length]! + (rand() % 1000).toString(36));
    const line = `${'  '.repeat(rand() % 4)}${words.join(' ')};`;
    lines.push(line);
    n += line.length + 1;
  }
  return lines.join('\n') + '\n';
}

function relOf(i: number): string {
  return `pkg${Math.floor(i / PER_DIR)}/mod${i % PER_DIR}.ts`;
}

function makeWorkspace(): string {
  const ws = mkdtempSync(join(tmpdir(), 'pi-bench-cp-ws-'));
  const rand = prng(42);
  const size = Math.round((MB * 1024 * 1024) / FILES);
  for (let i = 0; i < FILES; i++) {
    if (i % PER_DIR === 0) mkdirSync(join(ws, `pkg${i / PER_DIR}`));
    writeFileSync(join(ws, relOf(i)), sourceText(rand, size));
  }
  writeFileSync(join(ws, '.gitignore'), 'dist/\n*.log\n');
  return ws;
}

function bytesUnder(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? bytesUnder(p) : statSync(p).size;
  }
  return n;
}

/**
 * CPU milliseconds used so far by this process and its children: those that ended (git) and those still running
 * with what they waited for (the long-lived shell that runs git); Linux only (/proc), else NaN for the children.
 */
function cpuMs(): number {
  const own = process.cpuUsage();
  let children = NaN;
  try {
    // After the command: field 14 and 15 are the process's own user and system time, 16 and 17 its waited-for
    // children's, in clock ticks (100 per second).
    const fields = (file: string) => readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
    const self = fields('/proc/self/stat');
    let ticks = Number(self[13]) + Number(self[14]);
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      const f = (() => {
        try {
          return fields(`/proc/${pid}/stat`);
        } catch {
          return undefined;
        }
      })();
      // Field 4 (index 1 after the command) is the parent's pid.
      if (f && Number(f[1]) === process.pid) ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    }
    children = (ticks * 1000) / 100;
  } catch {
    // Not Linux: wall time only.
  }
  return (own.user + own.system) / 1000 + children;
}

/**
 * Runs `fn`: its result, wall time, CPU time (this process and git; on a machine shared with other work the wall
 * time mostly measures waiting for a core) and the calling thread's longest stall and busy stretch meanwhile.
 */
async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; cpuMs: number; stallMs: number; busyMs: number }> {
  const stop = watchThread();
  const c0 = cpuMs();
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  const cpu = cpuMs() - c0;
  return { value, ms, cpuMs: cpu, ...stop() };
}

const fmt = (ms: number) => `${ms.toFixed(0)} ms`;
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;

// Touched, so the pages are really there: a fork copies the page tables of what is mapped.
const ballast = Array.from({ length: HOST_MB }, () => Buffer.alloc(1024 * 1024, 1));
const t0 = performance.now();
console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(
      ' ',
    )} on ${availableParallelism()} cores; this process holds ${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MB (${ballast.length} MB filled to stand for the extension host)`,
);
const ws = makeWorkspace();
const storage = mkdtempSync(join(tmpdir(), 'pi-bench-cp-storage-'));
console.log(`workspace: ${FILES} files, ${mb(bytesUnder(ws))} (generated in ${fmt(performance.now() - t0)})`);
try {
  // What the machine alone does to the event loop (other processes taking the cores), to read the stalls below against.
  const idle = await timed(() => new Promise((resolve) => setTimeout(resolve, 1000)));
  console.log(`an idle thread over 1 s on this machine: longest stall ${fmt(idle.stallMs)}, longest busy stretch ${fmt(idle.busyMs)}`);
  const store = new CheckpointStore({ workspace: ws, storageDir: storage });
  const avail = await store.available();
  if (!avail.available) throw new Error(avail.message);
  const first = await timed(() => store.checkpoint('first', { sessionId: 'bench', entryId: 'e0' }));
  const afterFirst = bytesUnder(store.gitDir);
  console.log(
    `first checkpoint: ${fmt(first.ms)}, CPU ${fmt(first.cpuMs)} (calling thread: longest stall ${fmt(first.stallMs)}, busy ${fmt(first.busyMs)}); shadow repository ${mb(afterFirst)}`,
  );

  const rand = prng(7);
  const times: number[] = [];
  const cpus: number[] = [];
  const stalls: number[] = [];
  const busy: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < CHANGED; k++) writeFileSync(join(ws, relOf(rand() % FILES)), sourceText(rand, 2000) + `// round ${r}\n`, { flag: 'a' });
    const t = await timed(() => store.checkpoint(`round ${r}`, { sessionId: 'bench', entryId: `e${r + 1}` }));
    times.push(t.ms);
    cpus.push(t.cpuMs);
    stalls.push(t.stallMs);
    busy.push(t.busyMs);
  }
  const afterRounds = bytesUnder(store.gitDir);
  console.log(
    `incremental checkpoint (${CHANGED} changed files, ${ROUNDS} rounds): p50 ${fmt(quantile(times, 0.5))}, p95 ${fmt(quantile(times, 0.95))}, max ${fmt(Math.max(...times))} (target p95 ≤ 200 ms); CPU p50 ${fmt(quantile(cpus, 0.5))}, p95 ${fmt(quantile(cpus, 0.95))}; calling thread: longest stall ${fmt(Math.max(...stalls))}, busy ${fmt(Math.max(...busy))} (target ≤ 50 ms)`,
  );
  console.log(`storage growth per incremental checkpoint: ${((afterRounds - afterFirst) / ROUNDS / 1024).toFixed(1)} KB (loose objects, before any git gc)`);

  const unchanged = await timed(() => store.checkpoint('unchanged', { sessionId: 'bench', entryId: 'same' }));
  console.log(`checkpoint of an unchanged workspace: ${fmt(unchanged.ms)}, CPU ${fmt(unchanged.cpuMs)}`);

  const diff = await timed(() => store.diff(first.value.id, 'workspace'));
  console.log(`diff first checkpoint -> workspace: ${fmt(diff.ms)}, CPU ${fmt(diff.cpuMs)} (${diff.value.length} files)`);

  const restore = await timed(() => store.restore(first.value.id));
  console.log(
    `restore to the first checkpoint: ${fmt(restore.ms)}, CPU ${fmt(restore.cpuMs)} (${restore.value.restored.length} files, ${restore.value.skipped.length} skipped; includes its undo checkpoint); calling thread: longest stall ${fmt(restore.stallMs)}, busy ${fmt(restore.busyMs)}`,
  );
  const undo = await timed(() => store.restore(restore.value.undoId));
  console.log(`undo restore: ${fmt(undo.ms)}, CPU ${fmt(undo.cpuMs)} (${undo.value.restored.length} files)`);
  console.log(`shadow repository at the end: ${mb(bytesUnder(store.gitDir))} for ${ROUNDS + 4} checkpoints`);
} finally {
  rmSync(ws, { recursive: true, force: true });
  rmSync(storage, { recursive: true, force: true });
}
