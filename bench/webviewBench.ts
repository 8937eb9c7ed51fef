/**
 * Webview benchmark (not a test): per-frame script time of the chat view while 2,000 deltas/s stream
 * into (a) an empty transcript and (b) one with 2,000 prior messages, in headless Chromium with the
 * real bundle and CSP. Script time per frame = time spent in the view's message handlers,
 * requestAnimationFrame callbacks and ResizeObserver callbacks between two frames (instrumented from an
 * init script, so the product code carries no bench hooks). Also prints Chromium's own totals of
 * script, layout and style time per frame over the same window.
 *
 * Then the cost of streaming one big block: (a) a 3,000-item list, (b) a 1,000-row table, (c) one 100 KB
 * paragraph, (d) a 100 KB code fence, each in 150 deliveries (one per frame) against the same number of
 * bytes as short paragraphs. Per delivery: script time (message handler and render) plus the layout it
 * forces; also the longest task seen (deferred highlighting runs in a task of its own).
 *
 * Usage: npm run build && npm run bench [-- --seconds 6 --rounds 2] [-- --only blocks|transcript]
 *        node bench/webviewBench.ts --only blocks [--case "(c)"] [--frames] [--trace]   (cases whose name
 *        contains the text; --frames prints each delivery's script and layout time, --trace Chromium's
 *        account of the five longest tasks, to see where a case's time goes)
 */

import type { Page } from 'playwright-core';
import { initialTranscript } from '../src/shared/transcript/reduce.ts';
import type { TranscriptState } from '../src/shared/transcript/rows.ts';
import { longTranscript, T0 } from '../test/webview/builders.ts';
import { asHostSends, assertBundleFresh, deliver, launchBrowser, session, startServer } from '../test/webview/harness.ts';
import type { WireEvent } from '../src/shared/wire/events.ts';
import { numberArg, quantile } from './stats.ts';

const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
const caseFilter = process.argv.includes('--case') ? process.argv[process.argv.indexOf('--case') + 1] : undefined;
const SECONDS = numberArg('seconds', 6);
const ROUNDS = numberArg('rounds', 2);
const DELTAS_PER_SECOND = 2000;

/** Installed before any page script: wraps the callbacks the view uses and samples them per frame. */
const INSTRUMENT = `(() => {
  const raf = window.requestAnimationFrame.bind(window);
  const now = () => performance.now();
  let acc = 0;
  // take(): the time not yet sampled (a frame's callbacks after the sampling tick ran), then zero.
  const bench = (window.__bench = { on: false, samples: [], take: () => { const a = acc; acc = 0; return a; } });
  const wrap = (fn) => function (...args) { const t = now(); try { return fn.apply(this, args); } finally { acc += now() - t; } };
  window.requestAnimationFrame = (cb) => raf(wrap(cb));
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    if (type === 'message' && typeof listener === 'function') listener = wrap(listener);
    return add.call(this, type, listener, options);
  };
  const RO = window.ResizeObserver;
  window.ResizeObserver = class extends RO { constructor(cb) { super(wrap(cb)); } };
  const tick = () => { if (bench.on) bench.samples.push(acc); acc = 0; raf(tick); };
  raf(tick);
})();`;

