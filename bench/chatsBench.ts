/**
 * Several chats on one extension host, each its own PiClient and worker as `Chats` makes them (real
 * dist/worker.js, scripted models in child processes: see benchChat.ts). A report, not a test; ratios in one run.
 *
 * - streaming: main-thread stalls with 1 and with 4 chats streaming at ~1,000 deltas/s each. The visible chat
 *   (the first) feeds its view through the product's ViewFeed, and every message that view would get is
 *   recorded with its time: wire bytes per character (1 vs 4 chats), then both recordings are replayed, at
 *   their recorded times, into the real webview bundle in headless Chromium (test/webview/harness.ts), and
 *   the visible chat's frame cost is Chromium's script + layout + style time per frame that showed an update
 *   (`Performance.getMetrics` over the replay; rounds interleaved; median, best, and the renderer's main-thread
 *   CPU time, which a loaded machine lengthens least): 4 chats / 1 chat, target ≤ 1.2×.
 * - memory: process RSS (this thread, the extension host's, plus every worker) with 1, 4 and 8 idle chats,
 *   each with a 2,000-message session loaded (resumed and paged into the host store, as a chat shows it),
 *   and after their idle workers stop; MB per extra chat. Run with --expose-gc so the host's heap is collected.
 * - cancel: Cancel -> settled in one chat while 3 others stream, and whether the others' replies arrive whole.
 *
 * Usage: npm run build && node --expose-gc bench/chatsBench.ts [--only streaming|memory|cancel]
 *        [--chars 20000] [--rounds 5] [--sessionMessages 2000] [--cancels 5]
 */
import { performance } from 'node:perf_hooks';
import type { Browser } from 'playwright-core';
import { ViewFeed } from '../src/extension/viewFeed.ts';
import { realScheduler } from '../src/shared/batcher.ts';
import type { HostToWebview } from '../src/shared/wire/webviewProtocol.ts';
import type { PiClient } from '../src/extension/piClient.ts';
import type { Scenario } from '../test/scriptedModel/scenario.ts';
import { writeSession } from '../test/support/sessionFile.ts';
import { lorem } from '../test/support/wireStream.ts';
import { assertBundleFresh, launchBrowser, openView, startServer } from '../test/webview/harness.ts';
import { benchChat, stalls, until, type BenchChat } from './benchChat.ts';
import { median, numberArg, quantile } from './stats.ts';

const CHARS = numberArg('chars', 20_000);
const ROUNDS = numberArg('rounds', 5);
const SESSION_MESSAGES = numberArg('sessionMessages', 2000);

/** A chat streaming `reply` in 10-char deltas, 1 ms apart at most (~1,000 deltas/s), for each of `replies` prompts. */
function streamingChat(replies: number): Promise<BenchChat> {
  const reply = lorem(CHARS);
  const steps = Array.from({ length: replies }, () => ({ chunks: [{ text: reply, split: 10, delayMs: 1 }], finish: 'stop' }));
  // No automatic compaction: the replies pile up past the scripted model's context window, and a summary would take a scripted reply.
  return benchChat({ name: 'bench-chats', steps } as Scenario, { settings: { compaction: { enabled: false } }, first: { fresh: true } });
}

const settled = (c: PiClient, n: number) => () => !c.state.run.active && c.state.messages.filter((m) => m.role === 'assistant' && m.final).length >= n;

const lastText = (c: PiClient): string =>
  c.state.messages
    .at(-1)
    ?.blocks.map((b) => b?.text ?? '')
    .join('') ?? '';

const rssMb = (): number => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss / 2 ** 20;
};
/** This thread's JS heap in use (after the GC `rssMb` ran): what the host keeps, which RSS does not show once freed pages stay mapped. */
const heapMb = (): number => process.memoryUsage().heapUsed / 2 ** 20;

