/**
 * `npm run demo`: a real VS Code (code-server) in your browser with the packaged panel installed and a
 * sample workspace. Without a Pi configuration it uses the scripted demo model (SPEC §6) playing
 * test/fixtures/scenarios/demo.json; with one (PI_CODING_AGENT_DIR, or ~/.pi/agent with a key or
 * models.json) it uses yours. Prints the URL and stops everything on Ctrl+C.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadScenario } from '../test/scriptedModel/scenario.ts';
import type { Scenario } from '../test/scriptedModel/scenario.ts';
import { startScriptedModel } from '../test/scriptedModel/server.ts';
import { makePiAgentDir } from '../test/support/piConfig.ts';
import { packagedVsix } from '../test/e2e/run.ts';
import { startCodeServer } from '../test/workbench/codeServer.ts';
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

async function main(): Promise<void> {
  ensureCodeServer();
  const vsix = packagedVsix(true);
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-demo-ws-'));
  fs.cpSync(path.join(REPO_ROOT, 'test', 'fixtures', 'workspaces', 'demo'), workspace, { recursive: true });

  const stops: (() => Promise<void>)[] = [];
  let agentDir = realAgentDir();
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
  };
  process.once('SIGINT', () => void stopAll().then(() => process.exit(0)));
  process.once('SIGTERM', () => void stopAll().then(() => process.exit(0)));

  console.log('');
  console.log(`Pi Agent Panel demo is running with ${label}.`);
  console.log(`Open ${server.workbenchUrl(workspace)} in a browser on this machine,`);
  console.log('click "Pi" in the activity bar and send a message. Press Ctrl+C to stop.');
  await new Promise(() => undefined);
}

main().catch((err: unknown) => {
  console.error(`demo failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
