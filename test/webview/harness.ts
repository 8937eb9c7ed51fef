/**
 * A test page for the chat webview outside VS Code: serves dist/webview/main.js and media/chat.css
 * under the same CSP as the real shell (src/extension/webviewHtml.ts), with a stub `acquireVsCodeApi`
 * that records what the webview posts, a canary global and a CSP-violation log.
 */

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { AgentSessionEvent } from '@earendil-works/pi-coding-agent';
import { project } from '../../src/shared/projection.ts';
import type { HostToWebview, WireEvent } from '../../src/shared/protocol.ts';
import { initialTranscript, reduce, type TranscriptState } from '../../src/shared/transcript.ts';
import { chatCsp } from '../../src/extension/webviewHtml.ts';

/** What tests read and call on the test page's window (the test tsconfig has no DOM types). */
export interface PageWindow {
  __posted: { type: string; [k: string]: unknown }[];
  __uiState: unknown;
  __pwned: number;
  __violations: { directive: string; blocked: string; sample: string }[];
  dispatchEvent(e: unknown): boolean;
  requestAnimationFrame(cb: () => void): number;
  MessageEvent: new (type: string, init: { data: unknown }) => unknown;
}

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface TestServer {
  readonly origin: string;
  close(): Promise<void>;
}

/** Serves the test page at `/`, plus `/dist/webview/main.js` and `/media/*`. */
export async function startServer(): Promise<TestServer> {
  let origin = '';
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', origin);
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(pageHtml(origin, url.searchParams.get('theme') ?? 'vscode-dark'));
      return;
    }
    const file =
      url.pathname === '/dist/webview/main.js'
        ? join(root, 'dist', 'webview', 'main.js')
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

/** A small set of theme variables, so screenshots of the test page look like a VS Code sidebar. */
const THEMES: Record<string, string> = {
  'vscode-dark':
    '--vscode-foreground:#cccccc;--vscode-sideBar-background:#181818;--vscode-editor-background:#1f1f1f;--vscode-descriptionForeground:#9d9d9d;--vscode-input-background:#313131;--vscode-input-foreground:#cccccc;--vscode-input-border:#3c3c3c;--vscode-button-background:#0078d4;--vscode-button-foreground:#ffffff;--vscode-button-secondaryBackground:#313131;--vscode-button-secondaryForeground:#cccccc;--vscode-focusBorder:#0078d4;--vscode-panel-border:#2b2b2b;--vscode-textLink-foreground:#4daafc;--vscode-textCodeBlock-background:#2b2b2b;--vscode-errorForeground:#f85149;--vscode-font-family:sans-serif;--vscode-font-size:13px;--vscode-editor-font-family:monospace;--vscode-badge-background:#616161;--vscode-badge-foreground:#f8f8f8;',
  'vscode-light':
    '--vscode-foreground:#3b3b3b;--vscode-sideBar-background:#f8f8f8;--vscode-editor-background:#ffffff;--vscode-descriptionForeground:#717171;--vscode-input-background:#ffffff;--vscode-input-foreground:#3b3b3b;--vscode-input-border:#cecece;--vscode-button-background:#005fb8;--vscode-button-foreground:#ffffff;--vscode-button-secondaryBackground:#e5e5e5;--vscode-button-secondaryForeground:#3b3b3b;--vscode-focusBorder:#005fb8;--vscode-panel-border:#e5e5e5;--vscode-textLink-foreground:#005fb8;--vscode-textCodeBlock-background:#f0f0f0;--vscode-errorForeground:#f85149;--vscode-font-family:sans-serif;--vscode-font-size:13px;--vscode-editor-font-family:monospace;--vscode-badge-background:#cccccc;--vscode-badge-foreground:#3b3b3b;',
};

export const NONCE = 'testnonce0123456789abcdef';

export function pageHtml(origin: string, theme: string): string {
  // The real shell's policy; `cspSource` is the test server's origin.
  const csp = chatCsp(origin, NONCE);
  const vars = THEMES[theme] ?? THEMES['vscode-dark'];
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<link rel="stylesheet" href="${origin}/media/chat.css">
<title>Pi test</title>
<script nonce="${NONCE}">
  window.__posted = [];
  // A test may seed the saved UI state (an init script runs first).
  if (!('__uiState' in window)) window.__uiState = undefined;
  window.__pwned = 0;
  window.__violations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__violations.push({ directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample });
  });
  window.acquireVsCodeApi = () => ({
    postMessage: (m) => { window.__posted.push(JSON.parse(JSON.stringify(m))); },
    getState: () => window.__uiState,
    setState: (s) => { window.__uiState = s; },
  });
  // Theme variables arrive on the <html> element in VS Code; set them from script (styles need a nonce-less sheet).
  for (const decl of ${JSON.stringify(vars)}.split(';')) {
    const i = decl.indexOf(':');
    if (i > 0) document.documentElement.style.setProperty(decl.slice(0, i), decl.slice(i + 1));
  }
</script>
</head>
<body data-run-state="idle" class="${theme}">
<div id="app"></div>
<script nonce="${NONCE}" src="${origin}/dist/webview/main.js"></script>
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
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/** Opens the test page and waits until the webview said `ready`. */
export async function openView(browser: Browser, origin: string, theme = 'vscode-dark', size = { width: 420, height: 800 }): Promise<Page> {
  const page = await browser.newPage({ viewport: size });
  await page.goto(`${origin}/?theme=${theme}`);
  await page.waitForFunction(() => (globalThis as unknown as PageWindow).__posted.some((m) => m.type === 'ready'));
  return page;
}

/** Delivers a host message the way VS Code does (a `message` event on the window) and waits two frames. */
export async function deliver(page: Page, msg: HostToWebview): Promise<void> {
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

/**
 * Delivers a host message as JSON text parsed inside the page, the way it crosses postMessage from the
 * extension host: an id such as `__proto__` arrives as an own property, not as a prototype.
 */
export async function deliverJson(page: Page, msg: HostToWebview): Promise<void> {
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

export async function posted(page: Page): Promise<{ type: string; [k: string]: unknown }[]> {
  return page.evaluate(() => (globalThis as unknown as PageWindow).__posted);
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
    for (const f of readdirSync(join(root, dir))) {
      if (f.endsWith('.ts') && statSync(join(root, dir, f)).mtimeMs > bundle)
        throw new Error(`dist/webview/main.js is older than ${dir}/${f}: run \`npm run build\` first`);
    }
  }
}