/** What the visible chat's view was posted: the snapshot it starts from, then each message at its time (ms from the first). */
interface Recording {
  readonly chats: number;
  readonly snapshot: HostToWebview;
  readonly posts: readonly { readonly at: number; readonly msg: HostToWebview }[];
  /** JSON bytes of the live posts, and the characters of the reply they carried. */
  readonly bytes: number;
  readonly chars: number;
}

async function streaming(n: number): Promise<Recording> {
  const chats = await Promise.all(Array.from({ length: n }, () => streamingChat(1)));
  try {
    await Promise.all(chats.map((c) => c.client.ensureSession()));
    const visible = chats[0]!.client;
    const posts: { at: number; msg: HostToWebview }[] = [];
    let snapshot: HostToWebview | undefined;
    let bytes = 0;
    let t0 = 0;
    // The open view's feed, as ChatViewProvider runs it; JSON-encoded, as VS Code does on this thread.
    const feed = new ViewFeed(
      visible,
      (msg) => {
        const json = JSON.stringify(msg);
        if (!snapshot) {
          snapshot = JSON.parse(json) as HostToWebview;
          return;
        }
        const now = performance.now();
        if (!posts.length) t0 = now;
        bytes += json.length;
        posts.push({ at: now - t0, msg: JSON.parse(json) as HostToWebview });
      },
      realScheduler,
    );
    feed.open();
    const started = performance.now();
    const r = await stalls(async () => {
      for (const c of chats) void c.client.send('Write a lot.', 'prompt');
      await Promise.all(chats.map((c) => until(c.client, settled(c.client, 1), 'the reply')));
    });
    feed.dispose();
    const chars = chats.map((c) => lastText(c.client).length);
    console.log(
      `${n} chat(s) streaming ${CHARS.toLocaleString('en-US')} chars each at ~1,000 deltas/s: main-thread stall max ${r.max} ms, p99 ${r.p99} ms (own work at most ${r.own} ms at a time; busy ${r.busy}); ${((performance.now() - started) / 1000).toFixed(1)} s; chars arrived ${chars.join(', ')}; the visible chat's view got ${posts.length} posts, ${(bytes / chars[0]!).toFixed(2)} wire bytes per character`,
    );
    return { chats: n, snapshot: snapshot!, posts, bytes, chars: chars[0]! };
  } finally {
    await Promise.all(chats.map((c) => c.dispose()));
  }
}

interface FrameCost {
  /** Chromium's script + layout + style ms per frame that showed an update. */
  readonly perFrame: number;
  /** The renderer's main-thread CPU ms per such frame (`ThreadTime`): what other processes on the machine lengthen least. */
  readonly cpu: number;
  readonly script: number;
  readonly layout: number;
  readonly style: number;
  readonly frames: number;
  readonly charsPerFrame: number;
}

/** Replays a recording into the real bundle at its recorded times and measures the frames it caused. */
async function replay(browser: Browser, origin: string, rec: Recording): Promise<FrameCost> {
  const page = await openView(browser, origin);
  try {
    await page.evaluate(
      (m) =>
        new Promise<void>((resolve) => {
          const w = globalThis as unknown as {
            dispatchEvent(e: unknown): boolean;
            MessageEvent: new (t: string, i: unknown) => unknown;
            requestAnimationFrame(cb: () => void): number;
          };
          w.dispatchEvent(new w.MessageEvent('message', { data: m }));
          w.requestAnimationFrame(() => w.requestAnimationFrame(() => resolve()));
        }),
      rec.snapshot as unknown as Record<string, unknown>,
    );
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const metrics = async () =>
      Object.fromEntries(((await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] }).metrics.map((m) => [m.name, m.value]));
    const before = await metrics();
    const frames = await page.evaluate(
      (posts: { at: number; msg: Record<string, unknown> }[]) =>
        new Promise<number>((resolve) => {
          const w = globalThis as unknown as {
            dispatchEvent(e: unknown): boolean;
            MessageEvent: new (t: string, i: unknown) => unknown;
            requestAnimationFrame(cb: () => void): number;
            setTimeout(cb: () => void, ms: number): number;
            performance: { now(): number };
          };
          let updated = 0;
          let delivered = false;
          let next = 0;
          let done = false;
          // A frame that shows an update: one with a delivery since the last.
          const tick = () => {
            if (delivered) updated++;
            delivered = false;
            if (done) resolve(updated);
            else w.requestAnimationFrame(tick);
          };
          w.requestAnimationFrame(tick);
          const start = w.performance.now();
          const step = () => {
            const now = w.performance.now() - start;
            for (; next < posts.length && posts[next]!.at <= now; next++) {
              w.dispatchEvent(new w.MessageEvent('message', { data: posts[next]!.msg }));
              delivered = true;
            }
            if (next < posts.length) w.setTimeout(step, Math.max(0, posts[next]!.at - now));
            else w.requestAnimationFrame(() => w.requestAnimationFrame(() => (done = true)));
          };
          step();
        }),
      rec.posts as unknown as { at: number; msg: Record<string, unknown> }[],
    );
    const after = await metrics();
    const per = (name: string) => ((after[name]! - before[name]!) * 1000) / frames;
    const [script, layout, style] = [per('ScriptDuration'), per('LayoutDuration'), per('RecalcStyleDuration')];
    return { perFrame: script + layout + style, cpu: per('ThreadTime'), script, layout, style, frames, charsPerFrame: rec.chars / frames };
  } finally {
    await page.close();
  }
}

