/**
 * Several chats on one extension host: main-thread stalls with 1 and with 4 chats streaming at once (each its own
 * PiClient and worker, as `Chats` makes them), memory with 1 and 4 idle chats and after their idle workers stop,
 * and Cancel -> settled in one chat while 3 others stream. Real dist/worker.js, scripted models in child
 * processes. A report, not a test: `node bench/chatsBench.ts [--chars N]`.
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
import type { WorkerConfig } from '../src/shared/wire/workerProtocol.ts';
import type { Scenario } from '../test/scriptedModel/scenario.ts';
import { makePiAgentDir } from '../test/support/piConfig.ts';
import { lorem } from '../test/support/wireStream.ts';
import { numberArg, quantile } from './stats.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const workerFile = join(root, 'dist', 'worker.js');
const quiet = { info() {}, warn() {}, error() {} };
const CHARS = numberArg('chars', 20_000);

/** The scripted model in a process of its own, so its streaming never counts as main-thread work here. */
async function childModel(scenario: Scenario): Promise<{ url: string; close(): Promise<void> }> {
  const file = join(mkdtempSync(join(tmpdir(), 'pi-bench-scenario-')), 'scenario.json');
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
  return { url, close: () => new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM'))) };
}

interface BenchChat {
  readonly client: PiClient;
  close(): Promise<void>;
}

/** A chat streaming `reply` in 10-char deltas, 1 ms apart at most (~1,000 deltas/s), for each of `replies` prompts. */
async function makeChat(replies: number): Promise<BenchChat> {
  const reply = lorem(CHARS);
  const steps = Array.from({ length: replies }, () => ({ chunks: [{ text: reply, split: 10, delayMs: 1 }], finish: 'stop' }));
  const model = await childModel({ name: 'bench-chats', steps } as Scenario);
  // No automatic compaction: the replies pile up past the scripted model's context window, and a summary would take a scripted reply.
  const agentDir = await makePiAgentDir({ baseUrl: model.url, settings: { compaction: { enabled: false } } });
  const cwd = mkdtempSync(join(tmpdir(), 'pi-bench-ws-'));
  const config: WorkerConfig = { cwd, agentDir, trusted: true, tools: [], settleTimeoutMs: 5000, noResponseMs: 0, collapseThinking: true };
  const client = new PiClient(
    (workerData) => new Worker(workerFile, { workerData }),
    () => config,
    quiet,
    realScheduler,
    { requestTimeoutMs: 30_000, pingMs: 1000, hangMs: 30_000 },
    undefined,
    { fresh: true },
  );
  return {
    client,
    async close() {
      client.dispose();
      await model.close();
    },
  };
}

/** Resolves once `predicate` holds, checked on each batch the client applies (and on a slow timer). */
function until(client: PiClient, predicate: () => boolean, what: string, timeoutMs = 120_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const check = () => {
      if (predicate()) done();
      else if (Date.now() - started > timeoutMs) done(new Error(`timed out waiting for ${what}`));
    };
    const done = (err?: Error) => {
      sub.dispose();
      clearInterval(timer);
      if (err) reject(err);
      else resolve();
    };
    const sub = client.onDidEmit(check);
    const timer = setInterval(check, 50);
    check();
  });
}

const settled = (c: PiClient, n: number) => () => !c.state.run.active && c.state.messages.filter((m) => m.role === 'assistant' && m.final).length >= n;

/** Main-thread event-loop delay while `fn` runs: max and p99 in ms, and the longest stretch of this thread's own CPU work. */
async function stalls(fn: () => Promise<void>): Promise<string> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  let own = 0;
  let last = cpuMicros();
  const sampler = setInterval(() => {
    const cpu = cpuMicros();
    own = Math.max(own, cpu - last);
    last = cpu;
  }, 5);
  h.enable();
  await fn();
  h.disable();
  clearInterval(sampler);
  return `max ${(h.max / 1e6).toFixed(1)} ms, p99 ${(h.percentile(99) / 1e6).toFixed(1)} ms (own work at most ${(own / 1000).toFixed(1)} ms at a time)`;
}

function cpuMicros(): number {
  const p = process as unknown as { threadCpuUsage?: () => NodeJS.CpuUsage };
  const u = p.threadCpuUsage ? p.threadCpuUsage() : process.cpuUsage();
  return u.user + u.system;
}

const rssMb = (): number => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss / 2 ** 20;
};

