/**
 * A test page for the chat webview outside VS Code: serves dist/webview/main.js, dist/webview/codicons/ and media/chat.css
 * under the same CSP as the real shell (src/extension/webviewHtml.ts), with a stub `acquireVsCodeApi`
 * that records what the webview posts, a canary global and a CSP-violation log.
 */

import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { AgentSessionEvent } from '@earendil-works/pi-coding-agent';
import { project } from '../../src/worker/projection.ts';
import type { HostToWebview } from '../../src/shared/wire/webviewProtocol.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { asSent, initialTranscript, reduce, reduceOne } from '../../src/shared/transcript/reduce.ts';
import { RowChanges } from '../../src/worker/rowChanges.ts';
import type { TranscriptState } from '../../src/shared/transcript/rows.ts';
import { chatCsp, inertJson } from '../../src/extension/webviewHtml.ts';
import { lateScriptHtml } from '../../src/shared/lateScript.ts';
import type { CapturedThemes } from './captureThemes.ts';
import { ensureSystemPackages } from '../workbench/install.ts';

/** What tests read and call on the test page's window (the test tsconfig has no DOM types). */
export interface PageWindow {
  __posted: { type: string; [k: string]: unknown }[];
  __uiState: unknown;
  __pwned: number;
  __violations: { directive: string; blocked: string; sample: string }[];
  /** Links VS Code's own webview click handler would have opened (it must see none: the host decides). */
  __hostOpened: string[];
  dispatchEvent(e: unknown): boolean;
  requestAnimationFrame(cb: () => void): number;
  MessageEvent: new (type: string, init: { data: unknown }) => unknown;
}

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface TestServer {
  readonly origin: string;
  close(): Promise<void>;
}