/** The stream, run inside the page: one batch per ~16 ms carrying the deltas due, like the host batcher. */
async function stream(page: Page, seconds: number): Promise<{ samples: number[]; deltas: number; chars: number }> {
  // The host sends the worker's changes: the start as rows, each delta a patch of the open row (worked out here for the start).
  const start = asHostSends(page, {
    type: 'batch',
    events: [
      { type: 'userMessage', text: 'Make the port configurable.', images: 0 },
      { type: 'runStart' },
      { type: 'assistantStart', at: T0 },
      { type: 'blockStart', index: 0, kind: 'thinking', at: T0 },
    ],
  });
  const startEvents: WireEvent[] = start.type === 'batch' ? [...start.events] : [];
  const open = startEvents.findLast((e) => e.type === 'row');
  const openId = open?.type === 'row' ? open.id : 0;
  return page.evaluate(
    ({ seconds, rate, t0, startEvents, openId }) =>
      new Promise<{ samples: number[]; deltas: number; chars: number }>((resolve) => {
        const w = globalThis as unknown as {
          __bench: { on: boolean; samples: number[] };
          dispatchEvent(e: unknown): boolean;
          MessageEvent: new (t: string, i: { data: unknown }) => unknown;
          performance: { now(): number };
          setTimeout(cb: () => void, ms: number): number;
        };
        const src = [
          '## Plan\n\nI will read the **configuration**, then change `src/app.ts` so the server starts on the configured port.\n\n',
          '- check `package.json` scripts\n- read [the docs](https://example.com/docs)\n- update the tests\n\n',
          '```ts\nexport function start(port: number): Server {\n  const server = createServer(handler);\n  server.listen(port);\n  return server;\n}\n```\n\n',
          'The handler stays the same; only the port comes from the config now. A longer paragraph follows so that text streams for a while inside one block, as replies usually do, with some *emphasis* and a [link](https://example.com/a) here and there.\n\n',
        ].join('');
        const send = (events: readonly unknown[]) => w.dispatchEvent(new w.MessageEvent('message', { data: { type: 'batch', events } }));
        send(startEvents);
        let rev = 1000;
        const texts = ['', ''];
        // The row as the worker sends it when a block starts or ends (texts the view holds are not resent).
        const row = (blocks: unknown[], final: boolean, same: number[]) => ({
          type: 'row',
          id: openId,
          rev: ++rev,
          row: { id: openId, role: 'assistant', blocks, final, startedAt: t0, ...(final ? { stopReason: 'stop', endedAt: t0 + 2000 } : {}) },
          same,
        });
        const start = w.performance.now();
        let sent = 0;
        let chars = 0;
        let pos = 0;
        let index = 0;
        w.__bench.samples = [];
        w.__bench.on = true;
        const step = () => {
          const elapsed = (w.performance.now() - start) / 1000;
          const due = Math.min(Math.floor(elapsed * rate), Math.floor(seconds * rate));
          const events: unknown[] = [];
          // Thinking for the first 5% of the stream, then the answer.
          if (index === 0 && elapsed > seconds * 0.05) {
            events.push(
              row(
                [
                  { kind: 'thinking', index: 0, text: '', final: true, startedAt: t0, endedAt: t0 + 1000 },
                  { kind: 'text', index: 1, text: '', final: false, startedAt: t0 + 1000 },
                ],
                false,
                texts[0] ? [0] : [],
              ),
            );
            index = 1;
          }
          for (; sent < due; sent++) {
            const size = 3 + (sent % 5);
            let text = src.slice(pos % src.length, (pos % src.length) + size);
            if (!text) text = src.slice(0, size);
            pos += text.length;
            chars += text.length;
            texts[index] += text;
            events.push(index ? { type: 'patch', id: openId, rev: ++rev, index, text } : { type: 'patch', id: openId, rev: ++rev, text });
          }
          if (events.length) send(events);
          if (elapsed < seconds) w.setTimeout(step, 16);
          else {
            w.__bench.on = false;
            send([
              row(
                [
                  { kind: 'thinking', index: 0, text: '', final: true, startedAt: t0, endedAt: t0 + 1000 },
                  { kind: 'text', index: 1, text: '', final: true, startedAt: t0 + 1000, endedAt: t0 + 2000 },
                ],
                true,
                [0, 1].filter((i) => texts[i]),
              ),
              { type: 'settled', aborted: false, at: t0 + 2000 },
            ]);
            resolve({ samples: w.__bench.samples.slice(), deltas: sent, chars });
          }
        };
        step();
      }),
    { seconds, rate: DELTAS_PER_SECOND, t0: T0, startEvents, openId },
  );
}

