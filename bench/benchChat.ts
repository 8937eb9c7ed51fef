/**
 * One chat for the host-level benches (hostBench, chatsBench): the product's PiClient on this thread with its
 * Pi in the real dist/worker.js and a scripted model in a child process; and the main-thread stall meter.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PiClient } from '../src/extension/piClient.ts';
import { realScheduler } from '../src/shared/batcher.ts';
import type { SessionStart, WorkerConfig } from '../src/shared/wire/workerProtocol.ts';
import type { Scenario } from '../test/scriptedModel/scenario.ts';
import { makePiAgentDir } from '../test/support/piConfig.ts';
import { tempDir } from '../test/support/tempDir.ts';

export const root = fileURLToPath(new URL('..', import.meta.url));
const workerFile = join(root, 'dist', 'worker.js');
const quiet = { info() {}, warn() {}, error() {} };

/** The scripted model in a process of its own, so its streaming never counts as main-thread work here. */
export async function startChildModel(scenario: Scenario): Promise<{ url: string; close(): Promise<void> }> {
  const file = join(tempDir('pi-bench-scenario-'), 'scenario.json');
  writeFileSync(file, JSON.stringify(scenario));
  const child = spawn(process.execPath, ['--disable-warning=MODULE_TYPELESS_PACKAGE_JSON', join(root, 'test', 'scriptedModel', 'cli.ts'), '--scenario', file], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.trim().split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`scripted model exited with ${code}`)));
  });
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface BenchChat {
  readonly client: PiClient;
  readonly cwd: string;
  readonly agentDir: string;
  /** Resolves once `predicate` holds (checked on each batch the client applies, and on a slow timer). */
  until(predicate: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** Stops the worker and the model. */
  dispose(): Promise<void>;
}

export interface BenchChatOptions {
  /** Pi's retry settings (default: the test agent dir's). */
  readonly retry?: { maxRetries: number; baseDelayMs: number };
  /** More of Pi's settings.json. */
  readonly settings?: Record<string, unknown>;
  /** The workspace folder (default: a new temporary one). */
  readonly cwd?: string;
  /** The session the worker starts on (default: Pi's choice, as the sidebar's first start). */
  readonly first?: SessionStart;
}

/** A chat whose model answers with `scenario`'s steps, one per prompt. */
export async function benchChat(scenario: Scenario, options: BenchChatOptions = {}): Promise<BenchChat> {
  const cwd = options.cwd ?? mkdtempSync(join(tmpdir(), 'pi-bench-ws-'));
  const model = await startChildModel(scenario);
  const agentDir = await makePiAgentDir({ baseUrl: model.url, retry: options.retry, settings: options.settings });
  const config: WorkerConfig = { cwd, agentDir, trusted: true, tools: [], settleTimeoutMs: 5000, noResponseMs: 0, collapseThinking: true };
  const client = new PiClient(
    (workerData) => new Worker(workerFile, { workerData }),
    () => config,
    quiet,
    realScheduler,
    { requestTimeoutMs: 30_000, pingMs: 1000, hangMs: 30_000 },
    undefined,
    options.first,
  );
  return {
    client,
    cwd,
    agentDir,
    until: (predicate, what, timeoutMs) => until(client, predicate, what, timeoutMs),
    async dispose() {
      client.dispose();
      await model.close();
    },
  };
}

/** Resolves once `predicate` holds. Polling in a tight loop would itself be main-thread work: checked per batch. */
export function until(client: PiClient, predicate: () => boolean, what: string, timeoutMs = 120_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const done = (err?: Error) => {
      sub.dispose();
      clearInterval(timer);
      if (err) reject(err);
      else resolve();
    };
    const check = () => {
      if (predicate()) done();
      else if (Date.now() - started > timeoutMs) done(new Error(`timed out waiting for ${what}`));
    };
    const sub = client.onDidEmit(check);
    const timer = setInterval(check, 50);
    check();
  });
}

/** Main-thread stalls while something ran, in ms (as text, one decimal). */
export interface Stalls {
  readonly max: string;
  readonly p99: string;
  /** The share of the wall time this thread spent on its CPU. */
  readonly busy: string;
  /** This thread's longest stretch of its own work. */
  readonly own: string;
}

/**
 * Main-thread event-loop delay while `fn` runs (10 ms resolution): max and p99 in ms, and the share of the
 * wall time this thread spent on its CPU (the rest of a long delay is the thread waiting for a core). `own`:
 * the most CPU time this thread spent between two ticks of a 5 ms timer, i.e. its longest stretch of its own
 * work, which other processes on the machine do not lengthen (they do lengthen `max`).
 */
export async function stalls(fn: () => Promise<void>): Promise<Stalls> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  const wall0 = performance.now();
  const cpu0 = cpuMicros();
  let own = 0;
  let lastCpu = cpu0;
  const sampler = setInterval(() => {
    const cpu = cpuMicros();
    own = Math.max(own, cpu - lastCpu);
    lastCpu = cpu;
  }, 5);
  h.enable();
  await fn();
  h.disable();
  clearInterval(sampler);
  own = Math.max(own, cpuMicros() - lastCpu);
  const busy = (cpuMicros() - cpu0) / 1000 / (performance.now() - wall0);
  const ms = (ns: number) => (ns / 1e6).toFixed(1);
  return { max: ms(h.max), p99: ms(h.percentile(99)), busy: `${(busy * 100).toFixed(1)}%`, own: (own / 1000).toFixed(1) };
}

/** This thread's CPU time in µs (the process's where Node cannot tell threads apart). */
export function cpuMicros(): number {
  const p = process as unknown as { threadCpuUsage?: () => NodeJS.CpuUsage };
  const u = p.threadCpuUsage ? p.threadCpuUsage() : process.cpuUsage();
  return u.user + u.system;
}
