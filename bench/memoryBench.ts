/**
 * Memory benchmark (not a test): the chat webview's JS heap, Blink heap and DOM nodes after GC as realistic
 * turns stream live (a markdown reply with a list and code, a tool card with ~2 KB of output, a short
 * answer), at 100, 500, 2,000 and 5,000 turns, following the newest message, scrolled up, and resumed (a
 * fresh view given the snapshot the host sends on resume); and at each size the cost of streaming one more
 * reply (Chromium's script and layout time per frame). In headless Chromium with the real bundle, measured
 * through CDP (`HeapProfiler.collectGarbage`, `Runtime.getHeapUsage`, `Memory.getDOMCounters`,
 * `Performance.getMetrics`, and a `memory-infra` trace dump for Oilpan, PartitionAlloc and the renderer's
 * footprint). Then the host's side: the extension host's transcript
 * mirror and the worker's transcript state, each per turn, in this process, after GC.
 *
 * Usage: npm run build && node --expose-gc bench/memoryBench.ts [--turns 100,500,2000,5000] [--only webview|host]
 * Targets (issue 24): at 5,000 turns, heap and DOM within 1.5× of 500 turns in every mode; frame cost flat.
 */

import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import type { CDPSession, Page } from 'playwright-core';
import { HOST_WINDOW_ROWS, TranscriptMirror, type EarlierRows } from '../src/extension/transcriptMirror.ts';
import { snapshotMessage } from '../src/extension/viewFeed.ts';
import { initialTranscript, reduce } from '../src/shared/transcript/reduce.ts';
import { emptyTools, fieldsOf, make, rowCount } from '../src/shared/transcript/rowStore.ts';
import type { TranscriptState } from '../src/shared/transcript/rows.ts';
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

/**
 * Live turns per frame while filling: 16 realistic turns are ~480 events, under the 500 above which the host
 * sends a snapshot instead (`viewFeed.ts`), so every one goes through the webview's live batch path.
 */
const TURNS_PER_FRAME = 16;

/** Streams turns `from..to` into the page: {@link TURNS_PER_FRAME} turns' events in one batch, then a frame. */
async function streamTurns(page: Page, from: number, to: number): Promise<void> {
  const CHUNK = 400;
  for (let start = from; start < to; start += CHUNK) {
    const frames: WireEvent[][] = [];
    for (let n = start; n < Math.min(start + CHUNK, to); n += TURNS_PER_FRAME)
      frames.push(Array.from({ length: Math.min(TURNS_PER_FRAME, to - n) }, (_, i) => turn(n + i)).flat());
    await page.evaluate(
      async (bs) => {
        const w = globalThis as unknown as {
          dispatchEvent(e: unknown): boolean;
          MessageEvent: new (t: string, i: unknown) => unknown;
          requestAnimationFrame(cb: () => void): number;
        };
        for (const events of bs) {
          w.dispatchEvent(new w.MessageEvent('message', { data: { type: 'batch', events } }));
          await new Promise<void>((r) => w.requestAnimationFrame(() => r()));
        }
        await new Promise<void>((r) => w.requestAnimationFrame(() => w.requestAnimationFrame(() => r())));
      },
      frames as unknown as Record<string, unknown>[][],
    );
  }
}

/** A fresh empty transcript (not `initialTranscript`, whose row store a reduction may share). */
const emptyTranscript = (): TranscriptState => make(fieldsOf(initialTranscript), { store: [], length: 0, open: undefined, after: [], tools: emptyTools() });

interface Sample {
  readonly heapMb: number;
  readonly nodes: number;
  /** Oilpan (`blink_gc`), PartitionAlloc and the renderer's private footprint, from a Chromium memory dump. */
  readonly blinkMb: number;
  readonly partitionMb: number;
  readonly rendererMb: number;
}