interface Result {
  readonly median: number;
  readonly p95: number;
  readonly frames: number;
  readonly scriptPerFrame: number;
  readonly layoutPerFrame: number;
  readonly stylePerFrame: number;
  readonly deltas: number;
}

async function run(page: Page, state: TranscriptState): Promise<Result> {
  await deliver(page, { type: 'snapshot', state, session });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const metrics = async () =>
    Object.fromEntries(((await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] }).metrics.map((m) => [m.name, m.value]));
  const before = await metrics();
  const { samples, deltas } = await stream(page, SECONDS);
  const after = await metrics();
  const frames = samples.length;
  const per = (name: string) => ((after[name]! - before[name]!) * 1000) / frames;
  return {
    median: quantile(samples, 0.5),
    p95: quantile(samples, 0.95),
    frames,
    scriptPerFrame: per('ScriptDuration'),
    layoutPerFrame: per('LayoutDuration'),
    stylePerFrame: per('RecalcStyleDuration'),
    deltas,
  };
}

const fmt = (ms: number) => `${ms.toFixed(3)} ms`;

async function main(): Promise<void> {
  assertBundleFresh();
  if (only !== 'blocks') await transcriptBench();
  if (only !== 'transcript') await blockBench();
}

async function transcriptBench(): Promise<void> {
  const prior = longTranscript(2000);
  const server = await startServer();
  const browser = await launchBrowser();
  const results: Record<'a' | 'b', Result[]> = { a: [], b: [] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const [key, state] of [
        ['a', initialTranscript],
        ['b', prior],
      ] as const) {
        const view = await openViewInstrumented(browser, server.origin);
        const r = await run(view, state);
        results[key].push(r);
        console.log(
          `round ${round + 1} (${key}) ${key === 'a' ? 'empty transcript     ' : `${state.messages.length} prior messages`}: ` +
            `median ${fmt(r.median)}, p95 ${fmt(r.p95)} per frame over ${r.frames} frames (${r.deltas} deltas); ` +
            `Chromium per frame: script ${fmt(r.scriptPerFrame)}, layout ${fmt(r.layoutPerFrame)}, style ${fmt(r.stylePerFrame)}`,
        );
        await view.close();
      }
    }
  } finally {
    await browser.close();
    await server.close();
  }
  const agg = (rs: Result[], f: (r: Result) => number) => quantile(rs.map(f), 0.5);
  const a = { median: agg(results.a, (r) => r.median), p95: agg(results.a, (r) => r.p95) };
  const b = { median: agg(results.b, (r) => r.median), p95: agg(results.b, (r) => r.p95) };
  console.log('');
  console.log(`streaming ${DELTAS_PER_SECOND} deltas/s for ${SECONDS} s, ${ROUNDS} round(s), median of rounds:`);
  console.log(`  (a) empty transcript:        median ${fmt(a.median)}, p95 ${fmt(a.p95)} script per frame`);
  console.log(`  (b) 2,000 prior messages:    median ${fmt(b.median)}, p95 ${fmt(b.p95)} script per frame`);
  console.log(`  ratio (b)/(a): median ${(b.median / a.median).toFixed(2)}, p95 ${(b.p95 / a.p95).toFixed(2)}  (target: under 1.5)`);
}

async function openViewInstrumented(browser: Awaited<ReturnType<typeof launchBrowser>>, origin: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 420, height: 900 } });
  await context.addInitScript(INSTRUMENT);
  const page = await context.newPage();
  page.on('close', () => void context.close());
  await page.goto(`${origin}/?theme=vscode-dark`);
  await page.waitForFunction(() => (globalThis as unknown as { __posted: { type: string }[] }).__posted.some((m) => m.type === 'ready'));
  return page;
}

