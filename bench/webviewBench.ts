/**
 * Webview benchmark (not a test): per-frame script time of the chat view while 2,000 deltas/s stream
 * into (a) an empty transcript and (b) one with 2,000 prior messages, in headless Chromium with the
 * real bundle and CSP. Script time per frame = time spent in the view's message handlers,
 * requestAnimationFrame callbacks and ResizeObserver callbacks between two frames (instrumented from an
 * init script, so the product code carries no bench hooks). Also prints Chromium's own totals of
 * script, layout and style time per frame over the same window.
 *
 * Usage: npm run build && npm run bench [-- --seconds 6 --rounds 2]
 */

import type { Page } from 'playwright-core';
import { initialTranscript, type TranscriptState } from '../src/shared/transcript.ts';
import { longTranscript, T0 } from '../test/webview/builders.ts';
import { assertBundleFresh, deliver, launchBrowser, session, startServer } from '../test/webview/harness.ts';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECONDS = arg('seconds', 6);
const ROUNDS = arg('rounds', 2);
const DELTAS_PER_SECOND = 2000;

/** Installed before any page script: wraps the callbacks the view uses and samples them per frame. */
const INSTRUMENT = `(() => {
  const raf = window.requestAnimationFrame.bind(window);
  const now = () => performance.now();
  let acc = 0;
  const bench = (window.__bench = { on: false, samples: [] });
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
  return page.evaluate(
    ({ seconds, rate, t0 }) =>
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
        const send = (events: unknown[]) => w.dispatchEvent(new w.MessageEvent('message', { data: { type: 'batch', events } }));
        send([
          { type: 'userMessage', text: 'Make the port configurable.', images: 0 },
          { type: 'runStart' },
          { type: 'assistantStart', at: t0 },
          { type: 'blockStart', index: 0, kind: 'thinking', at: t0 },
        ]);
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
            events.push({ type: 'blockEnd', index: 0, at: t0 + 1000 }, { type: 'blockStart', index: 1, kind: 'text', at: t0 + 1000 });
            index = 1;
          }
          for (; sent < due; sent++) {
            const size = 3 + (sent % 5);
            let text = src.slice(pos % src.length, (pos % src.length) + size);
            if (!text) text = src.slice(0, size);
            pos += text.length;
            chars += text.length;
            events.push({ type: 'delta', index, text });
          }
          if (events.length) send(events);
          if (elapsed < seconds) w.setTimeout(step, 16);
          else {
            w.__bench.on = false;
            send([
              { type: 'blockEnd', index, at: t0 + 2000 },
              { type: 'assistantEnd', stopReason: 'stop', at: t0 + 2000 },
              { type: 'settled', aborted: false, at: t0 + 2000 },
            ]);
            resolve({ samples: w.__bench.samples.slice(), deltas: sent, chars });
          }
        };
        step();
      }),
    { seconds, rate: DELTAS_PER_SECOND, t0: T0 },
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

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
};

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

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
