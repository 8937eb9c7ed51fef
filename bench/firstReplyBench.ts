/**
 * The extension host's main thread around the first reply after the view opens, in the real workbench (a
 * report, not a test): code-server with the packaged `.vsix` started with `PI_PANEL_HEARTBEAT_FILE`, so the
 * extension runs a 10 ms heartbeat on its host thread (src/extension/heartbeat.ts) and writes each tick's gap
 * to a file. Each round is a fresh code-server: the view opens, sits idle, then two prompts each stream a
 * markdown reply (~6 s, ~170 deltas/s). Printed per round and as a median: the longest gap and the 99th
 * percentile in each window: idle before the first Send, Send -> first delta (the cold start), the first 2 s
 * of the first stream, the rest of it, and the second stream. `--profile` also CPU-profiles the host thread
 * and lists what ran in the longest gaps of the first stream's first 2 s.
 *
 * Usage: node bench/firstReplyBench.ts [--rounds 3] [--profile] [--vsix FILE] [--keep-vsix]
 */

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import type { HeartbeatLine } from '../src/extension/heartbeat.ts';
import { packagedVsix } from '../test/e2e/run.ts';
import type { Scenario } from '../test/scriptedModel/scenario.ts';
import { startScriptedModel } from '../test/scriptedModel/server.ts';
import { makePiAgentDir } from '../test/support/piConfig.ts';
import { launchBrowser, Workbench } from '../test/workbench/browser.ts';
import { startCodeServer } from '../test/workbench/codeServer.ts';
import { quantile } from './stats.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    profile: { type: 'boolean', default: false },
    vsix: { type: 'string' },
    'keep-vsix': { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(values.rounds);
const IDLE_MS = 5000;
const FIRST_MS = 2000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const now = (): number => performance.timeOrigin + performance.now();

const PARAGRAPH =
  'The server starts in `start()`, which **binds the port** and hands requests to `handler`.\n\n' +
  '- parse the request\n- look up the route\n- call it, logging errors\n\n' +
  '```ts\nexport function start(port: number): Server {\n  const server = createServer(handler);\n  server.listen(port);\n  return server;\n}\n```\n\n';

/** One reply: markdown with lists and code, 4 characters a delta, 6 ms apart. */
function reply(tag: string): Scenario['steps'][number] {
  return { chunks: [{ text: `${tag} ${PARAGRAPH.repeat(16)}Done.`, split: 4, delayMs: 6 }], finish: 'stop' };
}

interface Window {
  readonly name: string;
  readonly from: number;
  readonly to: number;
}

interface Stats {
  readonly max: number;
  readonly p99: number;
  readonly ticks: number;
}

function gapsIn(lines: readonly HeartbeatLine[], w: Window): Stats {
  const gaps = lines.filter((l): l is { t: number; gap: number } => 'gap' in l && l.t >= w.from && l.t <= w.to).map((l) => l.gap);
  return { max: gaps.length ? Math.max(...gaps) : NaN, p99: quantile(gaps, 0.99), ticks: gaps.length };
}

/** Self time per function (ms) in the profile's samples that fall inside `[from, to]` (wall clock), top `n`. */
function topInProfile(file: string, from: number, to: number, startWall: number, n = 12): string[] {
  type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[]; startTime: number; samples: number[]; timeDeltas: number[] };
  const byId = new Map(profile.nodes.map((nd) => [nd.id, nd]));
  const parent = new Map<number, number>();
  for (const nd of profile.nodes) for (const c of nd.children ?? []) parent.set(c, nd.id);
  // The profile's clock is the host's monotonic one: the first sample is placed at the start mark's wall time.
  const self = new Map<string, number>();
  const stacks = new Map<string, number>();
  let t = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i]! / 1000;
    t += dt;
    const wall = startWall + t;
    if (wall < from || wall > to) continue;
    const nd = byId.get(profile.samples[i]!)!;
    const where = (x: Node) => `${x.callFrame.functionName || '(anonymous)'} ${x.callFrame.url.split('/').slice(-2).join('/')}:${x.callFrame.lineNumber + 1}`;
    self.set(where(nd), (self.get(where(nd)) ?? 0) + dt);
    // The nearest frames from an extension (ours or another) or VS Code, to say whose work it is.
    const chain: string[] = [];
    for (let id: number | undefined = nd.id; id !== undefined && chain.length < 6; id = parent.get(id)) {
      const x = byId.get(id)!;
      if (x.callFrame.url) chain.push(where(x));
    }
    const key = chain.slice(0, 6).join(' < ');
    stacks.set(key, (stacks.get(key) ?? 0) + dt);
  }
  const top = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `${v.toFixed(1).padStart(7)} ms  ${k}`);
  return ['  self time:', ...top(self), '  by stack (innermost 6 frames with a URL):', ...top(stacks)];
}

