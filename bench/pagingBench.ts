/** The view's side of resuming a 20,000-message session: a snapshot of every row against the newest 200, delivered to the real webview. */

import { performance } from 'node:perf_hooks';
import { recentPart } from '../src/shared/transcript/paging.ts';
import { deliver, launchBrowser, openView, session, startServer } from '../test/webview/harness.ts';
import { longTranscript } from '../test/webview/builders.ts';
import { median } from './stats.ts';

const ROUNDS = 3;
const host = longTranscript(20_000);
const part = recentPart(host);
const server = await startServer();
const browser = await launchBrowser();

/** Wall time from handing the page the snapshot to its second frame after it (the rows drawn). */
async function shown(msg: Parameters<typeof deliver>[1]): Promise<number> {
  const page = await openView(browser, server.origin);
  const t0 = performance.now();
  await deliver(page, msg);
  const took = performance.now() - t0;
  await page.close();
  return took;
}

const all: number[] = [];
const recent: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  all.push(await shown({ type: 'snapshot', state: host, session }));
  recent.push(await shown({ type: 'snapshot', state: part.state, session, earlier: part.earlier }));
}
const bytes = (x: unknown) => (JSON.stringify(x).length / 1e6).toFixed(2);
console.log(`resumed ${host.messages.length}-message session, snapshot to drawn in the webview, median of ${ROUNDS}:`);
console.log(`  every row (before paging):   ${median(all).toFixed(0)} ms, ${bytes(host)} MB`);
console.log(
  `  newest ${part.state.messages.length} rows (paging):  ${median(recent).toFixed(0)} ms, ${bytes(part.state)} MB, ${part.earlier} rows left on the host`,
);
await browser.close();
await server.close();