async function streaming(n: number): Promise<void> {
  const chats = await Promise.all(Array.from({ length: n }, () => makeChat(1)));
  try {
    await Promise.all(chats.map((c) => c.client.ensureSession()));
    const t0 = performance.now();
    const r = await stalls(async () => {
      for (const c of chats) void c.client.send('Write a lot.', 'prompt');
      await Promise.all(chats.map((c) => until(c.client, settled(c.client, 1), 'the reply')));
    });
    const chars = chats.map(
      (c) =>
        c.client.state.messages
          .at(-1)
          ?.blocks.map((b) => b?.text ?? '')
          .join('').length ?? 0,
    );
    console.log(
      `${n} chat(s) streaming ${CHARS.toLocaleString('en-US')} chars each at ~1,000 deltas/s: main-thread stall ${r}; ${((performance.now() - t0) / 1000).toFixed(1)} s; chars arrived ${chars.join(', ')}`,
    );
  } finally {
    await Promise.all(chats.map((c) => c.close()));
  }
}

async function memory(): Promise<void> {
  const base = rssMb();
  const chats: BenchChat[] = [];
  const line: string[] = [`before any chat ${base.toFixed(0)} MB`];
  for (const n of [1, 4]) {
    while (chats.length < n) chats.push(await makeChat(1));
    await Promise.all(chats.map((c) => c.client.ensureSession()));
    line.push(`${n} idle chat(s) ${rssMb().toFixed(0)} MB`);
  }
  const four = rssMb();
  await Promise.all(chats.map((c) => c.client.stopIdle()));
  await new Promise((r) => setTimeout(r, 1000));
  line.push(`after their idle workers stop ${rssMb().toFixed(0)} MB`);
  const t0 = performance.now();
  await chats[0]!.client.ensureSession();
  line.push(`one resumes in ${(performance.now() - t0).toFixed(0)} ms`);
  console.log(`memory (process RSS: extension host thread + workers; empty sessions): ${line.join('; ')}; ~${((four - base) / 4).toFixed(0)} MB per chat`);
  await Promise.all(chats.map((c) => c.close()));
}

async function cancelOneOfFour(reps: number): Promise<void> {
  const chats = await Promise.all(Array.from({ length: 4 }, () => makeChat(reps)));
  const latencies: number[] = [];
  let missed = 0;
  let short = 0;
  try {
    await Promise.all(chats.map((c) => c.client.ensureSession()));
    for (let i = 0; i < reps; i++) {
      const [victim, ...others] = chats.map((c) => c.client);
      // This run's reply, not the last run's: a row after the ones there before the send.
      const rowsBefore = victim!.state.messages.length;
      for (const c of chats) void c.client.send(`Write a lot (${i}).`, 'prompt');
      await until(
        victim!,
        () => victim!.state.messages.length > rowsBefore + 1 && (victim!.state.messages.at(-1)?.blocks[0]?.text?.length ?? 0) > 2000,
        '2,000 characters in the chat to cancel',
      );
      const t0 = performance.now();
      void victim!.cancel();
      await until(victim!, () => !victim!.state.run.active && victim!.state.run.outcome !== undefined, 'the cancelled run to settle');
      // A reply that ended before the cancel reached Pi is not a cancel: counted apart.
      if (victim!.state.run.outcome?.kind === 'cancelled') latencies.push(performance.now() - t0);
      else missed++;
      await Promise.all(others.map((c) => until(c, settled(c, i + 1), `reply ${i + 1} of another chat`)));
      const whole = others.every(
        (c) =>
          (c.state.messages
            .at(-1)
            ?.blocks.map((b) => b?.text ?? '')
            .join('').length ?? 0) >= CHARS,
      );
      if (!whole) {
        short++;
        for (const c of others) {
          const last = c.state.messages.at(-1);
          console.log(
            `  short: last row ${last?.role} ${last?.blocks.map((b) => b?.text ?? '').join('').length} chars: ${JSON.stringify(
              last?.blocks
                .map((b) => b?.text ?? '')
                .join('')
                .slice(0, 80),
            )}`,
          );
        }
      }
    }
    console.log(
      `cancel one chat while 3 others stream: cancel -> settled p50 ${quantile(latencies, 0.5).toFixed(0)} ms, p95 ${quantile(latencies, 0.95).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms (${latencies.length} runs; ${missed} replies ended before the cancel); the other chats' replies arrived whole in ${reps - short} of ${reps} runs`,
    );
  } finally {
    await Promise.all(chats.map((c) => c.close()));
  }
}

console.log('chats bench: PiClients on this thread, each with its Pi in dist/worker.js, scripted models in child processes');
// `--only cancel` (or streaming, memory) runs one part.
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
if (!only || only === 'streaming') {
  await streaming(1);
  await streaming(4);
}
if (!only || only === 'memory') await memory();
if (!only || only === 'cancel') await cancelOneOfFour(numberArg('cancels', 5));
process.exit(0);
