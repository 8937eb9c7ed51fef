/**
 * Delta -> painted latency in the real workbench (a report, not a test): code-server with the packaged
 * `.vsix`, Debian chromium, the scripted model streaming one reply at about 1,000 deltas/s (in bursts of 4
 * every 4 ms; the rate reached is printed). Each delta is one numbered word (`k17 `); the model notes the
 * wall-clock time it wrote each delta (its `onDelta` hook), and a script in the chat webview's frame notes,
 * after every frame that changed the transcript, the highest number on screen and when that frame's
 * rendering was done (a task posted from the mutation, which runs after the frame's
 * style, layout and paint). Latency of delta n = time of the first frame showing n - time n was sent.
 * Both clocks are this machine's wall clock (`performance.timeOrigin + performance.now()` on both sides).
 *
 * Also printed: the share from sending to the message reaching the webview (host, worker and transport).
 *
 * Usage: node bench/paintLatencyBench.ts [--seconds 5] [--rounds 3] [--vsix FILE] [--keep-vsix]
 * (builds and packages the extension first unless --vsix or --keep-vsix, which reuses the .vsix at the
 * repo root; needs code-server, installed on first use as for the e2e runner).
 */

import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import type { Frame, Page } from 'playwright-core';
import { packagedVsix, startHarness } from '../test/e2e/run.ts';
import type { Scenario } from '../test/scriptedModel/scenario.ts';
import { startScriptedModel } from '../test/scriptedModel/server.ts';
import { makePiAgentDir } from '../test/support/piConfig.ts';
import { EXTENSION_ID, Workbench } from '../test/workbench/browser.ts';
import { quantile } from './stats.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    vsix: { type: 'string' },
    'keep-vsix': { type: 'boolean', default: false },
  },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const RATE = 1000;
/** A paragraph break every this many deltas: replies are paragraphs, not one endless line. */
const PARAGRAPH_DELTAS = 40;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const now = (): number => performance.timeOrigin + performance.now();

/** Deltas sent back to back, then a pause: a timer of 1 ms fires late on a busy machine, one of 4 ms less so. */
const BURST = 4;

/** One reply: deltas `k1 `, `k2 `, … in bursts of {@link BURST} (the scripted model sleeps before a burst). */
function scenario(deltas: number): Scenario {
  const chunks = Array.from({ length: deltas }, (_, i) => ({
    text: `k${i + 1}${(i + 1) % PARAGRAPH_DELTAS === 0 ? '\n\n' : ' '}`,
    delayMs: i % BURST === 0 ? Math.round((1000 * BURST) / RATE) : 0,
  }));
  return { name: 'paint-latency', steps: [{ chunks, finish: 'stop' }] };
}

/**
 * Runs in the webview's frame: after each frame that changed the transcript, records [time, highest
 * number shown]. The mutation callback runs at the end of the view's requestAnimationFrame callback; a
 * message posted from it runs once that frame's rendering (style, layout, paint) is done.
 */
function installPaintProbe(): void {
  type Probe = { seen: [number, number][]; best: number; received: [number, number][] };
  const g = globalThis as unknown as {
    __paintProbe?: Probe;
    document: { querySelector(s: string): { textContent: string | null; querySelectorAll(s: string): ArrayLike<{ textContent: string | null }> } | null };
    MutationObserver: new (cb: () => void) => { observe(n: unknown, o: unknown): void };
    addEventListener(type: 'message', cb: (e: { data: unknown }) => void): void;
    MessageChannel: new () => { port1: { onmessage: (() => void) | null }; port2: { postMessage(m: unknown): void } };
    performance: { timeOrigin: number; now(): number };
  };
  const probe: Probe = (g.__paintProbe = { seen: [], best: 0, received: [] });
  // When each delta reached the webview (the host's message), to split the latency in two.
  g.addEventListener('message', (e) => {
    const data = e.data as { type?: string; events?: { type: string; text?: string }[] } | undefined;
    if (data?.type !== 'batch' || !data.events) return;
    const t = g.performance.timeOrigin + g.performance.now();
    let best = 0;
    for (const ev of data.events) if (ev.type === 'delta' && ev.text) for (const m of ev.text.matchAll(/k(\d+)/g)) best = Math.max(best, Number(m[1]));
    if (best) probe.received.push([t, best]);
  });
  const root = g.document.querySelector('[data-testid="transcript"]');
  const channel = new g.MessageChannel();
  let pending = false;
  channel.port1.onmessage = () => {
    pending = false;
    const t = g.performance.timeOrigin + g.performance.now();
    const blocks = root?.querySelectorAll('[data-role="assistant"] [data-block="text"]');
    const text = blocks?.length ? (blocks[blocks.length - 1]!.textContent ?? '') : '';
    const tail = text.slice(-48);
    let best = 0;
    for (const m of tail.matchAll(/k(\d+)/g)) best = Math.max(best, Number(m[1]));
    if (best > probe.best) {
      probe.best = best;
      probe.seen.push([t, best]);
    }
  };
  new g.MutationObserver(() => {
    if (pending) return;
    pending = true;
    channel.port2.postMessage(0);
  }).observe(root, { subtree: true, childList: true, characterData: true });
}

