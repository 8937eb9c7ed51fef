/**
 * A chat as people have one: 200 short turns in a row (a prompt, a short streamed reply, settled), with a
 * view open. Per turn, the extension host main thread's busy time (its event loop's active time, and its own
 * CPU time) and its longest event-loop gap, for the first and the last 20 turns, so any growth with the
 * session's length shows. The main-thread side is the product's PiClient and ViewFeed in plain Node with the
 * real dist/worker.js and the scripted model in a child process. A report, not a test.
 *
 * Usage: `node bench/turnsBench.ts [--turns 200] [--window 20]` (after `npm run build`).
 */
import { loadavg } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { ViewFeed } from '../src/extension/viewFeed.ts';
import { realScheduler } from '../src/shared/batcher.ts';
import type { HostToWebview } from '../src/shared/wire/webviewProtocol.ts';
import type { Scenario } from '../test/scriptedModel/scenario.ts';
import { lorem } from '../test/support/wireStream.ts';
import { benchChat, cpuMicros } from './benchChat.ts';
import { numberArg, quantile } from './stats.ts';

/** The targets for the host, whatever the session's length. */
const TARGET_BUSY_MS = 20;
const TARGET_GAP_MS = 50;

const turns = numberArg('turns', 200);
const window = Math.min(numberArg('window', 20), turns);

interface Turn {
  /** The main thread's event loop active (not waiting for I/O or timers), ms. */
  readonly active: number;
  /** The main thread's own CPU time, ms (what the machine's other load does not lengthen). */
  readonly cpu: number;
  /** The longest event-loop delay in the turn, ms (10 ms resolution); the machine's other load lengthens it. */
  readonly gap: number;
  /** The most CPU time the thread spent between two ticks of a 5 ms timer: its longest stretch of its own work, ms. */
  readonly own: number;
  /** Prompt sent -> settled on the main thread, ms. */
  readonly wall: number;
}

// A short answer streamed as a model does: ~40 deltas of a few words, a few ms apart.
const reply = (i: number) => `Turn ${i + 1}: ${lorem(300)}`;
const scenario = {
  name: 'bench-turns',
  steps: Array.from({ length: turns }, (_, i) => ({ chunks: [{ text: reply(i), split: 8, delayMs: 8 }], finish: 'stop' })),
} as Scenario;

/** The longest gap of an idle event loop for `ms` on this machine now: what other processes add to a gap. */
async function idleGap(ms: number): Promise<number> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  await new Promise((resolve) => setTimeout(resolve, ms));
  h.disable();
  return h.max / 1e6;
}

const idle = await idleGap(3000);
const s = await benchChat(scenario);
const results: Turn[] = [];
let posted = 0;
let bytes = 0;
// An open view, as ChatViewProvider feeds it: every message JSON-encoded on this thread, as VS Code does.
const feed = new ViewFeed(
  s.client,
  (msg: HostToWebview) => {
    bytes += JSON.stringify(msg).length;
    posted++;
  },
  realScheduler,
);
try {
  feed.open();
  await s.client.ensureSession();
  const gaps = monitorEventLoopDelay({ resolution: 10 });
  gaps.enable();
  let own = 0;
  let lastCpu = cpuMicros();
  const sampler = setInterval(() => {
    const cpu = cpuMicros();
    own = Math.max(own, cpu - lastCpu);
    lastCpu = cpu;
  }, 5);
  for (let i = 0; i < turns; i++) {
    const before = s.client.state.run.outcome;
    gaps.reset();
    own = 0;
    const elu0 = performance.eventLoopUtilization();
    const cpu0 = cpuMicros();
    const t0 = performance.now();
    void s.client.send(`Question ${i + 1}: what next?`, 'prompt');
    await s.until(
      () => {
        const run = s.client.state.run;
        return !run.active && run.outcome !== undefined && run.outcome !== before;
      },
      `turn ${i + 1} to settle`,
    );
    const elu = performance.eventLoopUtilization(elu0);
    const cpu1 = cpuMicros();
    own = Math.max(own, cpu1 - lastCpu);
    results.push({ active: elu.active, cpu: (cpu1 - cpu0) / 1000, gap: gaps.max / 1e6, own: own / 1000, wall: performance.now() - t0 });
    if (s.client.state.run.outcome?.kind !== 'completed') console.log(`  turn ${i + 1} ended ${JSON.stringify(s.client.state.run.outcome)}`);
  }
  gaps.disable();
  clearInterval(sampler);
} finally {
  feed.dispose();
  await s.dispose();
}

const f = (x: number) => x.toFixed(1);
const line = (label: string, rs: readonly Turn[]) => {
  const col = (pick: (t: Turn) => number) => rs.map(pick);
  const active = col((t) => t.active);
  const cpu = col((t) => t.cpu);
  const gap = col((t) => t.gap);
  const own = col((t) => t.own);
  const wall = col((t) => t.wall);
  return (
    `  ${label.padEnd(14)} busy p50 ${f(quantile(active, 0.5))} / p95 ${f(quantile(active, 0.95))} ms` +
    ` (own CPU p50 ${f(quantile(cpu, 0.5))} / p95 ${f(quantile(cpu, 0.95))} ms),` +
    ` longest gap ${f(Math.max(...gap))} ms (p95 of the turns' ${f(quantile(gap, 0.95))} ms; own work at most ${f(Math.max(...own))} ms at a time),` +
    ` prompt -> settled p50 ${Math.round(quantile(wall, 0.5))} ms`
  );
};
const [one, five, fifteen] = loadavg().map((x) => x.toFixed(2));
console.log(
  `turns bench: ${turns} short turns in a row (prompt, a ${reply(0).length}-char reply in 8-char deltas, settled), a view open; ` +
    `extension host main thread per turn (target: busy <= ${TARGET_BUSY_MS} ms, longest gap <= ${TARGET_GAP_MS} ms); load average ${one} ${five} ${fifteen}`,
);
console.log(`  an idle main thread for 3 s before: longest gap ${f(idle)} ms (the machine's share of a gap)`);
console.log(line(`turns 1-${window}`, results.slice(0, window)));
console.log(line(`turns ${turns - window + 1}-${turns}`, results.slice(-window)));
console.log(line(`all ${turns}`, results));
console.log(`  posts to the view: ${posted}, ${(bytes / 1e6).toFixed(2)} MB JSON (${Math.round(bytes / turns)} bytes per turn)`);
process.exit(0);
