/**
 * Records what VS Code really gives the chat webview in each default theme: the `--vscode-*` variables on
 * `<html>`, the body classes, and the default stylesheet (`_defaultStyles`), read from the Pi view in
 * code-server. Writes test/webview/vscodeThemes.json, which the webview DOM suite's theme pages use.
 *
 *   node test/webview/captureThemes.ts [--vsix FILE]
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { packagedVsix, startHarness } from '../e2e/run.ts';
import { Workbench } from '../workbench/browser.ts';
import { CODE_SERVER_VERSION, REPO_ROOT } from '../workbench/install.ts';

/** Test page theme key -> VS Code settings that select it. */
const THEMES: Record<string, Record<string, unknown>> = {
  'dark-modern': { 'workbench.colorTheme': 'Default Dark Modern' },
  'light-modern': { 'workbench.colorTheme': 'Default Light Modern' },
  'dark-hc': { 'workbench.colorTheme': 'Default High Contrast' },
  'light-hc': { 'workbench.colorTheme': 'Default High Contrast Light' },
};

export interface CapturedTheme {
  readonly settings: Record<string, unknown>;
  readonly bodyClass: string;
  /** `name: value` pairs of the `<html>` element's inline style (the theme variables). */
  readonly vars: Record<string, string>;
}

export interface CapturedThemes {
  readonly capturedWith: string;
  /** VS Code's default webview stylesheet, as injected into every webview. */
  readonly defaultStyles: string;
  /** `--text-link-decoration` with `accessibility.underlineLinks` on. */
  readonly underlineLinksDecoration: string;
  readonly themes: Record<string, CapturedTheme>;
}

const { values } = parseArgs({ options: { vsix: { type: 'string' } } });
const vsix = values.vsix ? path.resolve(values.vsix) : packagedVsix();
const harness = await startHarness(vsix);

async function capture(settings: Record<string, unknown>): Promise<{ bodyClass: string; vars: Record<string, string>; defaultStyles: string }> {
  harness.server.writeSettings(settings);
  const page = await harness.browser.context.newPage();
  try {
    const wb = new Workbench(page);
    await wb.open(harness.server.workbenchUrl());
    await wb.openPiView();
    await wb.waitForWebview();
    const frame = wb.webview();
    const style = (await frame.locator('html').getAttribute('style')) ?? '';
    const bodyClass = (await frame.locator('body').getAttribute('class')) ?? '';
    const defaultStyles = await frame.locator('#_defaultStyles').evaluate((e) => e.textContent ?? '');
    const vars: Record<string, string> = {};
    for (const decl of style.split(';')) {
      const i = decl.indexOf(':');
      if (i > 0) vars[decl.slice(0, i).trim()] = decl.slice(i + 1).trim();
    }
    return { bodyClass, vars, defaultStyles };
  } finally {
    await page.close();
  }
}

try {
  const themes: Record<string, CapturedTheme> = {};
  let defaultStyles = '';
  for (const [key, settings] of Object.entries(THEMES)) {
    const got = await capture(settings);
    defaultStyles = got.defaultStyles;
    themes[key] = { settings, bodyClass: got.bodyClass, vars: got.vars };
    console.log(`${key}: ${Object.keys(got.vars).length} variables, body class "${got.bodyClass}"`);
  }
  const underlined = await capture({ ...THEMES['dark-modern'], 'accessibility.underlineLinks': true });

  const out: CapturedThemes = {
    capturedWith: `code-server ${CODE_SERVER_VERSION}`,
    defaultStyles,
    underlineLinksDecoration: underlined.vars['--text-link-decoration'] ?? '',
    themes,
  };
  const file = path.join(REPO_ROOT, 'test', 'webview', 'vscodeThemes.json');
  fs.writeFileSync(file, JSON.stringify(out, null, 1) + '\n');
  console.log(`wrote ${file}`);
} finally {
  await harness.close();
}
