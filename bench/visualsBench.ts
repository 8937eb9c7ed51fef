/**
 * Diagrams, math and find benchmark (not a test), in headless Chromium with the real bundle and CSP:
 * (1) first paint: time from navigation to the view's `ready` and its bundle size, and that the diagram
 *     library is not loaded by a reply without diagrams;
 * (2) a reply with 20 Mermaid diagrams and 200 formulas streamed one delivery per frame, then scrolled through
 *     to its top (a diagram is drawn once it is on screen): the worst frame (longest task) apart from the
 *     diagram library's one-time load, reported on its own (its `pi-diagram-library` measure), the longest
 *     task within a diagram's drawing (`pi-diagram-draw`), tasks over 50 ms, the time until all are drawn, and
 *     the JS heap after;
 * (3) find over a 20,000-message session: the worker's search (`findRows`) time, and in the view the time
 *     from typing to the count and to the first match marked (the match far above, brought in as the page
 *     around it, `loadAround`, from a host answered here).
 *
 * Usage: npm run build && node bench/visualsBench.ts [--rounds 3] [--only paint|rich|find]
 */

import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { findRows } from '../src/shared/transcript/find.ts';
import { aroundBefore, earlierPage, pageBefore, recentPart } from '../src/shared/transcript/paging.ts';
import { initialTranscript, reduce } from '../src/shared/transcript/reduce.ts';
import type { TranscriptState } from '../src/shared/transcript/rows.ts';
import { exchange, longTranscript, streamedReply } from '../test/webview/builders.ts';
import type { WireEvent } from '../src/shared/wire/events.ts';
import { asHostSends, assertBundleFresh, deliver, launchBrowser, root, session, startServer } from '../test/webview/harness.ts';
import { numberArg, quantile } from './stats.ts';

const ROUNDS = numberArg('rounds', 3);
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

/** Installed before any page script: the longest tasks Chromium reports, and host messages handed to the bench. */
const INSTRUMENT = `(() => {
  window.__long = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__long.push({ start: e.startTime, duration: e.duration }); }).observe({ type: 'longtask', buffered: true });
})();`;

type Browser = Awaited<ReturnType<typeof launchBrowser>>;

