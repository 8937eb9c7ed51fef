/**
 * Before/after benchmark for the diagrams-and-math work (issue 39's "≤ 1.1×" target), in headless Chromium with
 * each tree's own bundle, shell and CSP: (1) first paint, navigation to the view's `ready`, as wall time and as
 * the main thread's CPU time; (2) the cost per frame of streaming an ordinary reply (prose, a list, code, a
 * table: nothing either build draws differently) one delivery per frame, as the main thread's CPU time per
 * delivery and its 95th-percentile task; (3) whether the diagram library was loaded (it must not be).
 *
 * CPU time (Chromium's trace, `tdur`) is the figure compared: on a shared machine wall time also counts waiting
 * for a core. Rounds alternate between the two trees, so both see the same neighbours.
 *
 * Usage: npm run build, and build the older tree (e.g. `git worktree add /tmp/before b41f11d`, link
 * node_modules, `npm run build` there), then: node bench/visualsCompareBench.ts --before /tmp/before [--rounds 5]
 * (without --before it measures this tree alone).
 */

import { spawnSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initialTranscript } from '../src/shared/transcript/reduce.ts';
import { T0 } from '../test/webview/builders.ts';
import { assertBundleFresh, deliver, launchBrowser, root, session, startServer } from '../test/webview/harness.ts';
import { numberArg, quantile } from './stats.ts';

const ROUNDS = numberArg('rounds', 5);
const argAfter = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);

interface Sample {
  readyWall: number;
  readyCpu: number;
  frameCpu: number;
  frameP95: number;
  frameWall: number;
  libraryLoaded: boolean;
}

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

/** The busiest renderer main thread's tasks in a trace: start (ms), CPU time (ms). Its own copy, for the older tree it also runs in. */
function mainTasks(buffer: Buffer): { start: number; cpu: number }[] {
  const events = (JSON.parse(buffer.toString('utf8')) as { traceEvents: TraceEvent[] }).traceEvents;
  const mains = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const byThread = new Map<string, { start: number; cpu: number }[]>();
  for (const e of events) {
    const key = `${e.pid}:${e.tid}`;
    if (e.name !== 'RunTask' || e.ph !== 'X' || !mains.has(key)) continue;
    if (!byThread.has(key)) byThread.set(key, []);
    byThread.get(key)!.push({ start: e.ts / 1000, cpu: (e.tdur ?? e.dur ?? 0) / 1000 });
  }
  const total = (ts: { cpu: number }[]) => ts.reduce((a, t) => a + t.cpu, 0);
  return [...byThread.values()].sort((a, b) => total(b) - total(a))[0] ?? [];
}

const CATEGORIES = ['toplevel', 'disabled-by-default-devtools.timeline', 'devtools.timeline'];

/** An ordinary reply of about 24 KB: headings, prose, a list, a code fence and a table, repeated. */
function ordinaryReply(): string {
  const parts: string[] = [];
  for (let i = 0; i < 12; i++) {
    parts.push(`## Step ${i}\n\nThe function **reads** the file, parses it and \`returns\` the list of entries; see [the docs](https://example.com/${i}).\n\n`);
    for (let j = 0; j < 5; j++) parts.push(`- item ${j}: keeps the ${j % 2 ? 'odd' : 'even'} rows and drops the rest\n`);
    parts.push(`\n\`\`\`ts\nexport function step${i}(rows: string[]): string[] {\n  return rows.filter((r, k) => k % 2 === ${i % 2});\n}\n\`\`\`\n\n`);
    parts.push(`| name | size |\n| --- | --- |\n| a${i} | ${i * 10} |\n| b${i} | ${i * 20} |\n\n`);
  }
  return parts.join('');
}

