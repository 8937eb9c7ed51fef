/**
 * Hide the Pi view and show it again, in the real workbench (a report, not a test): code-server with the packaged
 * `.vsix`, one finished reply of ~30 paragraphs, then rounds of hiding the view (another sidebar container) and
 * showing it again (its activity-bar icon). The hidden webview is not kept alive: each show starts a new page.
 *
 * Each round also shows a BASELINE, interleaved with the Pi view: a minimal extension's webview view with one static
 * line (bench/baselineView.ts), shown with the same clicks. What the baseline takes is VS Code's own cost of
 * creating a webview view; the Pi view's time beyond it is the panel's share.
 *
 * Printed, per round and as medians: the moments after the click (bench/hideShowMarks.ts, clocks in the page's
 * frames): the webview's iframe created, VS Code's content frame created, the view's HTML written, its
 * DOMContentLoaded, the last line painted in the frame, the frame's load event, the frame made visible, the last line
 * on screen (painted and visible), the view's script run, the live transcript holding it; and Playwright's own view of "on screen".
 *
 * Usage: node bench/hideShowBench.ts [--rounds 7] [--vsix FILE] [--keep-vsix]
 */

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import type { Page } from 'playwright-core';
import { packagedVsix } from '../test/e2e/run.ts';
import { startScriptedModel } from '../test/scriptedModel/server.ts';
import { makePiAgentDir } from '../test/support/piConfig.ts';
import { EXTENSION_ID, launchBrowser, Workbench } from '../test/workbench/browser.ts';
import { startCodeServer } from '../test/workbench/codeServer.ts';
import { BASELINE_ID, BASELINE_LINE, BASELINE_TITLE, baselineViewVsix } from './baselineView.ts';
import { marksScript, type Mark, type MarkName } from './hideShowMarks.ts';
import { quantile } from './stats.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    vsix: { type: 'string' },
    'keep-vsix': { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(values.rounds);
const LAST_LINE = 'That is the whole tour of the server.';
const PARAGRAPH =
  'The server starts in `start()`, which **binds the port** and hands requests to `handler`.\n\n' +
  '- parse the request\n- look up the route\n- call it, logging errors\n\n' +
  '```ts\nexport function start(port: number): Server {\n  const server = createServer(handler);\n  server.listen(port);\n  return server;\n}\n```\n\n';

/** The moments reported, in the order they usually come, with their labels. */
const STEPS: readonly (readonly [MarkName | 'onScreen', string])[] = [
  ['iframe', 'iframe.webview created'],
  ['contentFrame', 'content frame created (HTML arrived)'],
  ['html', 'HTML written into the frame'],
  ['dcl', 'DOMContentLoaded'],
  ['textPaint', 'last line painted in the frame'],
  ['load', 'load event'],
  ['shownPaint', 'frame made visible'],
  ['onScreen', 'LAST LINE ON SCREEN'],
  ['script', 'main.js has run (ready sent)'],
  ['livePaint', 'live transcript holds it'],
];

type Times = Partial<Record<MarkName | 'onScreen', number>>;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Every frame's marks since they were last cleared, the first of each name, as ms after the click. */
async function collect(page: Page): Promise<Times> {
  const all: Mark[] = [];
  for (const frame of page.frames()) {
    const marks = await frame.evaluate(() => (globalThis as unknown as { __hsMarks?: Mark[] }).__hsMarks ?? []).catch((): Mark[] => []);
    all.push(...marks);
  }
  const first = new Map<MarkName, number>();
  for (const m of all) if (!first.has(m.name) || m.t < first.get(m.name)!) first.set(m.name, m.t);
  const click = first.get('click');
  if (click === undefined) throw new Error('no click mark: the init script did not run in the workbench');
  const times: Times = {};
  for (const [name, t] of first) times[name] = t - click;
  // On screen: painted in its frame, and that frame visible (VS Code shows a new frame once it has loaded).
  if (times.textPaint !== undefined && times.shownPaint !== undefined) times.onScreen = Math.max(times.textPaint, times.shownPaint);
  return times;
}

async function clearMarks(page: Page): Promise<void> {
  for (const frame of page.frames()) {
    await frame.evaluate(() => void (globalThis as unknown as { __hsMarks?: unknown[] }).__hsMarks?.splice(0)).catch(() => undefined);
  }
}

function fmt(x: number | undefined): string {
  return x === undefined || Number.isNaN(x) ? '   -' : x.toFixed(0).padStart(4);
}

async function main(): Promise<void> {
  const vsix = values.vsix ?? packagedVsix(!values['keep-vsix']);
  const model = await startScriptedModel({
    scenario: { name: 'hide-show', steps: [{ chunks: [{ text: `${PARAGRAPH.repeat(30)}${LAST_LINE}`, split: 200 }], finish: 'stop' }] },
  });
  const dir = mkdtempSync(join(tmpdir(), 'pi-hide-show-'));
  const agentDir = await makePiAgentDir({ baseUrl: model.url, settings: { defaultThinkingLevel: 'off' } });
  const workspace = join(dir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const server = await startCodeServer({ vsix: [vsix, baselineViewVsix()], workspace, settings: { 'piPanel.agentDir': agentDir } });
  const browser = await launchBrowser();
  await browser.context.addInitScript({ content: marksScript([LAST_LINE, BASELINE_LINE]) });
  const ours: Times[] = [];
  const base: Times[] = [];
  const seen: number[] = [];
  try {
    const page = await browser.context.newPage();
    const wb = new Workbench(page);
    await wb.open(server.workbenchUrl(workspace));
    await wb.openPiView();
    await wb.waitForWebview();
    await wb.webview().locator('[data-testid="composer"]').fill('Explain the server.');
    await wb.webview().locator('[data-testid="send"]').click();
    await wb.webview().locator('[data-testid="transcript"] [data-stop-reason="stop"]').waitFor({ state: 'attached', timeout: 90_000 });
    // The view saves its picture of the rows on screen about a second after it last drew.
    await sleep(2500);
    const baseIcon = page.locator(`.activitybar a.action-label[aria-label="${BASELINE_TITLE}"]`).first();
    const baseFrame = () => wb.webviewOf(BASELINE_ID);
    const hide = async (extensionId: string): Promise<void> => {
      await page.locator('.activitybar a.action-label[aria-label^="Explorer"]').first().click();
      await page
        .locator(`iframe.webview[src*="extensionId=${extensionId}"]`)
        .first()
        .waitFor({ state: 'detached', timeout: 10_000 })
        .catch(() => undefined);
      await sleep(1000);
      await clearMarks(page);
    };
    const showOurs = async (): Promise<Times> => {
      await hide(EXTENSION_ID);
      const t0 = performance.now();
      await wb.openPiView();
      await wb.webview().getByText(LAST_LINE).first().waitFor({ state: 'visible', timeout: 30_000 });
      seen.push(performance.now() - t0);
      await wb.webview().locator('[data-testid="transcript"]').getByText(LAST_LINE).first().waitFor({ state: 'visible', timeout: 30_000 });
      // The last marks are taken in the frame after the live rows: let it come.
      await sleep(500);
      return collect(page);
    };
    const showBaseline = async (): Promise<Times> => {
      await hide(BASELINE_ID);
      await baseIcon.click();
      await baseFrame().getByText(BASELINE_LINE).waitFor({ state: 'visible', timeout: 30_000 });
      await sleep(500);
      return collect(page);
    };
    // A first show of each, not counted: the baseline's first view, and both pages' files, come cold.
    await showBaseline();
    await showOurs();
    seen.length = 0;
    for (let i = 0; i < ROUNDS; i++) {
      // Interleaved, in turns first, so a slow stretch of the machine weighs on both alike.
      const pair = i % 2 ? [await showBaseline(), await showOurs()] : [await showOurs(), await showBaseline()];
      const [o, b] = i % 2 ? [pair[1]!, pair[0]!] : [pair[0]!, pair[1]!];
      ours.push(o);
      base.push(b);
      console.log(
        `round ${i + 1}: Pi view on screen ${fmt(o.onScreen)} ms (frame ${fmt(o.textPaint)}, visible ${fmt(o.shownPaint)}), live ${fmt(o.livePaint)} ms; baseline on screen ${fmt(b.onScreen)} ms`,
      );
      await sleep(1500);
    }
  } finally {
    await browser.close();
    await server.stop();
    await model.close();
    rmSync(agentDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
  const med = (xs: readonly Times[], k: MarkName | 'onScreen'): number =>
    quantile(
      xs.map((x) => x[k]).filter((v): v is number => v !== undefined),
      0.5,
    );
  console.log(`\nhide and show the view, median of ${ROUNDS} rounds, ms after the click on the icon:`);
  console.log(`${''.padEnd(42)}  Pi view  baseline  Pi - baseline`);
  for (const [k, label] of STEPS) {
    const o = med(ours, k);
    const b = med(base, k);
    console.log(`${label.padEnd(42)}  ${fmt(o)}     ${fmt(b)}       ${fmt(o - b)}`);
  }
  const o = med(ours, 'onScreen');
  const b = med(base, 'onScreen');
  console.log(
    `\nlast reply on screen: Pi view ${fmt(o)} ms, baseline (one static line) ${fmt(b)} ms, ratio ${(o / b).toFixed(2)}; the panel's share ${fmt(o - b)} ms`,
  );
  console.log(`as Playwright sees it (polls, and counts a frame VS Code still hides): ${fmt(quantile(seen, 0.5))} ms`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