/** Serves the test page at `/`, plus `/dist/webview/*.js` and `/media/*`. */
export async function startServer(): Promise<TestServer> {
  let origin = '';
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', origin);
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      const flag = (name: string) => url.searchParams.get(name) === '1';
      res.end(
        pageHtml(origin, {
          theme: url.searchParams.get('theme') ?? 'dark-modern',
          underlineLinks: flag('underlineLinks'),
          reduceMotion: flag('reduceMotion'),
          locale: url.searchParams.get('locale') ?? undefined,
        }),
      );
      return;
    }
    const file =
      // main.js, and the chunks it loads on demand (mermaid.js).
      /^\/dist\/webview\/[\w-]+\.js$/.test(url.pathname)
        ? join(root, 'dist', 'webview', url.pathname.slice('/dist/webview/'.length))
        : url.pathname.startsWith('/dist/webview/codicons/')
          ? join(root, 'dist', 'webview', 'codicons', url.pathname.slice(23).replace(/\.\./g, ''))
          : url.pathname.startsWith('/media/')
            ? join(root, 'media', url.pathname.slice(7).replace(/\.\./g, ''))
            : undefined;
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = readFileSync(file);
      res.writeHead(200, { 'content-type': file.endsWith('.js') ? 'text/javascript' : file.endsWith('.css') ? 'text/css' : 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** VS Code's real theme variables, body classes and default webview stylesheet (see captureThemes.ts). */
const CAPTURED = JSON.parse(readFileSync(join(root, 'test', 'webview', 'vscodeThemes.json'), 'utf8')) as CapturedThemes;

/** Test page themes: the two historical names plus the four default themes by their captured keys. */
export const THEME_KEYS = ['dark-modern', 'light-modern', 'dark-hc', 'light-hc'] as const;
export type ThemeKey = (typeof THEME_KEYS)[number];
const ALIASES: Record<string, ThemeKey> = { 'vscode-dark': 'dark-modern', 'vscode-light': 'light-modern' };

/** How the test page is dressed: a theme, and VS Code's accessibility options. */
export interface PageOptions {
  readonly theme?: string;
  /** `accessibility.underlineLinks`. */
  readonly underlineLinks?: boolean;
  /** The `vscode-reduce-motion` body class (VS Code's `workbench.reduceMotion`). */
  readonly reduceMotion?: boolean;
  /** Display language: the page embeds `l10n/bundle.l10n.<locale>.json` as the real shell does. */
  readonly locale?: string;
  /** HTML the host put where the app draws (a saved picture, see src/shared/savedPicture.ts). */
  readonly picture?: string;
}

export const NONCE = 'testnonce0123456789abcdef';

/** The shell's l10n block (src/extension/webviewHtml.ts) for `locale`, or nothing for English. */
function localeBlock(locale: string | undefined): string {
  if (!locale || locale === 'en') return '';
  const bundle = JSON.parse(readFileSync(join(root, 'l10n', `bundle.l10n.${locale}.json`), 'utf8')) as Record<string, string>;
  return `<script type="application/json" id="pi-l10n">${inertJson({ language: locale, bundle })}</script>\n`;
}

export function pageHtml(origin: string, options: PageOptions = {}): string {
  // The real shell's policy; `cspSource` is the test server's origin.
  const csp = chatCsp(origin, NONCE);
  const theme = CAPTURED.themes[ALIASES[options.theme ?? ''] ?? options.theme ?? ''] ?? CAPTURED.themes['dark-modern']!;
  const vars: Record<string, string> = { ...theme.vars };
  if (options.underlineLinks) vars['--text-link-decoration'] = CAPTURED.underlineLinksDecoration;
  const bodyClass = `${theme.bodyClass}${options.reduceMotion ? ' vscode-reduce-motion' : ''}`;
  return `<!DOCTYPE html>
<html lang="${options.locale ?? 'en'}">
<head>
<meta charset="UTF-8">
<style id="_defaultStyles">${CAPTURED.defaultStyles}</style>
<meta http-equiv="Content-Security-Policy" content="${csp}">
<link rel="stylesheet" href="${origin}/media/chat.css">
<title>Pi test</title>
<script nonce="${NONCE}">
  window.__posted = [];
  // A test may seed the saved UI state (an init script runs first).
  if (!('__uiState' in window)) window.__uiState = undefined;
  window.__pwned = 0;
  window.__violations = [];
  // What VS Code's webview host does with a click on a link it sees (pre/index.html): it opens it itself.
  window.__hostOpened = [];
  window.addEventListener('click', (e) => {
    for (const node of e.composedPath()) {
      if (node.tagName && node.tagName.toLowerCase() === 'a' && node.href) {
        window.__hostOpened.push(node.href);
        e.preventDefault();
        return;
      }
    }
  });
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__violations.push({ directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample });
  });
  window.acquireVsCodeApi = () => ({
    postMessage: (m) => { window.__posted.push(JSON.parse(JSON.stringify(m))); },
    getState: () => window.__uiState,
    setState: (s) => { window.__uiState = s; },
  });
  // Theme variables arrive on the <html> element in VS Code; set them from script (styles need a nonce-less sheet).
  for (const [name, value] of Object.entries(${JSON.stringify(vars)})) document.documentElement.style.setProperty(name, value);
</script>
</head>
<body data-run-state="idle" class="${bodyClass}">
${localeBlock(options.locale)}<div id="app">${options.picture ?? ''}</div>
${lateScriptHtml(`${origin}/dist/webview/main.js`, NONCE)}
</body>
</html>`;
}

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchBrowser(): Promise<Browser> {
  // A fresh machine has no chromium yet: install it (root) or stop with the command to run.
  if (!process.env.CHROMIUM_PATH) ensureSystemPackages(['chromium']);
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/** Opens the test page and waits until the webview said `ready`. */
export async function openView(
  browser: Browser,
  origin: string,
  theme = 'vscode-dark',
  size = { width: 420, height: 800 },
  options: Omit<PageOptions, 'theme'> = {},
): Promise<Page> {
  const page = await browser.newPage({ viewport: size });
  const flags = `${options.underlineLinks ? '&underlineLinks=1' : ''}${options.reduceMotion ? '&reduceMotion=1' : ''}${options.locale ? `&locale=${options.locale}` : ''}`;
  await page.goto(`${origin}/?theme=${theme}${flags}`);
  await page.waitForFunction(() => (globalThis as unknown as PageWindow).__posted.some((m) => m.type === 'ready'));
  return page;
}

/** Delivers a host message the way VS Code does (a `message` event on the window) and waits two frames. */
/** Per page, the transcript the worker would hold for what the page was sent, and its change numbering. */
const workers = new WeakMap<Page, { state: TranscriptState; changes: RowChanges }>();

/**
 * `msg` as the host sends it: a batch of wire events becomes the changes the worker computes for them (the
 * view applies changes, it reduces nothing); a snapshot sets what the worker holds.
 */
export function asHostSends(page: Page, msg: HostToWebview): HostToWebview {
  let w = workers.get(page);
  if (!w) workers.set(page, (w = { state: initialTranscript, changes: new RowChanges() }));
  if (msg.type === 'snapshot') w.state = msg.state;
  if (msg.type !== 'batch') return msg;
  const out: WireEvent[] = [];
  for (const raw of msg.events) {
    const prev = w.state;
    w.state = reduceOne(prev, asSent(prev, raw));
    w.changes.step(prev, w.state, raw, out);
  }
  return { type: 'batch', events: out };
}

export async function deliver(page: Page, message: HostToWebview): Promise<void> {
  const msg = asHostSends(page, message);
  await page.evaluate(
    (m) =>
      new Promise<void>((resolve) => {
        const w = globalThis as unknown as PageWindow;
        w.dispatchEvent(new w.MessageEvent('message', { data: m }));
        w.requestAnimationFrame(() => w.requestAnimationFrame(() => resolve()));
      }),
    msg as unknown as Record<string, unknown>,
  );
}

/** Delivers one batch of wire events, as the host sends them live. */
export async function batch(page: Page, events: WireEvent[]): Promise<void> {
  await deliver(page, { type: 'batch', events });
}

/**
 * Delivers a host message as JSON text parsed inside the page, the way it crosses postMessage from the
 * extension host: an id such as `__proto__` arrives as an own property, not as a prototype.
 */
export async function deliverJson(page: Page, message: HostToWebview): Promise<void> {
  const msg = asHostSends(page, message);
  await page.evaluate(
    (json) =>
      new Promise<void>((resolve) => {
        const w = globalThis as unknown as PageWindow;
        w.dispatchEvent(new w.MessageEvent('message', { data: JSON.parse(json) }));
        w.requestAnimationFrame(() => w.requestAnimationFrame(() => resolve()));
      }),
    JSON.stringify(msg),
  );
}

/**
 * Delivers `messages` as JSON, one per animation frame (the real batcher sends at most one batch a frame), in one
 * call into the page: a round trip per batch costs more than the batch.
 */
export async function deliverFrames(page: Page, sent: readonly HostToWebview[]): Promise<void> {
  const messages = sent.map((m) => asHostSends(page, m));
  await page.evaluate(async (json) => {
    const w = globalThis as unknown as PageWindow;
    const frame = () => new Promise<void>((resolve) => w.requestAnimationFrame(() => resolve()));
    for (const m of JSON.parse(json) as unknown[]) {
      w.dispatchEvent(new w.MessageEvent('message', { data: m }));
      await frame();
    }
    await frame();
  }, JSON.stringify(messages));
}

export async function posted(page: Page, withPicture = false): Promise<{ type: string; [k: string]: unknown }[]> {
  const all = await page.evaluate(() => (globalThis as unknown as PageWindow).__posted);
  // The view sends its saved picture a second after it draws rows: not an intent, and its timing is the clock's.
  return withPicture ? all : all.filter((m) => m.type !== 'savedPicture');
}

/** Runs a recorded Pi event stream through the host's projection; returns the wire batches (one per Pi event) and the final state. */
export function projectFixture(name: string): { batches: WireEvent[][]; state: TranscriptState } {
  const events = JSON.parse(readFileSync(join(root, 'test', 'fixtures', 'events', name), 'utf8')) as AgentSessionEvent[];
  let state = initialTranscript;
  const batches: WireEvent[][] = [];
  let now = 1_700_000_000_000;
  for (const ev of events) {
    now += 37;
    const wire = project(ev, { state, now });
    if (!wire.length) continue;
    state = reduce(state, wire);
    batches.push(wire);
  }
  return { batches, state };
}

export const session = { model: 'scripted-model', thinkingLevel: 'medium', cwd: '/work', ready: true } as const;

/** The tests run the built bundle; a stale one would test old code. */
export function assertBundleFresh(): void {
  const bundle = statSync(join(root, 'dist', 'webview', 'main.js')).mtimeMs;
  for (const dir of ['src/webview', 'src/shared']) {
    for (const f of readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })) {
      if (f.endsWith('.ts') && statSync(join(root, dir, f)).mtimeMs > bundle)
        throw new Error(`dist/webview/main.js is older than ${dir}/${f}: run \`npm run build\` first`);
    }
  }
}

/**
 * Mocha hooks for a suite with one chat page per test: the test server and the browser live for the
 * suite; every test gets a fresh page (handed to `onPage`, which may prepare it), closed after it, and the
 * page must not throw.
 */
export function useChatPage(onPage: (page: Page) => void | Promise<void>): { readonly server: () => TestServer; readonly browser: () => Browser } {
  const env = useBrowser();
  let page: Page | undefined;
  let pageErrors: string[] = [];
  beforeEach(async () => {
    pageErrors = [];
    page = await openView(env.browser, env.server.origin);
    page.on('pageerror', (e) => pageErrors.push(`${e.message}\n${e.stack ?? ''}`));
    await onPage(page);
  });
  afterEach(async () => {
    await page?.close();
    assert.deepEqual(pageErrors, [], 'the page threw');
  });
  return { server: () => env.server, browser: () => env.browser };
}

/** Mocha hooks for a suite that opens its own pages: the test server and the browser live for the suite (read them in tests and hooks). */
export function useBrowser(): { readonly server: TestServer; readonly browser: Browser } {
  let server: TestServer | undefined;
  let browser: Browser | undefined;
  before(async () => {
    assertBundleFresh();
    server = await startServer();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });
  return {
    get server() {
      if (!server) throw new Error('useBrowser: the suite has not started');
      return server;
    },
    get browser() {
      if (!browser) throw new Error('useBrowser: the suite has not started');
      return browser;
    },
  };
}
