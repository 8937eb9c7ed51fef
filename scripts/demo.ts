/**
 * `npm run demo`: a real VS Code (code-server) in your browser with the packaged panel installed and a
 * sample workspace. Without a Pi configuration it uses the scripted model (test/scriptedModel, an OpenAI-compatible server) playing
 * test/fixtures/scenarios/demo.json; with one (PI_CODING_AGENT_DIR, or ~/.pi/agent with a key or
 * models.json) it uses yours. Prints the URL and stops everything on Ctrl+C.
 *
 * `--smoke` (what `npm test` runs as `test:demo`): the same start-up with the scripted demo model always,
 * then headless chromium opens the Pi view, sends a prompt, waits until the demo's reply is in the panel
 * and the run is idle, stops everything and exits 0; non-zero with the reason otherwise.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadScenario } from '../test/scriptedModel/scenario.ts';
import type { Scenario } from '../test/scriptedModel/scenario.ts';
import { startScriptedModel } from '../test/scriptedModel/server.ts';
import { makePiAgentDir } from '../test/support/piConfig.ts';
import { packagedVsix } from '../test/e2e/run.ts';
import { launchBrowser, Workbench } from '../test/workbench/browser.ts';
import { startCodeServer } from '../test/workbench/codeServer.ts';
import type { CodeServer } from '../test/workbench/codeServer.ts';
import { ensureCodeServer, REPO_ROOT } from '../test/workbench/install.ts';

const DEMO_MODEL = { id: 'scripted-demo-model', name: 'Scripted demo model (not a real AI)' };

/** The user's own Pi configuration, if they have one with something to talk to. */
function realAgentDir(): string | undefined {
  const dir = process.env.PI_CODING_AGENT_DIR || path.join(os.homedir(), '.pi', 'agent');
  const hasFile = (f: string) => {
    try {
      return fs.statSync(path.join(dir, f)).size > 2;
    } catch {
      return false;
    }
  };
  if (process.env.PI_CODING_AGENT_DIR && fs.existsSync(dir)) return dir;
  return hasFile('auth.json') || hasFile('models.json') ? dir : undefined;
}

/** The demo scenario, repeated so the demo answers many prompts before it runs out. */
async function loopedDemo(): Promise<Scenario> {
  const demo = await loadScenario(path.join(REPO_ROOT, 'test', 'fixtures', 'scenarios', 'demo.json'));
  return { ...demo, steps: Array.from({ length: 25 }, () => demo.steps).flat() };
}

/** The demo reply's last words: on screen only once the whole tour streamed. */
const DEMO_END = "That's the tour.";
const SMOKE_TIMEOUT_MS = 180_000;

/** Drives the running demo as a user would and throws with the reason if the reply never shows. */
async function smoke(server: CodeServer, workspace: string): Promise<void> {
  const browser = await launchBrowser();
  try {
    const wb = new Workbench(await browser.context.newPage());
    await wb.open(server.workbenchUrl(workspace), SMOKE_TIMEOUT_MS / 2);
    await wb.openPiView();
    await wb.waitForWebview();
    const view = wb.webview();
    await view.locator('[data-testid="composer"]').fill('Give me the tour');
    await view.locator('[data-testid="send"]').click();
    // Only this run can make these true: the reply's last words, then its final row and an idle panel.
    await view
      .locator('[data-testid="transcript"]', { hasText: DEMO_END })
      .waitFor({ state: 'attached', timeout: SMOKE_TIMEOUT_MS })
      .catch(() => {
        throw new Error(`the demo reply (ending ${JSON.stringify(DEMO_END)}) did not appear in the Pi panel within ${SMOKE_TIMEOUT_MS / 1000} s`);
      });
    await view.locator('[data-role="assistant"][data-stop-reason="stop"]', { hasText: DEMO_END }).waitFor({ state: 'attached', timeout: 30_000 });
    await view.locator('body[data-run-state="idle"]').waitFor({ state: 'attached', timeout: 30_000 });
  } finally {
    await browser.close();
  }
}

async function main(): Promise<void> {
  const smokeTest = process.argv.includes('--smoke');
  ensureCodeServer();
  const vsix = packagedVsix(true);
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-demo-ws-'));
  fs.cpSync(path.join(REPO_ROOT, 'test', 'fixtures', 'workspaces', 'demo'), workspace, { recursive: true });

  const stops: (() => Promise<void>)[] = [];
  // The smoke check must not depend on whoever runs it: always the scripted demo model.
  let agentDir = smokeTest ? undefined : realAgentDir();
  let label: string;
  if (agentDir) {
    label = `your Pi configuration (${agentDir})`;
  } else {
    const model = await startScriptedModel({ scenario: await loopedDemo() });
    stops.push(() => model.close());
    agentDir = await makePiAgentDir({ baseUrl: model.url, retry: { maxRetries: 3, baseDelayMs: 1500 } });
    // Name the model so the panel says plainly that this is a scripted demo.
    const modelsFile = path.join(agentDir, 'models.json');
    const models = fs
      .readFileSync(modelsFile, 'utf8')
      .replace('"scripted-model"', JSON.stringify(DEMO_MODEL.id))
      .replace('"Scripted Model"', JSON.stringify(DEMO_MODEL.name));
    fs.writeFileSync(modelsFile, models);
    const settingsFile = path.join(agentDir, 'settings.json');
    const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(settingsFile, JSON.stringify({ ...settings, defaultModel: DEMO_MODEL.id }, null, 2));
    label = `the ${DEMO_MODEL.name}, playing test/fixtures/scenarios/demo.json`;
  }

  const server = await startCodeServer({ vsix: [vsix], workspace, env: { PI_CODING_AGENT_DIR: agentDir } });
  stops.unshift(() => server.stop());
  const stopAll = async () => {
    for (const stop of stops) await stop().catch(() => undefined);
    fs.rmSync(workspace, { recursive: true, force: true });
  };
  if (smokeTest) {
    const started = Date.now();
    try {
      await smoke(server, workspace);
    } finally {
      await stopAll();
    }
    console.log(`demo smoke: the demo reply streamed into the panel and the run is idle (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    return;
  }
  process.once('SIGINT', () => void stopAll().then(() => process.exit(0)));
  process.once('SIGTERM', () => void stopAll().then(() => process.exit(0)));

  console.log('');
  console.log(`Pi Agent Panel demo is running with ${label}.`);
  console.log(`Open ${server.workbenchUrl(workspace)} in a browser on this machine,`);
  console.log('click "Pi" in the activity bar and send a message. Press Ctrl+C to stop.');
  await new Promise(() => undefined);
}

main().then(
  () => {
    // The smoke run is done; the interactive demo never gets here.
    process.exit(0);
  },
  (err: unknown) => {
    console.error(`demo failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