/** One task of the page's main thread from a Chromium trace: start and wall time, and the thread's own CPU time in it. */
interface TraceTask {
  start: number;
  wall: number;
  cpu: number;
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

/**
 * The renderer main thread's tasks and the page's named measures, in ms on the trace's clock. CPU time is what
 * the bench reports as a task's cost: on a machine shared with other work, wall time also counts the waits for
 * a core, and tells more about the neighbours than about the view.
 */
function readTrace(buffer: Buffer): { tasks: TraceTask[]; measures: Map<string, { start: number; end: number }[]> } {
  const events = (JSON.parse(buffer.toString('utf8')) as { traceEvents: TraceEvent[] }).traceEvents;
  const mains = events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const byThread = new Map<string, TraceTask[]>();
  for (const e of events) {
    if (e.name !== 'RunTask' || e.ph !== 'X' || !mains.some((m) => m.pid === e.pid && m.tid === e.tid)) continue;
    const key = `${e.pid}:${e.tid}`;
    if (!byThread.has(key)) byThread.set(key, []);
    byThread.get(key)!.push({ start: e.ts / 1000, wall: (e.dur ?? 0) / 1000, cpu: (e.tdur ?? e.dur ?? 0) / 1000 });
  }
  // The page's renderer is the busiest one.
  const busiest = (ts: TraceTask[]) => ts.reduce((a, t) => a + t.cpu, 0);
  const tasks = [...byThread.values()].sort((a, b) => busiest(b) - busiest(a))[0] ?? [];
  const measures = new Map<string, { start: number; end: number }[]>();
  const open = new Map<string, number[]>();
  for (const e of events.filter((x) => x.name.startsWith('pi-diagram-')).sort((a, b) => a.ts - b.ts)) {
    if (e.ph === 'b') (open.get(e.name) ?? open.set(e.name, []).get(e.name)!).push(e.ts / 1000);
    else if (e.ph === 'e') {
      const start = open.get(e.name)?.shift();
      if (start !== undefined) (measures.get(e.name) ?? measures.set(e.name, []).get(e.name)!).push({ start, end: e.ts / 1000 });
    }
  }
  return { tasks, measures };
}

const TRACE_CATEGORIES = ['toplevel', 'disabled-by-default-devtools.timeline', 'devtools.timeline', 'blink.user_timing'];

async function open(browser: Browser, origin: string): Promise<{ page: Page; readyMs: number }> {
  const context = await browser.newContext({ viewport: { width: 420, height: 900 } });
  await context.addInitScript(INSTRUMENT);
  const page = await context.newPage();
  page.on('close', () => void context.close());
  const t = Date.now();
  await page.goto(`${origin}/?theme=vscode-dark`);
  await page.waitForFunction(() => (globalThis as unknown as { __posted: { type: string }[] }).__posted.some((m) => m.type === 'ready'));
  const readyMs = Date.now() - t;
  await deliver(page, { type: 'snapshot', state: initialTranscript, session });
  return { page, readyMs };
}

/** A reply of 20 diagrams and 200 formulas among prose. */
function richReply(): string {
  const parts: string[] = [];
  for (let i = 0; i < 20; i++) {
    parts.push(`## Part ${i}\n\nThe energy is $E_${i} = m c^2 + \\frac{${i}}{2}$ and the sum $\\sum_{k=0}^{${i}} k^2$ grows.\n\n`);
    for (let j = 0; j < 8; j++) parts.push(`- term $a_{${j}} = \\sqrt{${j} + x^2}$ is ${j % 2 ? 'odd' : 'even'}\n`);
    parts.push(`\n$$\n\\int_0^{${i}} e^{-x^2}\\,dx \\approx ${i}\n$$\n\n`);
    parts.push(
      `\`\`\`mermaid\ngraph TD\n  A${i}[Start ${i}] --> B${i}{Check}\n  B${i} -->|yes| C${i}[Done]\n  B${i} -->|no| D${i}[Retry]\n  D${i} --> A${i}\n\`\`\`\n\n`,
    );
  }
  return parts.join('');
}

async function richBench(browser: Browser, origin: string): Promise<void> {
  const text = richReply();
  const reply = streamedReply('Explain with diagrams and math', text.match(/[\s\S]{1,120}/g)!);
  const rounds: Rich[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const { page } = await open(browser, origin);
    // The view applies the worker's changes (a streamed piece is a patch): the events go through the worker's side here.
    const toHost = (events: WireEvent[]) => [...(asHostSends(page, { type: 'batch', events }) as { readonly events: readonly WireEvent[] }).events];
    await browser.startTracing(page, { categories: TRACE_CATEGORIES });
    const r = await page.evaluate(
      async ({ start, deltas, end: last }) => {
        type Span = { start: number; duration: number };
        const w = globalThis as unknown as {
          __long: Span[];
          dispatchEvent(e: unknown): boolean;
          MessageEvent: new (t: string, i: { data: unknown }) => unknown;
          requestAnimationFrame(cb: () => void): number;
          setTimeout(cb: () => void, ms: number): number;
          performance: { now(): number; getEntriesByName(n: string): { startTime: number; duration: number }[] };
          document: {
            querySelectorAll(s: string): ArrayLike<{ scrollIntoView(o: unknown): void; matches(s: string): boolean }>;
            querySelector(s: string): unknown;
          };
        };
        const send = (events: unknown[]) => w.dispatchEvent(new w.MessageEvent('message', { data: { type: 'batch', events } }));
        const frame = () => new Promise<void>((r) => w.requestAnimationFrame(() => r()));
        const done = '[data-diagram="mermaid"], [data-diagram-error]';
        const t0 = w.performance.now();
        send(start);
        for (const events of deltas) {
          send(events);
          await frame();
        }
        send(last);
        // The last fence's figure is made in the frame after the one that closed it.
        await frame();
        await frame();
        const streamEnd = w.performance.now();
        // Read from the bottom up, as someone scrolling back through the reply: each diagram drawn once on screen.
        const figures = Array.from(w.document.querySelectorAll('figure.diagram')).reverse();
        for (const figure of figures) {
          figure.scrollIntoView({ block: 'center' });
          while (!figure.matches(done)) await new Promise<void>((r) => w.setTimeout(r, 10));
        }
        const end = w.performance.now();
        const overlaps = (t: Span, m: { startTime: number; duration: number }) => t.start < m.startTime + m.duration && m.startTime < t.start + t.duration;
        const library = w.performance.getEntriesByName('pi-diagram-library');
        const draws = w.performance.getEntriesByName('pi-diagram-draw');
        const tasks = w.__long.filter((t) => t.start + t.duration >= t0);
        const rest = tasks.filter((t) => !library.some((m) => overlaps(t, m)));
        const longest = (ts: Span[]) => Math.max(0, ...ts.map((t) => t.duration));
        return {
          libraryMs: library[0]?.duration ?? NaN,
          libraryTask: longest(tasks.filter((t) => library.some((m) => overlaps(t, m)))),
          worst: longest(rest),
          worstStreaming: longest(rest.filter((t) => t.start < streamEnd)),
          worstDrawing: longest(rest.filter((t) => draws.some((m) => overlaps(t, m)))),
          over50: rest.length,
          drawnMs: end - streamEnd,
          failed: w.document.querySelectorAll('[data-diagram-error]').length,
          math: w.document.querySelectorAll('[data-math] math').length,
          diagrams: w.document.querySelectorAll('[data-diagram="mermaid"] svg').length,
        };
      },
      {
        start: toHost(reply.start),
        deltas: reply.deltas.map(toHost),
        end: toHost(reply.end),
      },
    );
    const trace = readTrace(await browser.stopTracing());
    const library = trace.measures.get('pi-diagram-library') ?? [];
    const draws = trace.measures.get('pi-diagram-draw') ?? [];
    const inAny = (t: TraceTask, ms: { start: number; end: number }[]) => ms.some((m) => t.start < m.end && m.start < t.start + t.wall);
    const first = Math.min(...trace.tasks.map((t) => t.start));
    const cpu = (ts: TraceTask[]) => Math.max(0, ...ts.map((t) => t.cpu));
    const others = trace.tasks.filter((t) => t.start >= first && !inAny(t, library));
    const c = {
      libraryCpu: cpu(trace.tasks.filter((t) => inAny(t, library))),
      worstCpu: cpu(others),
      drawCpu: cpu(others.filter((t) => inAny(t, draws))),
      over50Cpu: others.filter((t) => t.cpu > 50).length,
    };
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('HeapProfiler.collectGarbage');
    const heap = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
    rounds.push({ ...r, ...c, heapMb: heap.usedSize / 1e6 });
    console.log(
      `round ${round + 1}: CPU time of the longest task ${fmt(c.worstCpu)} (within a diagram's drawing ${fmt(c.drawCpu)}), ${c.over50Cpu} over 50 ms; ` +
        `the library's load ${fmt(c.libraryCpu)} CPU. Wall: library load ${fmt(r.libraryMs)} (its longest task ${fmt(r.libraryTask)}); apart from it: longest task ${fmt(r.worst)} ` +
        `(streaming ${fmt(r.worstStreaming)}, within a diagram's drawing ${fmt(r.worstDrawing)}), ${r.over50} tasks over 50 ms; ` +
        `${r.diagrams} diagrams drawn (${r.failed} failed), scrolled through within ${fmt(r.drawnMs)} after the end; ${r.math} formulas; heap ${(heap.usedSize / 1e6).toFixed(1)} MB`,
    );
    await page.close();
  }
  const med = (f: (r: Rich) => number) => quantile(rounds.map(f), 0.5);
  console.log(
    `20 diagrams + 200 formulas, median of ${ROUNDS}, CPU time: longest task ${fmt(med((r) => r.worstCpu))} (target 50 ms), within a diagram's drawing ` +
      `${fmt(med((r) => r.drawCpu))}, ${med((r) => r.over50Cpu)} tasks over 50 ms, the library's one-time load ${fmt(med((r) => r.libraryCpu))} (its longest task)`,
  );
  console.log(
    `  wall time (includes waiting for a core on a shared machine): longest task ${fmt(med((r) => r.worst))} (target 50 ms; streaming ${fmt(med((r) => r.worstStreaming))}, ` +
      `drawing ${fmt(med((r) => r.worstDrawing))}), ${med((r) => r.over50)} tasks over 50 ms; the library's one-time load ${fmt(med((r) => r.libraryMs))}, ` +
      `its longest task ${fmt(med((r) => r.libraryTask))}; all drawn ${fmt(med((r) => r.drawnMs))} after the end; heap after ${med((r) => r.heapMb).toFixed(1)} MB`,
  );
}

interface Rich {
  libraryCpu: number;
  worstCpu: number;
  drawCpu: number;
  over50Cpu: number;
  libraryMs: number;
  libraryTask: number;
  worst: number;
  worstStreaming: number;
  worstDrawing: number;
  over50: number;
  drawnMs: number;
  failed: number;
  math: number;
  diagrams: number;
  heapMb: number;
}

async function firstPaintBench(browser: Browser, origin: string): Promise<void> {
  const times: number[] = [];
  let loaded = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const { page, readyMs } = await open(browser, origin);
    times.push(readyMs);
    const reply = streamedReply('A formula, please', ['A formula $x^2$ and no diagram.']);
    await deliver(page, { type: 'batch', events: [...reply.start, ...reply.deltas.flat(), ...reply.end] });
    loaded += await page.locator('script[src*="mermaid"]').count();
    await page.close();
  }
  const size = (f: string) => `${(statSync(join(root, 'dist', 'webview', f)).size / 1e6).toFixed(2)} MB`;
  console.log(
    `first paint: navigation to ready, median of ${ROUNDS}: ${fmt(quantile(times, 0.5))}; main.js ${size('main.js')}, mermaid.js ${size('mermaid.js')} (not loaded: ${loaded === 0})`,
  );
}

