/**
 * Screenshots of the Sessions list and the Branches tree in the real webview bundle (headless Chromium, the
 * real CSP), in dark and light theme variables. Writes test-results/screenshots/sessions-*.png.
 *
 *   npm run build && node scripts/sessionScreenshots.ts
 */

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TreeNodeView } from '../src/shared/sessions.ts';
import { build, exchange } from '../test/webview/builders.ts';
import { assertBundleFresh, deliver, launchBrowser, openView, root, session, startServer } from '../test/webview/harness.ts';
import { page, savedSessions } from '../test/webview/sessionBuilders.ts';

const out = join(root, 'test-results', 'screenshots');
mkdirSync(out, { recursive: true });
assertBundleFresh();
const tree: TreeNodeView[] = [
  { id: 'a1', depth: 0, kind: 'user', text: 'Add a --port flag to the server', onPath: true, isLeaf: false },
  { id: 'a2', depth: 0, kind: 'assistant', text: 'I added the flag and a test for it.', onPath: true, isLeaf: false },
  { id: 'b1', depth: 1, kind: 'user', text: 'Also read it from PORT', onPath: false, isLeaf: false, branchStart: true },
  { id: 'b2', depth: 1, kind: 'assistant', text: 'PORT now overrides the default.', label: 'first try', onPath: false, isLeaf: false },
  { id: 'c1', depth: 1, kind: 'user', text: 'Also read it from the PORT environment variable, flag first', onPath: true, isLeaf: false, branchStart: true },
  { id: 'c2', depth: 1, kind: 'assistant', text: 'The flag wins over PORT, which wins over the default.', onPath: true, isLeaf: true },
];
const server = await startServer();
const browser = await launchBrowser();
try {
  for (const theme of ['vscode-dark', 'vscode-light']) {
    const view = await openView(browser, server.origin, theme, { width: 380, height: 560 });
    await deliver(view, { type: 'snapshot', state: build([{ type: 'sessionInfo', name: 'Port flag' }, ...exchange(1)]), session });
    await deliver(view, {
      type: 'session',
      session: {
        ...session,
        name: 'Port flag',
        contextPercent: 9,
        stats: { input: 18_200, output: 2_310, cacheRead: 9_000, cacheWrite: 0, cost: 0.0412, contextPercent: 9 },
      },
    });
    await deliver(view, { type: 'showMode', mode: 'sessions' });
    const list = savedSessions(12);
    await deliver(view, { type: 'sessions', page: page(list, 0, 240, '', list[0]!.path) });
    await view.screenshot({ path: join(out, `sessions-${theme.replace('vscode-', '')}-list.png`) });
    await view.click('[data-action="show-tree"]');
    await deliver(view, { type: 'sessionTree', nodes: tree });
    await view.screenshot({ path: join(out, `sessions-${theme.replace('vscode-', '')}-tree.png`) });
    await view.close();
  }
} finally {
  await browser.close();
  await server.close();
}
console.log(`screenshots in ${out}`);
