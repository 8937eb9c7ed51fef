/**
 * Memory benchmark (not a test): the chat webview's JS heap and DOM nodes after GC as realistic turns stream
 * live (a markdown reply with a list and code, a tool card with ~2 KB of output, a short answer), at 100,
 * 500, 2,000 and 5,000 turns, both following the newest message and scrolled up; and at each size the
 * cost of streaming one more reply (Chromium's script and layout time per frame). In headless Chromium
 * with the real bundle, measured through CDP (`HeapProfiler.collectGarbage`, `Runtime.getHeapUsage`,
 * `Memory.getDOMCounters`, `Performance.getMetrics`). Then the host's side: the extension host's transcript
 * mirror and the worker's transcript state, each per turn, in this process, after GC.
 *
 * Usage: npm run build && node --expose-gc bench/memoryBench.ts [--turns 100,500,2000,5000] [--only webview|host]
 * Targets (issue 24): at 5,000 turns, heap and DOM within 1.5× of 500 turns in both modes; frame cost flat.
 */

import { execFileSync } from 'node:child_process';
import type { CDPSession, Page } from 'playwright-core';
import { HOST_WINDOW_ROWS, TranscriptMirror, type EarlierRows } from '../src/extension/transcriptMirror.ts';
import { initialTranscript, reduce } from '../src/shared/transcript/reduce.ts';
import { rowCount } from '../src/shared/transcript/rowStore.ts';
import type { WireEvent } from '../src/shared/wire/events.ts';
import { assertBundleFresh, deliver, launchBrowser, openView, session, startServer } from '../test/webview/harness.ts';

const turnsArg = process.argv.includes('--turns') ? process.argv[process.argv.indexOf('--turns') + 1]! : '100,500,2000,5000';
const SIZES = turnsArg.split(',').map(Number);
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
const T0 = 1_700_000_000_000;

const REPLY =
  'Here is what I found in the code:\n\n- the server starts in `start()`\n- requests go through `handler`\n- errors are logged, not thrown\n\n' +
  '```ts\nexport function start(port: number): Server {\n  const server = createServer(handler);\n  server.listen(port);\n  return server;\n}\n```\n\nI will run the tests next.';
const OUTPUT = Array.from({ length: 40 }, (_, i) => `ok ${i + 1} - test case number ${i + 1} passes in ${i}ms`).join('\n');

/** One realistic turn's wire events: a prompt, a streamed markdown reply with a tool call, its card and result, a short answer. */
function turn(n: number, deltas = 12): WireEvent[] {
  const id = `call_${n}`;
  const at = T0 + n * 1000;
  const pieces: WireEvent[] = [];
  const size = Math.ceil(REPLY.length / deltas);
  for (let i = 0; i < REPLY.length; i += size) pieces.push({ type: 'delta', index: 0, text: REPLY.slice(i, i + size) });
  return [
    { type: 'userMessage', text: `Question ${n}: how does the server start?`, images: 0 },
    { type: 'runStart' },
    { type: 'assistantStart', at },
    { type: 'blockStart', index: 0, kind: 'text', at },
    ...pieces,
    { type: 'blockEnd', index: 0, at },
    { type: 'blockStart', index: 1, kind: 'toolCall', toolCallId: id, toolName: 'bash', at },
    { type: 'delta', index: 1, text: '{"command":"npm test"}' },
    { type: 'blockEnd', index: 1, at },
    { type: 'assistantEnd', stopReason: 'toolUse', at },
    { type: 'toolStart', toolCallId: id, toolName: 'bash', args: '{"command":"npm test"}', at },
    { type: 'toolEnd', toolCallId: id, isError: false, output: OUTPUT, durationMs: 120 },
    { type: 'toolResult', toolCallId: id, toolName: 'bash', isError: false },
    { type: 'assistantStart', at },
    { type: 'blockStart', index: 0, kind: 'text', at },
    { type: 'delta', index: 0, text: 'All 40 tests pass.' },
    { type: 'blockEnd', index: 0, at },
    { type: 'assistantEnd', stopReason: 'stop', at },
    { type: 'settled', aborted: false, at },
    { type: 'runEnd' },
  ] as WireEvent[];
}

/** Streams turns `from..to` into the page, one batch per turn, a frame every two turns. */
async function streamTurns(page: Page, from: number, to: number): Promise<void> {
  const CHUNK = 100;
  for (let start = from; start < to; start += CHUNK) {
    const batches = Array.from({ length: Math.min(CHUNK, to - start) }, (_, i) => turn(start + i));
    await page.evaluate(
      async (bs) => {
        const w = globalThis as unknown as {
          dispatchEvent(e: unknown): boolean;
          MessageEvent: new (t: string, i: unknown) => unknown;
          requestAnimationFrame(cb: () => void): number;
        };
        for (let i = 0; i < bs.length; i++) {
          w.dispatchEvent(new w.MessageEvent('message', { data: { type: 'batch', events: bs[i] } }));
          if (i % 2 === 1) await new Promise<void>((r) => w.requestAnimationFrame(() => r()));
        }
        await new Promise<void>((r) => w.requestAnimationFrame(() => w.requestAnimationFrame(() => r())));
      },
      batches as unknown as Record<string, unknown>[],
    );
  }
}

/** JS heap (MB) and DOM nodes after a full GC. */
async function measure(cdp: CDPSession): Promise<{ heapMb: number; nodes: number }> {
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.collectGarbage');
  const heap = await cdp.send('Runtime.getHeapUsage');
  const dom = await cdp.send('Memory.getDOMCounters');
  return { heapMb: heap.usedSize / 1e6, nodes: dom.nodes };
}