/**
 * CPU time (ms) of the host thread's samples in `[from, to]`: all of it but idle, and the part whose stack holds
 * the panel's own code (`dist/extension.js`, with what it calls into VS Code and Node).
 */
function busyInProfile(file: string, from: number, to: number, startWall: number): { busy: number; panel: number } {
  type Node = { id: number; callFrame: { functionName: string; url: string }; children?: number[] };
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(profile.nodes.map((nd) => [nd.id, nd]));
  const parent = new Map<number, number>();
  for (const nd of profile.nodes) for (const c of nd.children ?? []) parent.set(c, nd.id);
  let t = 0;
  let busy = 0;
  let panel = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i]! / 1000;
    t += dt;
    if (startWall + t < from || startWall + t > to) continue;
    const nd = byId.get(profile.samples[i]!)!;
    if (nd.callFrame.functionName === '(idle)') continue;
    busy += dt;
    for (let id: number | undefined = nd.id; id !== undefined; id = parent.get(id))
      if (byId.get(id)!.callFrame.url.endsWith('dist/extension.js')) {
        panel += dt;
        break;
      }
  }
  return { busy, panel };
}

interface RoundResult {
  readonly stats: Record<string, Stats>;
}

async function round(vsix: string, n: number): Promise<RoundResult> {
  const model = await startScriptedModel({ scenario: { name: 'first-reply', steps: [reply('First.'), reply('Second.')] } });
  const deltas: number[][] = [[], []];
  let step = -1;
  model.onDelta = (piece) => {
    // Deltas are 4 characters: the first of each reply starts it.
    if (piece.startsWith('Firs')) step = 0;
    else if (piece.startsWith('Seco')) step = 1;
    if (step >= 0) deltas[step]!.push(now());
  };
  const dir = mkdtempSync(join(tmpdir(), 'pi-first-reply-'));
  const file = join(dir, 'heartbeat.jsonl');
  const agentDir = await makePiAgentDir({ baseUrl: model.url, settings: { defaultThinkingLevel: 'off' } });
  const workspace = join(dir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const server = await startCodeServer({
    vsix: [vsix],
    workspace,
    env: { PI_PANEL_HEARTBEAT_FILE: file, ...(values.profile ? { PI_PANEL_HEARTBEAT_PROFILE: '1' } : {}) },
    settings: { 'piPanel.agentDir': agentDir },
  });
  const browser = await launchBrowser();
  try {
    const page = await browser.context.newPage();
    const wb = new Workbench(page);
    await wb.open(server.workbenchUrl(workspace));
    await wb.openPiView();
    await wb.waitForWebview();
    const runState = () => wb.webview().locator('body').getAttribute('data-run-state');
    const send = async (text: string, index: number) => {
      const sent = now();
      await wb.webview().locator('[data-testid="composer"]').fill(text);
      await wb.webview().locator('[data-testid="send"]').click();
      for (const deadline = Date.now() + 90_000; !(deltas[index]!.length && (await runState()) === 'idle'); await sleep(200))
        if (Date.now() > deadline) throw new Error(`reply ${index + 1} did not finish`);
      return sent;
    };
    const idleFrom = now();
    await sleep(IDLE_MS);
    const idleTo = now();
    const sent = await send('Explain the server.', 0);
    await sleep(1000);
    await send('And again.', 1);
    await sleep(1000);
    const [first, second] = deltas as [number[], number[]];
    const windows: Window[] = [
      { name: 'idle, view open', from: idleFrom, to: idleTo },
      { name: 'Send -> first delta', from: sent, to: first[0]! },
      { name: 'first stream, first 2 s', from: first[0]!, to: first[0]! + FIRST_MS },
      { name: 'first stream, after 2 s', from: first[0]! + FIRST_MS, to: first.at(-1)! },
      { name: 'second stream', from: second[0]!, to: second.at(-1)! },
    ];
    let profile: string | undefined;
    if (values.profile) {
      writeFileSync(`${file}.stop`, '');
      for (const deadline = Date.now() + 30_000; !existsSync(`${file}.cpuprofile`) && Date.now() < deadline; ) await sleep(250);
      profile = `${file}.cpuprofile`;
    }
    const lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as HeartbeatLine);
    const stats: Record<string, Stats> = Object.fromEntries(windows.map((w) => [w.name, gapsIn(lines, w)]));
    console.log(
      `round ${n + 1}: ${windows.map((w) => `${w.name}: max ${stats[w.name]!.max.toFixed(0)} ms, p99 ${stats[w.name]!.p99.toFixed(0)} ms (${stats[w.name]!.ticks} ticks)`).join('; ')}`,
    );
    for (const l of lines) if ('mark' in l) console.log(`  mark ${l.mark} at ${(l.t - sent).toFixed(0)} ms from Send`);
    if (profile && existsSync(profile)) {
      const startWall = lines.find((l) => 'mark' in l && l.mark === 'heartbeat started')!.t;
      const longest = lines
        .filter((l): l is { t: number; gap: number } => 'gap' in l && l.t >= sent && l.t <= first[0]! + FIRST_MS)
        .sort((a, b) => b.gap - a.gap)
        .slice(0, 5);
      console.log(
        `  longest gaps from Send to 2 s into the first stream: ${longest.map((g) => `${g.gap.toFixed(0)} ms ending at ${(g.t - sent).toFixed(0)}`).join(', ')}`,
      );
      for (const g of longest.slice(0, 3)) {
        console.log(`  in the ${g.gap.toFixed(0)} ms gap ending ${(g.t - sent).toFixed(0)} ms after Send:`);
        for (const line of topInProfile(profile, g.t - g.gap, g.t, startWall, 6)) console.log(`  ${line}`);
      }
      for (const w of windows) {
        const b = busyInProfile(profile, w.from, w.to, startWall);
        const own = { max: b.panel, p99: b.busy, ticks: 0 };
        stats[`${w.name}: CPU ms, panel's / all`] = own;
        console.log(`  ${w.name}: host thread busy ${b.busy.toFixed(0)} ms of ${(w.to - w.from).toFixed(0)}, the panel's code ${b.panel.toFixed(0)} ms`);
      }
      console.log(`  first stream's first 2 s, all of it:`);
      for (const line of topInProfile(profile, first[0]!, first[0]! + FIRST_MS, startWall)) console.log(`  ${line}`);
    }
    return { stats };
  } finally {
    await browser.close();
    await server.stop();
    await model.close();
    rmSync(agentDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const vsix = values.vsix ?? packagedVsix(!values['keep-vsix']);
  const results: RoundResult[] = [];
  for (let i = 0; i < ROUNDS; i++) results.push(await round(vsix, i));
  console.log(
    `\nextension host main thread, 10 ms heartbeat in code-server, median of ${ROUNDS} round(s): longest gap / p99 gap (ms)` +
      (values.profile ? `; with --profile, "CPU ms" rows: max = the panel's code, p99 = the thread's busy time` : ''),
  );
  for (const name of Object.keys(results[0]!.stats)) {
    const med = (f: (s: Stats) => number) =>
      quantile(
        results.map((r) => f(r.stats[name]!)),
        0.5,
      ).toFixed(0);
    console.log(
      `  ${name.padEnd(26)} max ${med((s) => s.max).padStart(4)}  p99 ${med((s) => s.p99).padStart(4)}   (rounds: ${results.map((r) => r.stats[name]!.max.toFixed(0)).join(', ')})`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