/** Allocator sizes (bytes) of every renderer process in one detailed `memory-infra` dump (the dump runs a GC first). */
async function memoryDump(browserCdp: CDPSession): Promise<{ blink: number; partition: number; footprint: number }[]> {
  const complete = new Promise<{ stream?: string }>((resolve) => browserCdp.once('Tracing.tracingComplete', resolve));
  await browserCdp.send('Tracing.start', {
    transferMode: 'ReturnAsStream',
    traceConfig: { includedCategories: ['disabled-by-default-memory-infra'], excludedCategories: ['*'], memoryDumpConfig: { triggers: [] } },
  } as never);
  await browserCdp.send('Tracing.requestMemoryDump', { deterministic: true, levelOfDetail: 'detailed' });
  await browserCdp.send('Tracing.end');
  const { stream } = await complete;
  let text = '';
  for (let eof = false; !eof && stream; ) {
    const r = await browserCdp.send('IO.read', { handle: stream, size: 1 << 22 });
    text += r.base64Encoded ? Buffer.from(r.data, 'base64').toString() : r.data;
    eof = r.eof;
  }
  if (stream) await browserCdp.send('IO.close', { handle: stream });
  type Dump = {
    pid: number;
    ph: string;
    name?: string;
    args?: {
      name?: string;
      dumps?: { allocators?: Record<string, { attrs?: { size?: { value: string } } }>; process_totals?: { private_footprint_bytes?: string } };
    };
  };
  const parsed = JSON.parse(text) as Dump[] | { traceEvents: Dump[] };
  const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
  const renderers = new Set(events.filter((e) => e.ph === 'M' && e.name === 'process_name' && e.args?.name === 'Renderer').map((e) => e.pid));
  // A process's allocators and its totals come in separate dump events.
  const byPid = new Map<number, { blink: number; partition: number; footprint: number }>();
  for (const e of events) {
    const dumps = e.ph === 'v' && renderers.has(e.pid) ? e.args?.dumps : undefined;
    if (!dumps) continue;
    const p = byPid.get(e.pid) ?? { blink: 0, partition: 0, footprint: 0 };
    const size = (name: string) => parseInt(dumps.allocators?.[name]?.attrs?.size?.value ?? '0', 16);
    if (dumps.allocators) Object.assign(p, { blink: size('blink_gc'), partition: size('partition_alloc') });
    if (dumps.process_totals?.private_footprint_bytes) p.footprint = parseInt(dumps.process_totals.private_footprint_bytes, 16);
    byPid.set(e.pid, p);
  }
  return [...byPid.values()];
}

