/**
 * Hide the Pi view and show it again, in the real workbench (a report, not a test): code-server with the packaged
 * `.vsix`, one finished reply of ~30 paragraphs, then rounds of hiding the view (another sidebar container) and
 * showing it again (its activity-bar icon). The hidden webview is not kept alive: each show starts a new page. Printed:
 * per round and as a median, the time from the click on the icon to the last reply's last line being visible in the
 * view (a saved picture counts: it is what the user sees), and to the live transcript holding it.
 *
 * Usage: node bench/hideShowBench.ts [--rounds 7] [--vsix FILE] [--keep-vsix]
 */

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { packagedVsix } from '../test/e2e/run.ts';
import { startScriptedModel } from '../test/scriptedModel/server.ts';
import { makePiAgentDir } from '../test/support/piConfig.ts';
import { launchBrowser, Workbench } from '../test/workbench/browser.ts';
import { startCodeServer } from '../test/workbench/codeServer.ts';
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

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const vsix = values.vsix ?? packagedVsix(!values['keep-vsix']);
  const model = await startScriptedModel({
    scenario: { name: 'hide-show', steps: [{ chunks: [{ text: `${PARAGRAPH.repeat(30)}${LAST_LINE}`, split: 200 }], finish: 'stop' }] },
  });
  const dir = mkdtempSync(join(tmpdir(), 'pi-hide-show-'));
  const agentDir = await makePiAgentDir({ baseUrl: model.url, settings: { defaultThinkingLevel: 'off' } });
  const workspace = join(dir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const server = await startCodeServer({ vsix: [vsix], workspace, settings: { 'piPanel.agentDir': agentDir } });
  const browser = await launchBrowser();
  const shown: number[] = [];
  const live: number[] = [];
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
    for (let i = 0; i < ROUNDS; i++) {
      await wb.hidePiView();
      await sleep(1000);
      const t0 = performance.now();
      await wb.openPiView();
      await wb.webview().getByText(LAST_LINE).first().waitFor({ state: 'visible', timeout: 30_000 });
      const t1 = performance.now();
      await wb.webview().locator('[data-testid="transcript"]').getByText(LAST_LINE).first().waitFor({ state: 'visible', timeout: 30_000 });
      const t2 = performance.now();
      shown.push(t1 - t0);
      live.push(t2 - t0);
      console.log(`round ${i + 1}: last reply on screen ${(t1 - t0).toFixed(0)} ms, live ${(t2 - t0).toFixed(0)} ms`);
      await sleep(2500);
    }
  } finally {
    await browser.close();
    await server.stop();
    await model.close();
    rmSync(agentDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `\nhide and show the view, median of ${ROUNDS}: last reply on screen ${quantile(shown, 0.5).toFixed(0)} ms, live transcript ${quantile(live, 0.5).toFixed(0)} ms`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