/** Script and layout time (ms) per frame while one more reply streams, one delta a frame. */
async function frameCost(page: Page, cdp: CDPSession, n: number): Promise<{ scriptMs: number; layoutMs: number }> {
  const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const events = turn(n, 120);
  const head = events.slice(0, 4);
  const deltas = events.filter((e, i) => i >= 4 && e.type === 'delta' && e.index === 0).slice(0, 120);
  await deliver(page, { type: 'batch', events: head });
  const before = await metrics();
  const frames = await page.evaluate(
    async (ds) => {
      const w = globalThis as unknown as {
        dispatchEvent(e: unknown): boolean;
        MessageEvent: new (t: string, i: unknown) => unknown;
        requestAnimationFrame(cb: () => void): number;
      };
      for (const d of ds) {
        w.dispatchEvent(new w.MessageEvent('message', { data: { type: 'batch', events: [d] } }));
        await new Promise<void>((r) => w.requestAnimationFrame(() => r()));
      }
      return ds.length;
    },
    deltas as unknown as Record<string, unknown>[],
  );
  const after = await metrics();
  await deliver(page, { type: 'batch', events: events.slice(4).filter((e) => e.type !== 'delta' || e.index !== 0) });
  return {
    scriptMs: ((after.ScriptDuration! - before.ScriptDuration!) * 1000) / frames,
    layoutMs:
      (((after.LayoutDuration ?? 0) - (before.LayoutDuration ?? 0) + (after.RecalcStyleDuration ?? 0) - (before.RecalcStyleDuration ?? 0)) * 1000) / frames,
  };
}

async function webview(): Promise<void> {
  assertBundleFresh();
  const server = await startServer();
  const browser = await launchBrowser();
  try {
    for (const mode of ['following', 'scrolled up'] as const) {
      const page = await openView(browser, server.origin);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Performance.enable');
      await deliver(page, { type: 'snapshot', state: initialTranscript, session });
      let done = 0;
      const rows: string[] = [];
      for (const size of SIZES) {
        if (mode === 'scrolled up' && done === 0) {
          await streamTurns(page, 0, 20);
          done = 20;
          // Read back half a screen: neither at the top (which pages) nor at the bottom (which follows).
          await page.locator('main.scroller').evaluate((el) => {
            el.scrollTop = Math.max(1, el.scrollHeight - el.clientHeight * 2);
          });
        }
        await streamTurns(page, done, size);
        done = size;
        const m = await measure(cdp);
        const f = await frameCost(page, cdp, done++);
        rows.push(
          `${String(size).padStart(5)} turns  heap ${m.heapMb.toFixed(1).padStart(6)} MB  DOM ${String(m.nodes).padStart(7)} nodes  frame: script ${f.scriptMs.toFixed(2)} ms, style+layout ${f.layoutMs.toFixed(2)} ms`,
        );
        console.log(`webview, ${mode}: ${rows.at(-1)}`);
      }
      await page.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
}

/** Heap in use after GC (run with `node --expose-gc`). */
function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const HOST_SIZES = [100, 1000, 1500, 5000];

function report(label: string, size: number, used: number): void {
  console.log(
    `${label}: ${String(size).padStart(5)} turns  ${(used / 1e6).toFixed(1)} MB  ${(used / size / 1024).toFixed(2)} KB/turn  (1,500 turns ≈ ${(((used / size) * 1500) / 1e6).toFixed(1)} MB)`,
  );
}

/** The extension host's `TranscriptMirror` (a window of the newest rows since issue 24), fed as from a worker that is not kept here. */
function hostMirror(): void {
  const noWorker: EarlierRows = { live: () => true, fetch: async () => undefined };
  const quiet = { info: () => {}, warn: () => {}, error: () => {} };
  const clock = { now: () => T0, setTimer: () => () => {} };
  const base = heapAfterGc();
  const mirror = new TranscriptMirror(quiet, clock);
  let done = 0;
  for (const size of HOST_SIZES) {
    // Token-sized deltas, as Pi streams them: the rope a block leaves unless flattened at its end.
    for (; done < size; done++) mirror.apply(turn(done, 200), noWorker);
    report('extension host (mirror, window)', size, heapAfterGc() - base);
  }
  console.log(`extension host: holds ${rowCount(mirror.state)} rows (window ${HOST_WINDOW_ROWS}), ${mirror.pendingEarlier} in the worker`);
}

/** The worker's transcript state: every row (the main thread pages them back from it); before issue 24 the host held as much. */
function workerTranscript(): void {
  const base = heapAfterGc();
  let state = initialTranscript;
  let done = 0;
  for (const size of HOST_SIZES) {
    for (; done < size; done++) state = reduce(state, turn(done, 200));
    report('worker (transcript, every row)', size, heapAfterGc() - base);
  }
  if (state.messages.length === 0) console.log('');
}

/**
 * The host's side, each part in a process of its own (so neither measures the other's garbage): the extension
 * host's transcript and the worker's, per turn, after GC. Pi's own copy of the session is not counted.
 */
function host(): void {
  if (!(globalThis as { gc?: () => void }).gc) {
    console.log('host: run with node --expose-gc for the host figures');
    return;
  }
  for (const part of ['host-mirror', 'worker-transcript'])
    console.log(execFileSync(process.execPath, [...process.execArgv, process.argv[1]!, '--only', part], { encoding: 'utf8' }).trimEnd());
}

if (only === 'host-mirror') hostMirror();
else if (only === 'worker-transcript') workerTranscript();
else {
  if (only !== 'webview') host();
  if (only !== 'host') await webview();
}
