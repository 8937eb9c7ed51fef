/**
 * The Pi worker's heap against session length (a report, not a test): the real dist/worker.js under the
 * product's PiClient, the scripted model in a process of its own. At 100, 1,000 and 5,000 realistic turns
 * (a markdown reply with a list and code and a bash call, its ~2 KB result, a short answer) resumed from a
 * session file, then with live turns streamed on top: the worker's V8 heap after GC (read inside the
 * worker, whose `gc` a few lines ahead of dist/worker.js expose), the main thread's beside it, bytes per turn on each side, and both
 * extrapolated to a 10-hour session (1,500 turns). The worker's figures also come without V8's code spaces
 * (bytecode, compiled code and their metadata: code_space, trusted_space and their large-object spaces): code
 * grows while the first live turns' functions tier up and shrinks when V8 flushes unused bytecode, so over a
 * few live turns it swamps the data they keep (heap snapshots after 10 and 20 live turns: 28 of 37 KB per turn
 * was code; after 30 and 60, code fell by 51 KB per turn while data grew by 6.5 KB per turn).
 *
 * Usage: npm run build && node --expose-gc bench/workerMemoryBench.ts [--turns 100,1000,5000] [--live 20]
 */

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BroadcastChannel, Worker } from 'node:worker_threads';
import { PiClient } from '../src/extension/piClient.ts';
import { realScheduler } from '../src/shared/batcher.ts';
import type { WorkerConfig } from '../src/shared/wire/workerProtocol.ts';
import { sessionDirFor } from '../src/worker/piSessions.ts';
import type { Scenario } from '../test/scriptedModel/scenario.ts';
import { makePiAgentDir } from '../test/support/piConfig.ts';
import { startChildModel, until } from './benchChat.ts';
import { numberArg } from './stats.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const workerFile = join(root, 'dist', 'worker.js');
const quiet = { info() {}, warn() {}, error: console.error };
const SIZES = (process.argv.includes('--turns') ? process.argv[process.argv.indexOf('--turns') + 1]! : '100,1000,5000').split(',').map(Number);
const LIVE = numberArg('live', 20);
const HEAP_CHANNEL = 'pi-bench-worker-heap';

const REPLY =
  'Here is what I found in the code:\n\n- the server starts in `start()`\n- requests go through `handler`\n- errors are logged, not thrown\n\n' +
  '```ts\nexport function start(port: number): Server {\n  const server = createServer(handler);\n  server.listen(port);\n  return server;\n}\n```\n\nI will run the tests next.';
const OUTPUT = Array.from({ length: 40 }, (_, i) => `ok ${i + 1} - test case number ${i + 1} passes in ${i}ms`).join('\n');
/** Prints {@link OUTPUT} (the live turns' bash call). */
const COMMAND = `for i in $(seq 1 40); do echo "ok $i - test case number $i passes in $((i-1))ms"; done`;

/**
 * The worker as the product starts it, behind a few lines that answer a heap request on a broadcast channel
 * (not the worker's own port, which the product owns): two full GCs, then V8's heap statistics.
 */
function workerWithHeapProbe(workerData: unknown): Worker {
  // Workers inherit this process's --expose-gc; without it, the flag is set at run time.
  const probe = `{
    const { BroadcastChannel } = require('node:worker_threads');
    const v8 = require('node:v8');
    if (typeof globalThis.gc !== 'function') v8.setFlagsFromString('--expose-gc');
    const collect = globalThis.gc ?? require('node:vm').runInNewContext('gc');
    const channel = new BroadcastChannel(${JSON.stringify(HEAP_CHANNEL)});
    const CODE = ['code_space', 'code_large_object_space', 'trusted_space', 'trusted_large_object_space'];
    channel.onmessage = () => {
      collect(); collect();
      const code = v8.getHeapSpaceStatistics().filter((s) => CODE.includes(s.space_name)).reduce((n, s) => n + s.space_used_size, 0);
      channel.postMessage([v8.getHeapStatistics().used_heap_size, code]);
    };
  }
  require(${JSON.stringify(workerFile)});`;
  return new Worker(probe, { eval: true, workerData });
}

/** The main thread's end of the heap channel, open for the whole run (the benchmark ends with `process.exit`). */
const heapChannel = new BroadcastChannel(HEAP_CHANNEL);

