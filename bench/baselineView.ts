/**
 * The hide/show bench's baseline: a minimal extension whose webview view, in its own activity-bar container, shows
 * one static line of HTML. Shown and hidden with the same clicks as the Pi view, it measures what VS Code itself
 * spends creating a webview view, which the panel cannot change. Packaged once per process into a .vsix.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageStubExtension } from '../test/workbench/stubExtension.ts';

/** Title of the baseline's activity-bar container (its icon's aria-label). */
export const BASELINE_TITLE = 'Baseline View';
/** Extension id of the baseline (its webview's `iframe.webview` src names it). */
export const BASELINE_ID = 'pi-panel-test.pi-panel-test-baseline-view';
/** The one line the baseline's page shows. */
export const BASELINE_LINE = 'A static line of the baseline view.';

// As small as a webview view gets: the view's HTML is set at once when VS Code asks for it, with the same webview
// options as the Pi view (scripts allowed), and no script, style or font in the page.
const EXTENSION_JS = `'use strict';
const vscode = require('vscode');
exports.activate = (context) => {
  context.subscriptions.push(
    vscode.window.registerWebviewViewProvider('piPanelBaseline.view', {
      resolveWebviewView(view) {
        view.webview.options = { enableScripts: true };
        view.webview.html = '<!DOCTYPE html><html><head><meta charset="UTF-8"></head><body><p>${BASELINE_LINE}</p></body></html>';
      },
    }),
  );
};
`;

/** Builds (once per process) the baseline extension and returns its .vsix path. */
export function baselineViewVsix(): string {
  const dir = path.join(os.tmpdir(), `pi-panel-baseline-view-${process.pid}`);
  const vsix = path.join(dir, 'baseline-view.vsix');
  if (fs.existsSync(vsix)) return vsix;
  fs.mkdirSync(dir, { recursive: true });
  const manifest = {
    name: 'pi-panel-test-baseline-view',
    displayName: 'Baseline webview view (bench)',
    description: 'One static line in a webview view, for the hide/show bench.',
    publisher: 'pi-panel-test',
    version: '0.0.1',
    license: 'MIT',
    repository: { type: 'git', url: 'https://github.com/pi-agent-panel/pi-agent-panel.git' },
    engines: { vscode: '^1.101.0' },
    main: './extension.js',
    // Active before the first round, as the Pi extension is: activation is not part of showing the view.
    activationEvents: ['onStartupFinished'],
    contributes: {
      viewsContainers: { activitybar: [{ id: 'piPanelBaseline', title: BASELINE_TITLE, icon: 'icon.svg' }] },
      views: { piPanelBaseline: [{ type: 'webview', id: 'piPanelBaseline.view', name: 'Baseline' }] },
    },
  };
  fs.writeFileSync(path.join(dir, 'extension.js'), EXTENSION_JS);
  fs.writeFileSync(path.join(dir, 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect x="3" y="3" width="10" height="10"/></svg>');
  packageStubExtension(dir, manifest, vsix, 'the baseline view');
  return vsix;
}