/** The visible chat's frame cost with each recording, rounds interleaved; the ratio of the medians. */
async function frameCost(one: Recording, four: Recording): Promise<void> {
  assertBundleFresh();
  const server = await startServer();
  const browser = await launchBrowser();
  const results = new Map<Recording, FrameCost[]>([
    [one, []],
    [four, []],
  ]);
  try {
    for (let round = 0; round < ROUNDS; round++) for (const rec of [one, four]) results.get(rec)!.push(await replay(browser, server.origin, rec));
  } finally {
    await browser.close();
    await server.close();
  }
  const fmt = (rs: FrameCost[]) => {
    const m = (f: (r: FrameCost) => number) => median(rs.map(f));
    return `${m((r) => r.perFrame).toFixed(3)} ms per updating frame, best ${Math.min(...rs.map((r) => r.perFrame)).toFixed(3)} ms; main-thread CPU ${m((r) => r.cpu).toFixed(3)} ms (script ${m((r) => r.script).toFixed(3)}, layout ${m((r) => r.layout).toFixed(3)}, style ${m((r) => r.style).toFixed(3)}; ${m((r) => r.frames)} frames, ${m((r) => r.charsPerFrame).toFixed(0)} chars a frame)`;
  };
  const cost = (rec: Recording, f: (r: FrameCost) => number = (r) => r.perFrame) => median(results.get(rec)!.map(f));
  const best = (rec: Recording) => Math.min(...results.get(rec)!.map((r) => r.perFrame));
  console.log(`visible chat's frame cost, its view's recorded posts replayed into the real bundle in headless Chromium (${ROUNDS} rounds, median):`);
  console.log(`  1 chat streaming:  ${fmt(results.get(one)!)}`);
  console.log(`  4 chats streaming: ${fmt(results.get(four)!)}`);
  console.log(
    `  ratio 4 / 1: ${(cost(four) / cost(one)).toFixed(2)} (best of rounds ${(best(four) / best(one)).toFixed(2)}, main-thread CPU ${(cost(four, (r) => r.cpu) / cost(one, (r) => r.cpu)).toFixed(2)}; target ≤ 1.2); wire bytes per character ${wire(one)} with 1 chat, ${wire(four)} with 4`,
  );
}

/** Bytes per character, and what each post adds to its text: a slower stream (more chats) is cut into more posts. */
const wire = (rec: Recording): string =>
  `${(rec.bytes / rec.chars).toFixed(2)} (${rec.posts.length} posts, ${((rec.bytes - rec.chars) / rec.posts.length).toFixed(0)} bytes each besides the text)`;