/** The worker's used heap (bytes) after GC, and how much of it is code. */
function workerHeap(): Promise<readonly [used: number, code: number]> {
  return new Promise<readonly [number, number]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the worker did not report its heap')), 60_000);
    heapChannel.onmessage = (e) => {
      clearTimeout(timer);
      resolve((e as { data: [number, number] }).data);
    };
    heapChannel.postMessage('measure');
  });
}

/** This thread's used heap (bytes) after GC: PiClient, its transcript mirror, and the bench itself. */
function mainHeap(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** A Pi session file of `turns` turns shaped like the live ones (4 messages a turn). */
function writeTurns(cwd: string, agentDir: string, turns: number): string {
  const dir = sessionDirFor(cwd, agentDir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `2026-01-01T00-00-00-000Z_bench-${turns}.jsonl`);
  const usage = { input: 10, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: 20, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  const base = { api: 'openai-completions', provider: 'scripted', model: 'scripted-model', usage };
  const lines = [JSON.stringify({ type: 'session', version: 3, id: `bench-${turns}`, timestamp: new Date(0).toISOString(), cwd })];
  let parent: string | null = null;
  let i = 0;
  const push = (message: Record<string, unknown>) => {
    const id = (i++).toString(16).padStart(8, '0');
    const timestamp = 1_700_000_000_000 + i;
    lines.push(JSON.stringify({ type: 'message', id, parentId: parent, timestamp: new Date(timestamp).toISOString(), message: { ...message, timestamp } }));
    parent = id;
  };
  for (let n = 0; n < turns; n++) {
    const id = `call_${n}`;
    push({ role: 'user', content: `Question ${n}: how does the server start?` });
    push({
      role: 'assistant',
      content: [
        { type: 'text', text: REPLY },
        { type: 'toolCall', id, name: 'bash', arguments: { command: 'npm test' } },
      ],
      ...base,
      stopReason: 'toolUse',
    });
    push({ role: 'toolResult', toolCallId: id, toolName: 'bash', content: [{ type: 'text', text: OUTPUT }], isError: false });
    push({ role: 'assistant', content: [{ type: 'text', text: 'All 40 tests pass.' }], ...base, stopReason: 'stop' });
  }
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** `count` live turns: the reply streamed in token-sized deltas with a bash call, then a short answer. */
function liveScenario(count: number): Scenario {
  const steps = [];
  for (let n = 0; n < count; n++) {
    steps.push({ chunks: [{ text: REPLY, split: 4 }, { toolCall: { id: `live_${n}`, name: 'bash', arguments: { command: COMMAND } } }], finish: 'tool_calls' });
    steps.push({ chunks: [{ text: 'All 40 tests pass.', split: 4 }], finish: 'stop' });
  }
  return { name: 'bench-worker-memory', steps } as Scenario;
}

interface Figures {
  readonly turns: number;
  /**
   * Heap (bytes) with an empty session open, after resuming `turns`, after half the live turns and after all
   * `LIVE`: the live turns' cost per turn is the second half's (the first live turn into a long session also
   * leaves one-off state behind, such as compiled code and its request's messages).
   */
  readonly worker: readonly [number, number, number, number];
  /** The worker's heap without its code spaces (bytes), at the same four points. */
  readonly workerData: readonly [number, number, number, number];
  readonly main: readonly [number, number, number, number];
  readonly resumeSeconds: number;
  readonly liveSeconds: number;
}

/** Sends a prompt and waits until its turn (4 rows) has settled. */
async function liveTurn(client: PiClient, name: string): Promise<void> {
  const rows = client.state.messages.length;
  void client.send(`Live question ${name}: run the tests.`, 'prompt');
  await until(
    client,
    () => client.state.messages.length >= rows + 4 && !client.state.run.active && client.state.run.outcome !== undefined,
    `live turn ${name} to settle`,
    300_000,
  );
}

async function measureAt(turns: number): Promise<Figures> {
  const model = await startChildModel(liveScenario(LIVE + 1));
  // No compaction: it would summarize the resumed history away (and take the live turns' scripted replies).
  const agentDir = await makePiAgentDir({ baseUrl: model.url, settings: { defaultThinkingLevel: 'off', compaction: { enabled: false } } });
  const cwd = mkdtempSync(join(tmpdir(), 'pi-bench-ws-'));
  const config: WorkerConfig = { cwd, agentDir, trusted: true, tools: [], settleTimeoutMs: 5000, noResponseMs: 0, collapseThinking: true };
  const client = new PiClient(workerWithHeapProbe, () => config, quiet, realScheduler, { requestTimeoutMs: 120_000, pingMs: 1000, hangMs: 120_000 });
  try {
    if (!(await client.ensureSession())) throw new Error('the Pi worker did not start');
    // One live turn first, in a session of its own: code every turn runs is loaded and compiled before the baseline.
    await liveTurn(client, 'warm-up');
    const empty = [await workerHeap(), mainHeap()] as const;
    const file = writeTurns(cwd, agentDir, turns);
    let t0 = performance.now();
    await client.call('resumeSession', { file: file });
    // The main thread holds the last page of rows; the earlier ones stay in the worker until the view asks.
    await until(client, () => client.pendingEarlier + client.state.messages.length >= 4 * turns, `all ${4 * turns} rows known on the main thread`, 300_000);
    const resumeSeconds = (performance.now() - t0) / 1000;
    const resumed = [await workerHeap(), mainHeap()] as const;
    t0 = performance.now();
    const half = Math.floor(LIVE / 2);
    for (let n = 0; n < half; n++) await liveTurn(client, String(n));
    const halfway = [await workerHeap(), mainHeap()] as const;
    for (let n = half; n < LIVE; n++) await liveTurn(client, String(n));
    const liveSeconds = (performance.now() - t0) / 1000;
    const live = [await workerHeap(), mainHeap()] as const;
    const data = (h: readonly [number, number]) => h[0] - h[1];
    return {
      turns,
      worker: [empty[0][0], resumed[0][0], halfway[0][0], live[0][0]],
      workerData: [data(empty[0]), data(resumed[0]), data(halfway[0]), data(live[0])],
      main: [empty[1], resumed[1], halfway[1], live[1]],
      resumeSeconds,
      liveSeconds,
    };
  } finally {
    client.dispose();
    await model.close();
  }
}

const mb = (b: number) => (b / 1e6).toFixed(1);
const kbPerTurn = (b: number, turns: number) => (b / turns / 1024).toFixed(1);

const results: Figures[] = [];
for (const turns of SIZES) {
  const f = await measureAt(turns);
  results.push(f);
  console.log(
    `${turns} turns: worker ${mb(f.worker[0])} -> ${mb(f.worker[1])} -> ${mb(f.worker[2])} -> ${mb(f.worker[3])} MB, main ${mb(f.main[0])} -> ${mb(f.main[1])} -> ${mb(f.main[2])} -> ${mb(f.main[3])} MB (empty -> resumed -> +${Math.floor(LIVE / 2)} live -> +${LIVE} live; resume ${f.resumeSeconds.toFixed(1)} s, live ${f.liveSeconds.toFixed(1)} s)`,
  );
}
console.log(
  `\nheap after GC (MB); "resumed" = after resuming a session of that many turns, "+live" = ${LIVE} live turns streamed on top, "per live turn" = over the last ${LIVE - Math.floor(LIVE / 2)} of them ("without code": the worker's heap less its code spaces, the data the turns keep)`,
);
console.log(
  '  turns | worker: empty | resumed | per turn KB | +live | per live turn KB | without code | 1,500 turns MB | main: resumed | per turn KB | per live turn KB | 1,500 turns MB',
);
for (const f of results) {
  const wTurn = (f.worker[1] - f.worker[0]) / f.turns;
  const mTurn = (f.main[1] - f.main[0]) / f.turns;
  console.log(
    `  ${String(f.turns).padStart(5)} | ${mb(f.worker[0]).padStart(13)} | ${mb(f.worker[1]).padStart(7)} | ${kbPerTurn(f.worker[1] - f.worker[0], f.turns).padStart(11)} | ${mb(f.worker[3]).padStart(5)} | ${kbPerTurn(f.worker[3] - f.worker[2], LIVE - Math.floor(LIVE / 2)).padStart(16)} | ${kbPerTurn(f.workerData[3] - f.workerData[2], LIVE - Math.floor(LIVE / 2)).padStart(13)} | ${mb(f.worker[0] + wTurn * 1500).padStart(14)} | ${mb(f.main[1]).padStart(13)} | ${kbPerTurn(f.main[1] - f.main[0], f.turns).padStart(11)} | ${kbPerTurn(f.main[3] - f.main[2], LIVE - Math.floor(LIVE / 2)).padStart(16)} | ${mb(f.main[0] + mTurn * 1500).padStart(14)}`,
  );
}
process.exit(0);
