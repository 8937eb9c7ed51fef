/**
 * Screenshots of the panel in the real workbench, in a dark and a light theme: thinking, a finished and a
 * running tool card, markdown with code, and the queue strip; in the dark theme, a reply with a drawn
 * diagram and math (docs/visuals-diagram.png); and the README's top screenshot (docs/screenshot.png): grouped
 * reads and searches, an edit with its diff open beside the panel, a reply with a diagram and the Changes row.
 * Writes test-results/screenshots/<part>/*.png.
 *
 *   node test/e2e/screenshots.ts [--vsix FILE] [--only themes|visuals|hero[,…]]
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadScenario } from '../scriptedModel/scenario.ts';
import { cacheDir, REPO_ROOT } from '../workbench/install.ts';
import { packagedVsix, runScenario, startHarness } from './run.ts';
import type { RunResult } from './run.ts';

const PARTS = ['themes', 'visuals', 'hero'] as const;
type Part = (typeof PARTS)[number];

const { values } = parseArgs({ options: { vsix: { type: 'string' }, only: { type: 'string' } } });
const only = values.only?.split(',').map((p) => p.trim()) ?? [...PARTS];
const unknown = only.filter((p) => !(PARTS as readonly string[]).includes(p));
if (unknown.length) {
  console.error(`--only takes ${PARTS.join(', ')} (comma-separated); not ${unknown.join(', ')}`);
  process.exit(2);
}
const wanted = (part: Part): boolean => only.includes(part);

/**
 * The folder of the ripgrep that code-server ships, for PATH: Pi's `grep` tool runs `rg` and, without one, tries
 * to download it, which fails offline.
 */
function bundledRipgrepDir(): string | undefined {
  const dir = path.join(
    cacheDir(),
    'node_modules',
    'code-server',
    'lib',
    'vscode',
    'node_modules',
    '@vscode',
    'ripgrep-universal',
    'bin',
    `${process.platform}-${process.arch}`,
  );
  return fs.existsSync(path.join(dir, 'rg')) ? dir : undefined;
}

const vsix = values.vsix ? path.resolve(values.vsix) : packagedVsix(true);
const scenarioFile = (name: string) => path.join(REPO_ROOT, 'test', 'fixtures', 'scenarios', `${name}.json`);
const outRoot = path.join(REPO_ROOT, 'test-results', 'screenshots');
const rgDir = wanted('hero') ? bundledRipgrepDir() : undefined;
if (wanted('hero') && !rgDir) console.warn("no ripgrep in the code-server install: the hero shot's searches will fail");
const harness = await startHarness(vsix, rgDir ? { pathFirst: [rgDir] } : {});
let failed = 0;
const report = (name: string, result: RunResult, shot: string) => {
  console.log(`${name}: ${result.ok ? 'ok' : `problems: ${result.errors.join('; ')}`} -> ${fs.existsSync(shot) ? shot : 'no screenshot'}`);
  if (!result.ok) failed++;
};
try {
  if (wanted('themes')) {
    const scenario = await loadScenario(scenarioFile('screenshot-tour'));
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
      report(name, result, path.join(out, `panel-${name}.png`));
    }
  }
  if (wanted('visuals')) {
    // A drawn diagram and math in the dark theme, for the README.
    const visuals = path.join(outRoot, 'visuals');
    const drawn = await runScenario(harness, {
      scenario: await loadScenario(scenarioFile('screenshot-visuals')),
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
    report('visuals', drawn, path.join(visuals, 'visuals-diagram.png'));
  }
  if (wanted('hero')) {
    // The README's top screenshot: the whole window, dark, the edit's diff open beside the panel.
    const hero = path.join(outRoot, 'hero');
    const result = await runScenario(harness, {
      scenario: await loadScenario(scenarioFile('screenshot-hero')),
      prompt: 'Running "npm start Ada Grace" only greets Ada. Can it greet everyone?',
      out: hero,
      files: path.join(REPO_ROOT, 'test', 'fixtures', 'workspaces', 'demo'),
      vscodeSettings: {
        'workbench.colorTheme': 'Default Dark Modern',
        'piPanel.tools': ['read', 'grep', 'find', 'ls', 'bash', 'edit', 'write'],
        // The demo has no node_modules: without @types/node every `process` would be a red squiggle.
        'typescript.validate.enable': false,
      },
      timeoutMs: 90_000,
      actions: [
        { do: 'sidebarWidth', width: 540 },
        { waitFor: '[data-role="assistant"][data-stop-reason="stop"]' },
        { waitFor: '.tool-group-summary[aria-expanded="false"][data-status="done"]' },
        { waitFor: '[data-diagram="mermaid"] svg' },
        { waitFor: '[data-testid="changes"] [data-path="src/cli.ts"] [data-action="undo-file"]' },
        // Kept, as after a review: the Changes row shows its compact form, with no pending counts.
        { do: 'click', selector: '[data-testid="changes"] [data-action="keep-all"]' },
        { waitFor: '[data-testid="changes"] [data-path="src/cli.ts"][data-pending="0"]' },
        // The pointer stays on the file's row, which then shows its actions.
        { do: 'click', selector: '[data-testid="changes"] [data-path="src/cli.ts"] [data-action="open-diff"]' },
        { waitForEditor: 'cli\\.ts \\(before Pi\'s run\\) ↔ cli\\.ts","kind":"diff"' },
        { do: 'screenshot', name: 'hero' },
      ],
    });
    report('hero', result, path.join(hero, 'hero.png'));
  }
} finally {
  await harness.close();
}
process.exit(failed ? 1 : 0);