/** Plain words in a repeatable order, with some inline markup (the renderer's common work). */
function words(n: number, seed = 1): string[] {
  const vocab = [
    'the',
    'server',
    'reads',
    'its',
    '**configuration**',
    'then',
    'starts',
    'on',
    'a',
    '`port`',
    'and',
    'logs',
    'each',
    'request',
    'to',
    '[the docs](https://example.com/docs)',
    'file',
  ];
  const out: string[] = [];
  for (let i = 0, x = seed; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(vocab[x % vocab.length]!);
  }
  return out;
}

function sentence(chars: number, seed: number): string {
  let s = '';
  for (const w of words(200, seed)) {
    if (s.length + w.length + 1 > chars) break;
    s += (s ? ' ' : '') + w;
  }
  return s;
}

/** The four big blocks of issue 11, and the same number of bytes as short paragraphs for each. */
function blockCases(): { name: string; text: string }[] {
  const list = Array.from({ length: 3000 }, (_, i) => `- Item ${i + 1}: ${sentence(58, i)}\n`).join('');
  const table = `| # | name | value |\n| --- | --- | ---: |\n${Array.from({ length: 1000 }, (_, i) => `| ${i + 1} | name-${i} | ${(i * 37) % 1000} |\n`).join('')}`;
  const paragraph = words(16_000).join(' ').slice(0, 100_000);
  const codeLines: string[] = [];
  for (let i = 0; codeLines.join('\n').length < 100_000; i++)
    codeLines.push(
      `export function handler${i}(req: Request, res: Response): void {`,
      `  const port = Number(process.env.PORT ?? ${3000 + i}); // port ${i}`,
      '  res.end(`ok ${port}`);',
      '}',
    );
  const code = `\`\`\`ts\n${codeLines.join('\n')}\n\`\`\`\n`;
  const cases = [
    { name: '(a) 3,000-item list', text: list },
    { name: '(b) 1,000-row table', text: table },
    { name: '(c) one 100 KB paragraph', text: paragraph },
    { name: '(d) 100 KB code fence', text: code },
  ];
  return cases.flatMap((c) => {
    let short = '';
    for (let i = 0; short.length < c.text.length; i++) short += `${sentence(62, i + 7)}\n\n`;
    return [c, { name: `${c.name}: short paragraphs`, text: short.slice(0, c.text.length) }];
  });
}

interface TraceEvent {
  readonly name: string;
  readonly ph: string;
  readonly ts: number;
  readonly dur?: number;
  readonly tid: number;
  readonly cat: string;
}

/**
 * Chromium tracing of the page (`--trace`): returns a function that stops it and describes the five longest
 * tasks of the renderer's main thread, each with the time of what ran inside it (script, style, layout,
 * paint, garbage collection) by name.
 */
async function startTrace(page: Page): Promise<() => Promise<string[]>> {
  const cdp = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...(e.value as unknown as TraceEvent[])));
  await cdp.send('Tracing.start', {
    categories: 'devtools.timeline,disabled-by-default-devtools.timeline,v8,v8.execute,blink.user_timing',
    transferMode: 'ReportEvents',
  });
  return async () => {
    const done = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
    await cdp.send('Tracing.end');
    await done;
    const main = events.find((e) => e.name === 'FireAnimationFrame')?.tid;
    const onMain = events.filter((e) => e.tid === main && e.ph === 'X' && e.dur !== undefined);
    const tasks = onMain.filter((e) => e.name === 'RunTask').sort((a, b) => b.dur! - a.dur!);
    const start = Math.min(...onMain.map((e) => e.ts));
    const end = Math.max(...onMain.map((e) => e.ts + e.dur!));
    const inner = [
      'FunctionCall',
      'FireAnimationFrame',
      'EventDispatch',
      'UpdateLayoutTree',
      'Layout',
      'Paint',
      'PrePaint',
      'Layerize',
      'MajorGC',
      'MinorGC',
      'V8.GC_MC_BACKGROUND',
      'BlinkGC.AtomicPhase',
      'ParseHTML',
      'TimerFire',
      'V8.GCFinalizeMC',
      'V8.GCScavenger',
      'V8.GCCompactor',
    ];
    return tasks.slice(0, 5).map((t) => {
      const by = new Map<string, number>();
      for (const e of onMain)
        if (e !== t && e.ts >= t.ts && e.ts + e.dur! <= t.ts + t.dur! && inner.includes(e.name)) by.set(e.name, (by.get(e.name) ?? 0) + e.dur!);
      const parts = [...by].sort((a, b) => b[1] - a[1]).map(([n, d]) => `${n} ${(d / 1000).toFixed(1)}`);
      return `  task ${(t.dur! / 1000).toFixed(1)} ms at ${((t.ts - start) / 1e6).toFixed(2)} s of ${((end - start) / 1e6).toFixed(2)} s: ${parts.join(', ')}`;
    });
  };
}