/** The chat webview's inner frame (`iframe.webview` -> `iframe#active-frame`). */
async function webviewFrame(page: Page): Promise<Frame> {
  const outer = await page.locator(`iframe.webview[src*="extensionId=${EXTENSION_ID}"]`).filter({ visible: true }).first().elementHandle();
  const outerFrame = await outer?.contentFrame();
  const inner = await outerFrame?.locator('iframe#active-frame').elementHandle();
  const frame = await inner?.contentFrame();
  if (!frame) throw new Error('chat webview frame not found');
  return frame;
}

/** For each delta 1..n: time of the first record whose highest number reaches it - its send time. */
function since(sent: readonly number[], records: readonly [number, number][], n: number): number[] {
  const out: number[] = [];
  let j = 0;
  for (let k = 1; k <= n; k++) {
    while (j < records.length && records[j]![1] < k) j++;
    if (j < records.length && sent[k] !== undefined) out.push(records[j]![0] - sent[k]!);
  }
  return out;
}

interface Round {
  readonly latencies: number[];
  /** Send -> the message carrying it reached the webview. */
  readonly arrivals: number[];
  readonly deltas: number;
  readonly sendSeconds: number;
  readonly frames: number;
}

async function round(harness: Awaited<ReturnType<typeof startHarness>>, n: number): Promise<Round> {
  const deltas = SECONDS * RATE;
  const model = await startScriptedModel({ scenario: scenario(deltas) });
  const sent: number[] = [];
  model.onDelta = (piece) => {
    const m = /^k(\d+)/.exec(piece);
    if (m) sent[Number(m[1])] = now();
  };
  const agentDir = await makePiAgentDir({ baseUrl: model.url, settings: { defaultThinkingLevel: 'off' } });
  harness.server.writeSettings({ 'piPanel.agentDir': agentDir });
  const workspace = join(harness.server.tempDir, `workspace-paint-${n}`);
  mkdirSync(workspace, { recursive: true });
  const page = await harness.browser.context.newPage();
  try {
    const wb = new Workbench(page);
    await wb.open(harness.server.workbenchUrl(workspace));
    await wb.openPiView();
    await wb.waitForWebview();
    const frame = await webviewFrame(page);
    await frame.evaluate(installPaintProbe);
    await wb.webview().locator('[data-testid="composer"]').fill('Count.');
    await wb.webview().locator('[data-testid="send"]').click();
    const best = () => frame.evaluate(() => (globalThis as unknown as { __paintProbe: { best: number } }).__paintProbe.best);
    // Until the last delta is on screen (only this run's reply can put it there).
    for (const deadline = Date.now() + 60_000 + SECONDS * 5000; (await best()) < deltas; await sleep(250))
      if (Date.now() > deadline) throw new Error(`delta ${deltas} was not painted (highest: ${await best()})`);
    const { seen, received } = await frame.evaluate(
      () => (globalThis as unknown as { __paintProbe: { seen: [number, number][]; received: [number, number][] } }).__paintProbe,
    );
    const latencies = since(sent, seen, deltas);
    const arrivals = since(sent, received, deltas);
    return { latencies, arrivals, deltas, sendSeconds: (sent[deltas]! - sent[1]!) / 1000, frames: seen.length };
  } finally {
    await page.close().catch(() => undefined);
    await model.close();
    rmSync(agentDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const vsix = values.vsix ?? packagedVsix(!values['keep-vsix']);
  const harness = await startHarness(vsix);
  const rows: { p50: number; p95: number; max: number; rate: number; frames: number; a50: number; a95: number }[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      const r = await round(harness, i);
      const row = {
        p50: quantile(r.latencies, 0.5),
        p95: quantile(r.latencies, 0.95),
        max: Math.max(...r.latencies),
        rate: r.deltas / r.sendSeconds,
        frames: r.frames,
        a50: quantile(r.arrivals, 0.5),
        a95: quantile(r.arrivals, 0.95),
      };
      rows.push(row);
      console.log(
        `round ${i + 1}: ${r.deltas} deltas at ${row.rate.toFixed(0)}/s, painted in ${row.frames} frames; ` +
          `delta -> painted p50 ${row.p50.toFixed(1)} ms, p95 ${row.p95.toFixed(1)} ms, max ${row.max.toFixed(1)} ms; ` +
          `send -> message in the webview p50 ${row.a50.toFixed(1)} ms, p95 ${row.a95.toFixed(1)} ms`,
      );
    }
  } finally {
    await harness.close();
  }
  const med = (f: (r: (typeof rows)[number]) => number) => quantile(rows.map(f), 0.5).toFixed(1);
  console.log('');
  console.log(`workbench (code-server, packaged .vsix), ${SECONDS} s at ~${RATE} deltas/s, median of ${ROUNDS} round(s):`);
  console.log(`  delta -> painted: p50 ${med((r) => r.p50)} ms, p95 ${med((r) => r.p95)} ms  (target: p95 <= 33 ms)`);
  console.log(`  of which send -> message in the webview: p50 ${med((r) => r.a50)} ms, p95 ${med((r) => r.a95)} ms`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
