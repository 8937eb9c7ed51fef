/**
 * Screenshots of the panel in the real workbench, in a dark and a light theme: thinking, a finished and a
 * running tool card, markdown with code, and the queue strip; and, in the dark theme, a reply with a drawn
 * diagram and math (docs/visuals-diagram.png). Writes test-results/screenshots/*.png.
 *
 *   node test/e2e/screenshots.ts [--vsix FILE]
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadScenario } from '../scriptedModel/scenario.ts';
import { REPO_ROOT } from '../workbench/install.ts';
import { packagedVsix, runScenario, startHarness } from './run.ts';

const { values } = parseArgs({ options: { vsix: { type: 'string' } } });
const vsix = values.vsix ? path.resolve(values.vsix) : packagedVsix(true);
const scenario = await loadScenario(path.join(REPO_ROOT, 'test', 'fixtures', 'scenarios', 'screenshot-tour.json'));
const outRoot = path.join(REPO_ROOT, 'test-results', 'screenshots');
const harness = await startHarness(vsix);
let failed = 0;
try {
  for (const [name, theme] of [
    ['dark', 'Default Dark Modern'],
    ['light', 'Default Light Modern'],
  ] as const) {
    const out = path.join(outRoot, name);
    const result = await runScenario(harness, {
      scenario,
      prompt: 'How does greet work?',
      out,
      vscodeSettings: { 'workbench.colorTheme': theme },
      timeoutMs: 60_000,
      actions: [
        { waitFor: '[data-role="assistant"][data-stop-reason="stop"]' },
        { do: 'send', text: 'Now check the files and run the tests.' },
        { waitFor: '[data-tool-call-id="call_ls"][data-status="done"]' },
        { waitFor: '[data-tool-call-id="call_tests"][data-status="running"]' },
        { do: 'followUp', text: 'Then summarise the results.' },
        { waitFor: '[data-queue="followUp"]' },
        { sleepMs: 700 },
        { do: 'screenshot', name: `panel-${name}` },
        { do: 'cancel' },
      ],
    });
    const shot = path.join(out, `panel-${name}.png`);
    console.log(`${name}: ${result.ok ? 'ok' : `problems: ${result.errors.join('; ')}`} -> ${fs.existsSync(shot) ? shot : 'no screenshot'}`);
    if (!result.ok) failed++;
  }
  // A drawn diagram and math in the dark theme, for the README.
  const visuals = path.join(outRoot, 'visuals');
  const drawn = await runScenario(harness, {
    scenario: await loadScenario(path.join(REPO_ROOT, 'test', 'fixtures', 'scenarios', 'screenshot-visuals.json')),
    prompt: 'How does a request flow, and what does it cost?',
    out: visuals,
    vscodeSettings: { 'workbench.colorTheme': 'Default Dark Modern' },
    timeoutMs: 60_000,
    actions: [
      { waitFor: '[data-role="assistant"][data-stop-reason="stop"]' },
      { waitFor: '[data-diagram="mermaid"] svg' },
      { waitFor: '[data-math="block"] math' },
      { do: 'screenshot', name: 'visuals-diagram' },
    ],
  });
  console.log(`visuals: ${drawn.ok ? 'ok' : `problems: ${drawn.errors.join('; ')}`} -> ${path.join(visuals, 'visuals-diagram.png')}`);
  if (!drawn.ok) failed++;
} finally {
  await harness.close();
}
process.exit(failed ? 1 : 0);