/** A chat with a `SESSION_MESSAGES`-message session loaded: resumed, and every row paged into the host store. */
async function chatWithSession(): Promise<BenchChat> {
  const chat = await benchChat({ name: 'bench-chats-idle', steps: [{ chunks: [{ text: 'unused' }], finish: 'stop' }] } as Scenario, { first: { fresh: true } });
  await chat.client.ensureSession();
  const file = writeSession(chat.cwd, chat.agentDir, SESSION_MESSAGES);
  await chat.client.call('resumeSession', { file: file });
  await chat.until(() => chat.client.pendingEarlier === 0 && chat.client.state.messages.length >= SESSION_MESSAGES, 'every row in the host store');
  return chat;
}

async function memory(): Promise<void> {
  const base = rssMb();
  const chats: BenchChat[] = [];
  const rss = new Map<number, number>();
  const heap = new Map<number, number>();
  const line: string[] = [`before any chat ${base.toFixed(0)} MB (host heap ${heapMb().toFixed(0)} MB)`];
  try {
    for (const n of [1, 4, 8]) {
      while (chats.length < n) chats.push(await chatWithSession());
      await new Promise((r) => setTimeout(r, 1000));
      rss.set(n, rssMb());
      heap.set(n, heapMb());
      line.push(`${n} idle chat(s) ${rss.get(n)!.toFixed(0)} MB (host heap ${heap.get(n)!.toFixed(0)} MB)`);
    }
    await Promise.all(chats.map((c) => c.client.stopIdle()));
    await new Promise((r) => setTimeout(r, 1000));
    const stopped = rssMb();
    line.push(`after their idle workers stop ${stopped.toFixed(0)} MB (host heap ${heapMb().toFixed(0)} MB)`);
    const t0 = performance.now();
    await chats[0]!.client.ensureSession();
    line.push(`one resumes in ${(performance.now() - t0).toFixed(0)} ms`);
    const perChat = (rss.get(8)! - rss.get(1)!) / 7;
    console.log(
      `memory (process RSS: extension host thread + workers; each chat with a ${SESSION_MESSAGES.toLocaleString('en-US')}-message session loaded): ${line.join('; ')}; ${perChat.toFixed(0)} MB per extra chat (1 -> 8), ${((rss.get(4)! - rss.get(1)!) / 3).toFixed(0)} MB (1 -> 4), ${((stopped - rss.get(1)!) / 7).toFixed(1)} MB per extra chat once its worker stopped (pages the allocator keeps; the host heap grows ${((heap.get(8)! - heap.get(1)!) / 7).toFixed(1)} MB per extra chat)`,
    );
  } finally {
    await Promise.all(chats.map((c) => c.dispose()));
  }
}

async function cancelOneOfFour(reps: number): Promise<void> {
  const chats = await Promise.all(Array.from({ length: 4 }, () => streamingChat(reps)));
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
      if (!others.every((c) => lastText(c).length >= CHARS)) {
        short++;
        for (const c of others) {
          const last = c.state.messages.at(-1);
          console.log(`  short: last row ${last?.role} ${lastText(c).length} chars: ${JSON.stringify(lastText(c).slice(0, 80))}`);
        }
      }
    }
    console.log(
      `cancel one chat while 3 others stream: cancel -> settled p50 ${quantile(latencies, 0.5).toFixed(0)} ms, p95 ${quantile(latencies, 0.95).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms (${latencies.length} runs; ${missed} replies ended before the cancel); the other chats' replies arrived whole in ${reps - short} of ${reps} runs`,
    );
  } finally {
    await Promise.all(chats.map((c) => c.dispose()));
  }
}

console.log('chats bench: PiClients on this thread, each with its Pi in dist/worker.js, scripted models in child processes');
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
if (!only || only === 'streaming') {
  const one = await streaming(1);
  const four = await streaming(4);
  await frameCost(one, four);
}
if (!only || only === 'memory') await memory();
if (!only || only === 'cancel') await cancelOneOfFour(numberArg('cancels', 5));
process.exit(0);