async function findBench(browser: Browser, origin: string): Promise<void> {
  let host: TranscriptState = reduce(longTranscript(4), [{ type: 'userMessage', text: 'Where is the zebra config?', images: 0, entryId: 'zebra' }]);
  for (let n = 100; host.messages.length < 20_000; n += 50) host = reduce(host, Array.from({ length: 50 }, (_, i) => exchange(n + i)).flat());
  const searches: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    findRows(host, 'zebra');
    searches.push(performance.now() - t);
  }
  const { page } = await open(browser, origin);
  // The host: answers `find`, `loadEarlier` and `loadAround` as the extension would, from the whole session.
  await page.exposeFunction('__benchHost', async (json: string) => {
    const m = JSON.parse(json) as { type: string; query?: string; seq?: number; before?: number; id?: number; count?: number };
    if (m.type === 'find') await deliverQuiet(page, { type: 'found', seq: m.seq!, ...findRows(host, m.query!) });
    else if (m.type === 'loadEarlier') await deliverQuiet(page, { type: 'earlier', before: m.before!, ...earlierPage(host, m.before!, m.count!)! });
    else if (m.type === 'loadAround') {
      const around = pageBefore(host, aroundBefore(m.id!, m.count!), m.count!);
      await deliverQuiet(page, { type: 'around', id: m.id!, ...around, later: host.messages.length - around.earlier - around.messages.length });
    }
  });
  await page.evaluate(() => {
    const w = globalThis as unknown as { __posted: { push(m: unknown): number }; __benchHost(json: string): Promise<void> };
    const push = w.__posted.push.bind(w.__posted);
    w.__posted.push = (m: unknown) => {
      void w.__benchHost(JSON.stringify(m));
      return push(m);
    };
  });
  const part = recentPart(host);
  await deliver(page, { type: 'snapshot', state: part.state, session, earlier: part.earlier });
  const t = Date.now();
  await page.keyboard.press('Control+f');
  await page.locator('[data-testid="find"]').fill('zebra');
  await page.locator('[data-testid="find-count"]', { hasText: '1 of 1' }).waitFor({ timeout: 600_000 });
  const countMs = Date.now() - t;
  await page.locator('mark[data-find="current"]').waitFor({ timeout: 600_000 });
  const firstMs = Date.now() - t;
  console.log(
    `find over ${host.messages.length} messages: findRows median ${fmt(quantile(searches, 0.5))}; in the view, typing to the count ${fmt(countMs)} ` +
      `(includes the 120 ms typing pause), to the first match marked ${(firstMs / 1000).toFixed(2)} s (the match is the session's first prompt, ` +
      `${part.earlier} rows above, brought in as the page around it)`,
  );
  await page.close();
}

/** Delivers a host message without waiting for frames (the bench's host answers as fast as it can). */
async function deliverQuiet(page: Page, msg: unknown): Promise<void> {
  // An answer to a page closed since (the bench moved on) goes nowhere.
  if (page.isClosed()) return;
  await page
    .evaluate((json) => {
      const w = globalThis as unknown as { dispatchEvent(e: unknown): boolean; MessageEvent: new (t: string, i: { data: unknown }) => unknown };
      w.dispatchEvent(new w.MessageEvent('message', { data: JSON.parse(json) }));
    }, JSON.stringify(msg))
    .catch((err: unknown) => {
      if (!page.isClosed()) throw err;
    });
}

async function main(): Promise<void> {
  assertBundleFresh();
  const server = await startServer();
  const browser = await launchBrowser();
  try {
    // `--only find`: the find part alone; `--no-find`: all but find.
    const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
    if (!only || only === 'paint') await firstPaintBench(browser, server.origin);
    if (!only || only === 'rich') await richBench(browser, server.origin);
    if ((!only || only === 'find') && !process.argv.includes('--no-find')) await findBench(browser, server.origin);
  } finally {
    await browser.close();
    await server.close();
  }
}

await main();