/** One round in this tree. */
async function measure(): Promise<Sample> {
  assertBundleFresh();
  const server = await startServer();
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext({ viewport: { width: 420, height: 900 } });
    const page = await context.newPage();
    await browser.startTracing(page, { categories: CATEGORIES });
    const t = Date.now();
    await page.goto(`${server.origin}/?theme=vscode-dark`);
    await page.waitForFunction(() => (globalThis as unknown as { __posted: { type: string }[] }).__posted.some((m) => m.type === 'ready'));
    const readyWall = Date.now() - t;
    const readyCpu = mainTasks(await browser.stopTracing()).reduce((a, x) => a + x.cpu, 0);
    await deliver(page, { type: 'snapshot', state: initialTranscript, session });
    const chunks = ordinaryReply().match(/[\s\S]{1,120}/g)!;
    // A build whose view applies the worker's changes gets them (asHostSends); an older one, reducing itself, the events.
    const harness = (await import('../test/webview/harness.ts')) as { asHostSends?: (p: typeof page, m: unknown) => unknown };
    const toHost = (events: unknown[]) =>
      harness.asHostSends ? (harness.asHostSends(page, { type: 'batch', events }) as { events: unknown[] }).events : events;
    await browser.startTracing(page, { categories: CATEGORIES });
    const wall = await page.evaluate(
      async ({ start, deltas, end }) => {
        const w = globalThis as unknown as {
          dispatchEvent(e: unknown): boolean;
          MessageEvent: new (t: string, i: { data: unknown }) => unknown;
          requestAnimationFrame(cb: () => void): number;
          performance: { now(): number };
        };
        const send = (events: unknown[]) => w.dispatchEvent(new w.MessageEvent('message', { data: { type: 'batch', events } }));
        const frame = () => new Promise<void>((r) => w.requestAnimationFrame(() => r()));
        send(start);
        await frame();
        const t0 = w.performance.now();
        for (const events of deltas) {
          send(events);
          await frame();
        }
        const ms = w.performance.now() - t0;
        send(end);
        await frame();
        await frame();
        return ms / deltas.length;
      },
      // This file runs in an older tree too (measureIn), whose builders.ts has no streamedReply: the reply's events stay here.
      {
        start: toHost([
          { type: 'userMessage', text: 'Explain', images: 0 },
          { type: 'runStart' },
          { type: 'assistantStart', at: T0 },
          { type: 'blockStart', index: 0, kind: 'text', at: T0 },
        ]),
        deltas: chunks.map((text) => toHost([{ type: 'delta', index: 0, text }])),
        end: toHost([
          { type: 'blockEnd', index: 0, at: T0 },
          { type: 'assistantEnd', stopReason: 'stop', at: T0 },
          { type: 'settled', aborted: false, at: T0 },
        ]),
      },
    );
    const tasks = mainTasks(await browser.stopTracing());
    const libraryLoaded = (await page.locator('script[src*="mermaid"]').count()) > 0;
    await context.close();
    return {
      readyWall,
      readyCpu,
      frameCpu: tasks.reduce((a, x) => a + x.cpu, 0) / chunks.length,
      frameP95: quantile(
        tasks.map((x) => x.cpu),
        0.95,
      ),
      frameWall: wall,
      libraryLoaded,
    };
  } finally {
    await browser.close();
    await server.close();
  }
}

/** One round in `dir`'s tree: this file copied there and run with its Node, as a child. */
function measureIn(dir: string): Sample {
  copyFileSync(fileURLToPath(import.meta.url), join(dir, 'bench', 'visualsCompareBench.ts'));
  const child = spawnSync(process.execPath, ['--disable-warning=MODULE_TYPELESS_PACKAGE_JSON', 'bench/visualsCompareBench.ts', '--once'], {
    cwd: dir,
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(`round in ${dir} failed: ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Sample;
}

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

function summary(label: string, samples: Sample[]): Record<keyof Omit<Sample, 'libraryLoaded'>, number> {
  const med = (f: (s: Sample) => number) => quantile(samples.map(f), 0.5);
  const m = {
    readyWall: med((s) => s.readyWall),
    readyCpu: med((s) => s.readyCpu),
    frameCpu: med((s) => s.frameCpu),
    frameP95: med((s) => s.frameP95),
    frameWall: med((s) => s.frameWall),
  };
  console.log(
    `${label}: first paint ${fmt(m.readyCpu)} CPU (${fmt(m.readyWall)} wall); streaming per delivery ${fmt(m.frameCpu)} CPU, 95th-percentile task ${fmt(m.frameP95)} ` +
      `(${fmt(m.frameWall)} wall per frame); diagram library loaded: ${samples.some((s) => s.libraryLoaded)}  [median of ${samples.length}]`,
  );
  return m;
}

async function main(): Promise<void> {
  if (process.argv.includes('--once')) {
    console.log(JSON.stringify(await measure()));
    return;
  }
  const before = argAfter('--before');
  const now: Sample[] = [];
  const then: Sample[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (before) then.push(measureIn(before));
    now.push(measureIn(root));
  }
  const a = before ? summary(`before (${before})`, then) : undefined;
  const b = summary('now', now);
  if (a) {
    const ratio = (k: keyof typeof a) => (b[k] / a[k]).toFixed(2);
    console.log(
      `now / before (target ≤ 1.1×): first paint ${ratio('readyCpu')}× CPU (${ratio('readyWall')}× wall), streaming per delivery ${ratio('frameCpu')}× CPU, 95th-percentile task ${ratio('frameP95')}×`,
    );
  }
}

await main();