/** JS heap and DOM nodes after a full GC; Blink's heaps from a memory dump (the page's renderer is the largest). */
async function measure(cdp: CDPSession, browserCdp: CDPSession): Promise<Sample> {
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.collectGarbage');
  const heap = await cdp.send('Runtime.getHeapUsage');
  const dom = await cdp.send('Memory.getDOMCounters');
  const renderer = (await memoryDump(browserCdp)).sort((a, b) => b.footprint - a.footprint)[0] ?? { blink: NaN, partition: NaN, footprint: NaN };
  return {
    heapMb: heap.usedSize / 1e6,
    nodes: dom.nodes,
    blinkMb: renderer.blink / 1e6,
    partitionMb: renderer.partition / 1e6,
    rendererMb: renderer.footprint / 1e6,
  };
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

type Mode = 'following' | 'scrolled up' | 'resumed';
type Row = Sample & { readonly turns: number; readonly scriptMs: number; readonly layoutMs: number; readonly seconds: number };

/** One mode's table, each figure with its ratio to the 500-turn row (the target: ≤ 1.5× at 5,000 for heap and DOM). */
function table(mode: Mode, rows: readonly Row[]): string {
  const base = rows.find((r) => r.turns === 500);
  const x = (v: number, b: number | undefined) => (b ? ` (${(v / b).toFixed(2)}×)` : '');
  const lines = [
    `webview, ${mode}:`,
    '  turns |    JS heap MB   |  Blink GC MB   | PartitionAlloc MB | renderer MB    |   DOM nodes       | script ms/frame | style+layout ms/frame | fill s',
  ];
  for (const r of rows)
    lines.push(
      `  ${String(r.turns).padStart(5)} | ${(r.heapMb.toFixed(1) + x(r.heapMb, base?.heapMb)).padStart(15)} | ${(r.blinkMb.toFixed(1) + x(r.blinkMb, base?.blinkMb)).padStart(14)} | ${(r.partitionMb.toFixed(1) + x(r.partitionMb, base?.partitionMb)).padStart(17)} | ${(r.rendererMb.toFixed(0) + x(r.rendererMb, base?.rendererMb)).padStart(14)} | ${(String(r.nodes) + x(r.nodes, base?.nodes)).padStart(17)} | ${(r.scriptMs.toFixed(2) + x(r.scriptMs, base?.scriptMs)).padStart(15)} | ${(r.layoutMs.toFixed(2) + x(r.layoutMs, base?.layoutMs)).padStart(21)} | ${r.seconds.toFixed(0).padStart(6)}`,
    );
  return lines.join('\n');
}

/**
 * Live: a page fed turn after turn, following or scrolled up, measured at each size. Resumed: a fresh page
 * per size given the snapshot the host sends a view on resume (`snapshotMessage`, the newest rows and how
 * many precede them), measured the same way.
 */
async function webview(): Promise<void> {
  assertBundleFresh();
  const server = await startServer();
  const browser = await launchBrowser();
  const browserCdp = await browser.newBrowserCDPSession();
  const tables: string[] = [];
  try {
    for (const mode of ['following', 'scrolled up', 'resumed'] as const) {
      const rows: Row[] = [];
      let page: Page | undefined;
      let cdp: CDPSession | undefined;
      const open = async () => {
        await page?.close();
        page = await openView(browser, server.origin);
        cdp = await page.context().newCDPSession(page);
        await cdp.send('Performance.enable');
      };
      if (mode !== 'resumed') {
        await open();
        await deliver(page!, { type: 'snapshot', state: emptyTranscript(), session });
      }
      let done = 0;
      let history = emptyTranscript();
      for (const size of SIZES) {
        const started = performance.now();
        if (mode === 'resumed') {
          for (; done < size; done++) history = reduce(history, turn(done));
          await open();
          await deliver(page!, snapshotMessage(history, session));
        } else {
          if (mode === 'scrolled up' && done === 0) {
            await streamTurns(page!, 0, 20);
            done = 20;
            // Read back half a screen: neither at the top (which pages) nor at the bottom (which follows).
            await page!.locator('main.scroller').evaluate((el) => {
              el.scrollTop = Math.max(1, el.scrollHeight - el.clientHeight * 2);
            });
          }
          await streamTurns(page!, done, size);
          done = size;
        }
        const seconds = (performance.now() - started) / 1000;
        const m = await measure(cdp!, browserCdp);
        const f = await frameCost(page!, cdp!, mode === 'resumed' ? size : done++);
        rows.push({ turns: size, ...m, ...f, seconds });
        console.log(
          `webview, ${mode}: ${String(size).padStart(5)} turns  heap ${m.heapMb.toFixed(1)} MB  Blink GC ${m.blinkMb.toFixed(1)} MB  PartitionAlloc ${m.partitionMb.toFixed(1)} MB  renderer ${m.rendererMb.toFixed(0)} MB  DOM ${m.nodes} nodes  frame: script ${f.scriptMs.toFixed(2)} ms, style+layout ${f.layoutMs.toFixed(2)} ms  (${seconds.toFixed(0)} s)`,
        );
      }
      await page?.close();
      tables.push(table(mode, rows));
    }
  } finally {
    await browser.close();
    await server.close();
  }
  console.log(`\n${tables.join('\n\n')}\n\ntargets (issue 24): at 5,000 turns heap and DOM ≤ 1.5× of 500 turns in every mode; frame cost flat.`);
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