interface BlockResult {
  /** Per delivery: script (message handler and render) and the style and layout the change forced. */
  readonly script: number[];
  readonly layout: number[];
  readonly longestTask: number;
  readonly wall: number;
}

/** Streams `text` into one text block in `deliveries` batches, one per frame, then ends it; per-frame cost in ms. */
async function streamBlock(page: Page, text: string, deliveries: number): Promise<BlockResult> {
  // What the host sends: the worker's changes, a patch of the open row per delivery.
  const sent = (events: WireEvent[]) => {
    const m = asHostSends(page, { type: 'batch', events });
    return m.type === 'batch' ? m.events : [];
  };
  const startEvents = sent([
    { type: 'userMessage', text: 'Write it out.', images: 0 },
    { type: 'runStart' },
    { type: 'assistantStart', at: T0 },
    { type: 'blockStart', index: 0, kind: 'text', at: T0 },
  ]);
  const step = Math.ceil(text.length / deliveries);
  const pieces: (readonly WireEvent[])[] = [];
  for (let i = 0; i < text.length; i += step) pieces.push(sent([{ type: 'delta', index: 0, text: text.slice(i, i + step) }]));
  const endEvents = sent([
    { type: 'blockEnd', index: 0, at: T0 + 1000 },
    { type: 'assistantEnd', stopReason: 'stop', at: T0 + 1000 },
    { type: 'settled', aborted: false, at: T0 + 1000 },
  ]);
  return page.evaluate(
    async ({ pieces, startEvents, endEvents }) => {
      const w = globalThis as unknown as {
        __bench: { on: boolean; samples: number[]; take(): number };
        dispatchEvent(e: unknown): boolean;
        MessageEvent: new (t: string, i: { data: unknown }) => unknown;
        performance: { now(): number };
        requestAnimationFrame(cb: () => void): number;
        setTimeout(cb: () => void, ms: number): number;
        document: { body: { offsetHeight: number }; querySelector(s: string): unknown };
        PerformanceObserver: new (cb: (l: { getEntries(): { duration: number }[] }) => void) => { observe(o: unknown): void; disconnect(): void };
      };
      const send = (events: readonly unknown[]) => w.dispatchEvent(new w.MessageEvent('message', { data: { type: 'batch', events } }));
      const frame = () => new Promise<void>((r) => w.requestAnimationFrame(() => r()));
      let longest = 0;
      const observer = new w.PerformanceObserver((l) => {
        for (const e of l.getEntries()) longest = Math.max(longest, e.duration);
      });
      observer.observe({ type: 'longtask', buffered: false });
      send(startEvents);
      await frame();
      await frame();
      const script: number[] = [];
      const layouts: number[] = [];
      const start = w.performance.now();
      // Each delivery: the message handler and the render (script, from the instrumentation) plus the
      // style and layout the new DOM costs (forced here, measured).
      const deliver = async (events: readonly unknown[]) => {
        w.__bench.take();
        w.__bench.samples = [];
        w.__bench.on = true;
        send(events);
        await frame();
        // The view's render ran in this frame after the sampling tick: its time is not in a sample yet.
        const rendered = w.__bench.take();
        const t = w.performance.now();
        void w.document.body.offsetHeight;
        const layout = w.performance.now() - t;
        w.__bench.on = false;
        script.push(w.__bench.samples.reduce((a, b) => a + b, 0) + rendered);
        layouts.push(layout);
      };
      for (const p of pieces) await deliver(p);
      await deliver(endEvents);
      for (let i = 0; i < 400 && w.document.querySelector('[data-highlight], [data-lines], [data-rows]'); i++)
        await new Promise<void>((r) => w.setTimeout(r, 5));
      await frame();
      const wall = w.performance.now() - start;
      observer.disconnect();
      return { script, layout: layouts, longestTask: longest, wall };
    },
    { pieces, startEvents, endEvents },
  );
}

