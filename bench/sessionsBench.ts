/**
 * Sessions-list benchmark (not a test): how long the Sessions mode takes to open with 500 saved sessions.
 * (1) The worker's side: Pi's SessionManager.list over 500 real session files and the first page of 50
 * (`listSessionPage`, what answers the view), read again after a file changed and warm (unchanged folder). (2) The webview's side, in headless Chromium with the real
 * bundle: from the Sessions button's click to the first page painted (the host's answer is delivered at once,
 * so this is the view's own time). Prints medians; asserts nothing.
 *
 * Usage: npm run build && node bench/sessionsBench.ts [--sessions 500 --rounds 5]
 */

import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { SESSION_PAGE_SIZE } from '../src/shared/sessions.ts';
import { listSessionPage } from '../src/worker/sessionRuntime.ts';
import { loadBundledPi } from '../test/sdk/harness.ts';
import { build } from '../test/webview/builders.ts';
import { assertBundleFresh, deliver, launchBrowser, openView, session, startServer } from '../test/webview/harness.ts';
import { page as sessionPage, savedSessions } from '../test/webview/sessionBuilders.ts';
import { median, numberArg } from './stats.ts';

const SESSIONS = numberArg('sessions', 500);
const ROUNDS = numberArg('rounds', 5);

/** Writes `n` small saved sessions (a prompt and an answer each) through Pi's own SessionManager. */
function writeSessions(n: number): { cwd: string; dir: string } {
  const pi = loadBundledPi();
  const cwd = mkdtempSync(join(tmpdir(), 'pi-bench-ws-'));
  const dir = join(mkdtempSync(join(tmpdir(), 'pi-bench-sessions-')), 'sessions');
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < n; i++) {
    const sm = pi.SessionManager.create(cwd, dir);
    const t = Date.now() - i * 60_000;
    sm.appendMessage({ role: 'user', content: `Question ${i}: refactor module ${i} and keep the tests green`, timestamp: t });
    sm.appendMessage({
      role: 'assistant',
      content: [{ type: 'text', text: `Done with module ${i}. ${'The change is small. '.repeat(10)}` }],
      api: 'openai-completions',
      provider: 'bench',
      model: 'bench-model',
      usage: { input: 100, output: 50, cacheRead: 0, cacheWrite: 0, totalTokens: 150, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: 'stop',
      timestamp: t + 1000,
    } as never);
    if (i % 5 === 0) sm.appendSessionInfo(`Named session ${i}`);
  }
  return { cwd, dir };
}

async function openList(view: Page, total: number): Promise<number> {
  await deliver(view, { type: 'snapshot', state: build([]), session });
  const first = sessionPage(savedSessions(SESSION_PAGE_SIZE), 0, total);
  // Answer the view's request as soon as it is posted, then wait for the rows to be painted.
  return view.evaluate(
    ({ first, want }) =>
      new Promise<number>((resolve) => {
        const w = globalThis as unknown as {
          __posted: { type: string }[];
          dispatchEvent(e: unknown): boolean;
          MessageEvent: new (t: string, i: { data: unknown }) => unknown;
          requestAnimationFrame(cb: () => void): number;
          document: { querySelector(s: string): { click(): void }; querySelectorAll(s: string): { length: number } };
          performance: { now(): number };
        };
        const push = w.__posted.push.bind(w.__posted);
        w.__posted.push = (...items: { type: string }[]) => {
          if (items.some((m) => m.type === 'listSessions')) w.dispatchEvent(new w.MessageEvent('message', { data: { type: 'sessions', page: first } }));
          return push(...items);
        };
        const t0 = w.performance.now();
        w.document.querySelector('[data-action="show-sessions"]').click();
        const check = () => {
          if (w.document.querySelectorAll('[data-testid="sessions"] [data-session-file]').length >= want)
            w.requestAnimationFrame(() => resolve(w.performance.now() - t0));
          else w.requestAnimationFrame(check);
        };
        check();
      }),
    { first, want: first.sessions.length },
  );
}

async function main(): Promise<void> {
  assertBundleFresh();
  const pi = loadBundledPi();
  const { cwd, dir } = writeSessions(SESSIONS);
  const cold: number[] = [];
  const host: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // A file changed since the last listing: the folder is read again.
    const touched = join(dir, readdirSync(dir)[r % SESSIONS]!);
    appendFileSync(touched, '');
    utimesSync(touched, new Date(), new Date(Date.now() - r * 1000));
    let t0 = performance.now();
    const page = await listSessionPage(pi, cwd, dir, { query: '', offset: 0 });
    cold.push(performance.now() - t0);
    if (page.total !== SESSIONS) throw new Error(`listed ${page.total} sessions, wrote ${SESSIONS}`);
    // Unchanged since (the worker warms the listing while idle): only the files' sizes and times are read.
    t0 = performance.now();
    await listSessionPage(pi, cwd, dir, { query: '', offset: 0 });
    host.push(performance.now() - t0);
  }
  const search: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    await listSessionPage(pi, cwd, dir, { query: 'module 42', offset: 0 });
    search.push(performance.now() - t0);
  }
  const server = await startServer();
  const browser = await launchBrowser();
  const view: number[] = [];
  try {
    for (let r = 0; r < ROUNDS; r++) {
      const p = await openView(browser, server.origin);
      view.push(await openList(p, SESSIONS));
      await p.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  const fmt = (xs: number[]) => `median ${median(xs).toFixed(1)} ms (rounds: ${xs.map((x) => x.toFixed(1)).join(', ')})`;
  console.log(`Sessions list, ${SESSIONS} saved sessions, ${ROUNDS} rounds:`);
  console.log(`  worker: first page of ${SESSION_PAGE_SIZE}, folder changed:  ${fmt(cold)}`);
  console.log(`  worker: first page of ${SESSION_PAGE_SIZE}, warm listing:    ${fmt(host)}`);
  console.log(`  worker: search "module 42":              ${fmt(search)}`);
  console.log(`  webview: click to first page painted:    ${fmt(view)}`);
  console.log(`  open in total, warm (worker + webview):  ${(median(host) + median(view)).toFixed(1)} ms  (target: under 300 ms)`);
  console.log(`  open in total, cold (worker + webview):  ${(median(cold) + median(view)).toFixed(1)} ms`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