async function blockBench(): Promise<void> {
  const server = await startServer();
  const browser = await launchBrowser();
  interface Row {
    name: string;
    bytes: number;
    worst: number;
    p95: number;
    total: number;
    sWorst: number;
    sP95: number;
    sTotal: number;
    longest: number;
  }
  const rows: Row[] = [];
  try {
    for (const c of blockCases()) {
      if (caseFilter && !c.name.includes(caseFilter)) continue;
      const view = await openViewInstrumented(browser, server.origin);
      await deliver(view, { type: 'snapshot', state: initialTranscript, session });
      const trace = process.argv.includes('--trace') ? await startTrace(view) : undefined;
      const r = await streamBlock(view, c.text, 150);
      if (trace) console.log(`${c.name}: longest tasks\n${(await trace()).join('\n')}`);
      await view.close();
      const frames = r.script.map((s, i) => s + r.layout[i]!);
      if (process.argv.includes('--frames'))
        console.log(`${c.name}\n${r.script.map((s, i) => `  ${i} script ${s.toFixed(1)} layout ${r.layout[i]!.toFixed(1)}`).join('\n')}`);
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
      rows.push({
        name: c.name,
        bytes: c.text.length,
        worst: Math.max(...frames),
        p95: quantile(frames, 0.95),
        total: sum(frames),
        sWorst: Math.max(...r.script),
        sP95: quantile(r.script, 0.95),
        sTotal: sum(r.script),
        longest: r.longestTask,
      });
    }
  } finally {
    await browser.close();
    await server.close();
  }
  console.log('');
  console.log('one big block streamed in 150 deliveries, one per frame; per delivery: script (handler + render) and script + forced style/layout');
  console.log('case                                         bytes | script: worst      p95      total | with layout: worst      p95      total | longest task');
  const ms = (x: number) => `${x.toFixed(1)} ms`.padStart(10);
  rows.forEach((r) => {
    console.log(
      `${r.name.padEnd(44)} ${String(r.bytes).padStart(6)} | ${ms(r.sWorst)} ${ms(r.sP95)} ${ms(r.sTotal)} | ${ms(r.worst)} ${ms(r.p95)} ${ms(r.total)} | ${r.longest ? ms(r.longest) : '-'}`,
    );
  });
  console.log('');
  console.log('ratios against the same bytes as short paragraphs (targets: worst frame <= 50 ms, total within 1.5x):');
  for (let i = 0; i < rows.length; i += 2) {
    const [big, base] = [rows[i]!, rows[i + 1]!];
    const x = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
    console.log(
      `  ${big.name.padEnd(28)} script: worst ${x(big.sWorst, base.sWorst)}, p95 ${x(big.sP95, base.sP95)}, total ${x(big.sTotal, base.sTotal)}` +
        ` | with layout: worst ${x(big.worst, base.worst)}, p95 ${x(big.p95, base.p95)}, total ${x(big.total, base.total)}`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
