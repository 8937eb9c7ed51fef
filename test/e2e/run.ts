/**
 * End-to-end runner: one scenario in a real workbench. Starts the scripted model, installs the
 * packaged extension into code-server, opens the Pi view in chromium, sends the prompt, plays the actions,
 * waits for idle, and writes panel.html, panel.txt, status.jsonl, session.jsonl, requests.jsonl,
 * notifications.jsonl, files.json, editors.json, screenshot.png and result.json into the output folder.
 *
 *   node test/e2e/run.ts --scenario FILE.json --prompt TEXT --out DIR [--actions ACTIONS.json] [--timeout-ms N] [--vsix FILE]
 *                        [--files DIR] [--settings FILE] [--untrusted] [--git] [--locale LANG] [--empty-agent-dir]
 *
 * Beyond the base format the shared checker reads (../shared/tools/check-e2e-output.mjs): `--git` makes the workspace a Git repository with its files committed before the workbench opens
 * (the case file's `"git": true`; Git must be on for the run: `"git.enabled": true` in its settings). Actions that act
 * on the workbench outside the chat (test/e2e/workbenchActions.ts):
 *   { "do": "terminal", "text": "…" }     type a line and Enter into the active terminal (opening one when none is)
 *   { "waitForTerminal": "…" }            wait until the active terminal shows the text and the command typed last
 *                                         has ended (the shell reported its end: the workbench's finished-command
 *                                         mark). Needs the DOM renderer: `"terminal.integrated.gpuAcceleration": "off"`
 *                                         in the run's settings
 *   { "do": "openFile", "path": "…", "line": N, "column": N }   open a workspace file there (line, column optional)
 *   { "do": "quickFix", "title": "…" }    press Ctrl+. in the active editor until that quick fix is offered, choose it
 *   { "waitForTreeItem": "…", "view": "…" }   wait until the sidebar's tree view titled `view` (e.g. "MCP Servers",
 *                                         its section expanded first) shows a row containing the text
 *   { "do": "treeItem", "view": "…", "text": "…", "action": "…" }   in that tree view, the row containing `text`: click
 *                                         its inline action whose label starts with `action` (e.g. "Disable"), or
 *                                         without `action` the row itself (a collapsed row expands)
 * First run: `--empty-agent-dir` (the case file's `"emptyAgentDir": true`) starts Pi with an agent dir that has no
 * model, no key and no default (only settings that keep Pi quiet offline), as after a fresh install; the extension's
 * log (its output channel) is copied to `extension-log.txt`. One more action:
 *   { "do": "input", "text": "…" }        type into the open VS Code input box and press Enter; `${modelUrl}` in the text
 *                                         is the scripted model's base URL (`http://127.0.0.1:PORT/v1`)
 * For screenshots: { "do": "sidebarWidth", "width": N } drags the sidebar's edge until the sidebar is N px wide.
 * A chat's pages as VS Code makes them (test/e2e/chatPages.ts): the runner writes `pages.jsonl`, each page VS Code
 * wrote into a webview frame (`{ "kind": "page", "chat", "picture" }`: the text of the saved picture its HTML holds,
 * null for none) and each saved picture a page sent its host (`{ "kind": "picture", "chat", "text" }`). Actions:
 *   { "waitForPicture": "…" }             wait until the target chat's page has sent its host a saved picture holding
 *                                         the text (the picture a hidden view's page is made again with)
 *   { "do": "showTab", "chat": N, "picture": "…" }   click editor chat N's tab (another editor took its place) and wait
 *                                         for its page; with `picture`, the page VS Code made for it must hold, in its
 *                                         HTML, a saved picture with that text (drawn before its script ran), and the
 *                                         live rows must take the picture's place
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { makePiAgentDir } from '../support/piConfig.ts';
import { loadScenario, validateScenario } from '../scriptedModel/scenario.ts';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { startScriptedModel } from '../scriptedModel/server.ts';
import type { ScriptedModel } from '../scriptedModel/server.ts';
import { launchBrowser, Workbench } from '../workbench/browser.ts';
import type { Browser } from '../workbench/browser.ts';
import type { Frame, Locator } from 'playwright-core';
import { startCodeServer } from '../workbench/codeServer.ts';
import type { CodeServer } from '../workbench/codeServer.ts';
import { REPO_ROOT } from '../workbench/install.ts';
import { chooseQuickFix, clickTreeItem, commitWorkspace, openFileAt, typeInTerminal, waitForTerminalText, waitForTreeItem } from './workbenchActions.ts';
import { PAGE_BINDING, pageWatcherScript } from './chatPages.ts';
import { fold } from './check.ts';
import type { PageRecord } from './chatPages.ts';

/** One step of a run, played in order after the prompt is sent. */
export type Action =
  | { readonly waitFor: string }
  | { readonly waitForText: string }
  | { readonly sleepMs: number }
  // Beyond the base actions: wait for a VS Code notification, or an open editor tab, whose JSON record matches ("(?i)" prefix: any case).
  | { readonly waitForNotification: string }
  | { readonly waitForEditor: string }
  // Beyond the base actions: wait until the Pi icon in the activity bar shows this badge (several chats: news out of sight).
  | { readonly waitForBadge: string }
  // Beyond the base actions: the terminal, a file at a position and its quick fixes (see the header).
  | { readonly waitForTerminal: string }
  | { readonly do: 'terminal'; readonly text: string }
  | { readonly do: 'openFile'; readonly path: string; readonly line?: number; readonly column?: number }
  | { readonly do: 'quickFix'; readonly title: string }
  // Beyond the base actions: a tree view in the sidebar (the MCP Servers view), see the header.
  | { readonly waitForTreeItem: string; readonly view: string }
  | { readonly do: 'treeItem'; readonly view: string; readonly text: string; readonly action?: string }
  | { readonly do: 'cancel' | 'cancelButton' | 'hideView' | 'showView' | 'reloadWindow' }
  | { readonly do: 'steer' | 'followUp' | 'send' | 'type'; readonly text: string }
  | { readonly do: 'command'; readonly id: string }
  | { readonly do: 'screenshot'; readonly name: string }
  // Beyond the base actions: drag the sidebar's edge until it is this many px wide (a screenshot with a roomier chat).
  | { readonly do: 'sidebarWidth'; readonly width: number }
  /** Clicks the button of that choice in the open extension dialog card (its button's `data-choice`). */
  | { readonly do: 'answer'; readonly choice: string }
  /** Clicks an element inside the webview. */
  | { readonly do: 'click'; readonly selector: string }
  // Beyond the base actions: open the scripted model's gate (a `{ "hold": name }` chunk) so the held stream goes on.
  | { readonly do: 'release'; readonly gate: string }
  // Beyond the base actions: attach an image file (path relative to the repository root, or absolute) to the composer
  // through its file picker, and wait for its chip.
  | { readonly do: 'attachImage'; readonly path: string }
  // Several chats: open one in an editor tab (it becomes the target), choose the target, pick from a quick pick.
  // `worktree`: Pi: New Chat in Worktree; the run writes chat-N.files.json (that worktree's files) and result.json's
  // chats entry gains `worktree` (its absolute path).
  | { readonly do: 'newChat'; readonly worktree?: boolean }
  | { readonly do: 'target'; readonly chat: 'sidebar' | number }
  | { readonly do: 'pick'; readonly text: string }
  // Find in chat: Pi: Find in Chat opens the target chat's find box, which then searches for the text.
  | { readonly do: 'find'; readonly text: string }
  // First run: type into the open VS Code input box (a key, a URL) and press Enter; `${modelUrl}` is the scripted model's URL.
  | { readonly do: 'input'; readonly text: string }
  // A chat's pages (see the header): a saved picture sent to the host; an editor chat's tab shown again, its page checked.
  | { readonly waitForPicture: string }
  | { readonly do: 'showTab'; readonly chat: number; readonly picture?: string };

/** The chats a run opened and the one its webview actions go to. */
interface ChatTargets {
  target: 'sidebar' | number;
  /** Editor-tab chats opened so far (`editor-1` … `editor-N`). */
  editors: number;
  /** Worktree chats' worktrees (absolute paths), by N. */
  worktrees?: Record<number, string>;
  /** The run's workspace, where `git worktree list` finds them. */
  workspace?: string;
  /** The chats' pages so far, as `pages.jsonl` has them. */
  pages?: readonly PageRecord[];
}

/** The worktree of the branch a worktree chat's page names (`data-worktree`), as `git worktree list` has it. */
function worktreeOfBranch(workspace: string, branch: string): string {
  const r = spawnSync('git', ['worktree', 'list', '--porcelain'], { cwd: workspace, encoding: 'utf8' });
  let current = '';
  for (const line of (r.stdout ?? '').split('\n')) {
    if (line.startsWith('worktree ')) current = line.slice('worktree '.length);
    else if (line === `branch refs/heads/${branch}`) return current;
  }
  throw new Error(`no worktree of branch ${branch} in ${workspace}`);
}

/** The `data-chat-id` of a target. */
const chatId = (target: 'sidebar' | number): string => (target === 'sidebar' ? 'sidebar' : `editor-${target}`);

/** Where the webview actions look: the sidebar's visible webview while it is the only chat, else the target's frame. */
async function chatView(wb: Workbench, chats: ChatTargets, deadline: number): Promise<{ locator(selector: string): Locator }> {
  if (chats.editors === 0 && chats.target === 'sidebar') return wb.webview();
  return chatFrameShown(wb, chats, chatId(chats.target), Math.max(1, deadline - Date.now()));
}

/**
 * Chat `id`'s frame. With several editor-tab chats in one group only the active tab's page exists: when it is not
 * there, its tab ("Chat N", the chat's title) is clicked first.
 */
async function chatFrameShown(wb: Workbench, chats: ChatTargets, id: string, timeoutMs: number): Promise<Frame> {
  if (chats.editors < 2 || id === 'sidebar') return wb.chatFrame(id, timeoutMs);
  const deadline = Date.now() + timeoutMs;
  const shown = await wb.chatFrame(id, Math.min(2_000, timeoutMs)).catch(() => undefined);
  if (shown) return shown;
  const n = id.slice('editor-'.length);
  await wb.page
    .locator('.tabs-container .tab')
    .filter({ hasText: new RegExp(`\\bChat ${n}\\b`) })
    .first()
    .click({ timeout: Math.max(1, deadline - Date.now()) });
  return wb.chatFrame(id, Math.max(1, deadline - Date.now()));
}

export interface RunOptions {
  readonly scenario: Scenario;
  readonly prompt: string;
  readonly out: string;
  readonly actions?: readonly Action[];
  /** Bound on the run from sending the prompt to idle; default 60 s. */
  readonly timeoutMs?: number;
  /** Pi settings.json entries for this run (a slower retry to watch its countdown, say). */
  readonly piSettings?: Readonly<Record<string, unknown>>;
  /** VS Code user settings for this run (a colour theme, say). */
  readonly vscodeSettings?: Readonly<Record<string, unknown>>;
  /** A folder whose contents are copied into the workspace before the workbench opens it. */
  readonly files?: string;
  /** Make the workspace a Git repository with its files committed before the workbench opens it. */
  readonly git?: boolean;
  /** Start Pi with an agent dir without models, keys or a default model (a fresh install). */
  readonly emptyAgentDir?: boolean;
}

/** What result.json holds. */
export interface RunResult {
  readonly ok: boolean;
  readonly runState: string | null;
  readonly elapsedMs: number;
  readonly errors: string[];
  /** With editor-tab chats: every chat's state and the session file it shows. */
  readonly chats?: readonly { readonly id: string; readonly runState: string | null; readonly sessionFile: string | null; readonly worktree?: string }[];
}

/** A workbench that several runs share: one code-server with the extension installed, one browser. */
export interface Harness {
  readonly server: CodeServer;
  readonly browser: Browser;
  close(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The packaged extension at the repo root (`pi-agent-panel-<version>.vsix`), packaged first when missing or `rebuild`. */
export function packagedVsix(rebuild = false): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
  const vsix = path.join(REPO_ROOT, `${pkg.name}-${pkg.version}.vsix`);
  if (rebuild || !fs.existsSync(vsix)) {
    for (const script of ['build', 'package']) {
      process.stderr.write(`[e2e] npm run ${script}\n`);
      const r = spawnSync('npm', ['run', '--silent', script], { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
      if (r.status !== 0) throw new Error(`npm run ${script} failed`);
    }
    if (!fs.existsSync(vsix)) throw new Error(`npm run package did not produce ${vsix}`);
  }
  return vsix;
}

/**
 * User settings that open every folder in Restricted Mode: workspace trust on, no startup dialog (the
 * folder stays untrusted), untrusted files opened without asking.
 */
export const UNTRUSTED_SETTINGS: Readonly<Record<string, unknown>> = {
  'security.workspace.trust.enabled': true,
  'security.workspace.trust.startupPrompt': 'never',
  'security.workspace.trust.untrustedFiles': 'open',
  'security.workspace.trust.emptyWindow': false,
};

/**
 * Starts code-server with the extension installed, and a browser; `untrusted`: every folder opens in Restricted Mode;
 * `pathFirst`: folders put first on the extension hosts' (and so Pi's) PATH.
 */
export async function startHarness(vsix: string, options: { untrusted?: boolean; locale?: string; pathFirst?: readonly string[] } = {}): Promise<Harness> {
  const server = await startCodeServer({
    vsix: [vsix],
    ...(options.pathFirst ? { pathFirst: options.pathFirst } : {}),
    ...(options.locale ? { locale: options.locale } : {}),
    ...(options.untrusted ? { workspaceTrust: true, settings: UNTRUSTED_SETTINGS } : {}),
  });
  let browser: Browser;
  try {
    browser = await launchBrowser();
  } catch (err) {
    await server.stop();
    throw err;
  }
  return {
    server,
    browser,
    async close() {
      await browser.close();
      await server.stop();
    },
  };
}

/** The newest session file Pi persisted under the agent dir's sessions folder. */
function newestSessionFile(agentDir: string): string | undefined {
  const root = path.join(agentDir, 'sessions');
  if (!fs.existsSync(root)) return undefined;
  const files = (fs.readdirSync(root, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((d) => d.isFile() && d.name.endsWith('.jsonl'))
    .map((d) => path.join(d.parentPath, d.name));
  return files.sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
}

/** Every session file Pi persisted under the agent dir. */
function sessionFiles(agentDir: string): string[] {
  const root = path.join(agentDir, 'sessions');
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((d) => d.isFile() && d.name.endsWith('.jsonl'))
    .map((d) => path.join(d.parentPath, d.name));
}

/** The session a chat shows: the newest file whose first user message is in the chat's transcript text. */
function sessionOfChat(files: readonly string[], out: string, id: string): string | null {
  const txt = (() => {
    try {
      return fs.readFileSync(path.join(out, id === 'sidebar' ? 'panel.txt' : `chat-${id.slice('editor-'.length)}.txt`), 'utf8').replace(/\s+/g, ' ');
    } catch {
      return '';
    }
  })();
  const firstUser = (file: string): string | undefined => {
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      try {
        const m = (JSON.parse(line) as { message?: { role?: string; content?: unknown } }).message;
        if (m?.role !== 'user') continue;
        const c = m.content;
        const text = typeof c === 'string' ? c : Array.isArray(c) ? c.map((b: { text?: string }) => b.text ?? '').join('') : '';
        return text.replace(/\s+/g, ' ').trim();
      } catch {
        continue;
      }
    }
    return undefined;
  };
  const hits = files.filter((f) => {
    const u = firstUser(f);
    return u !== undefined && u !== '' && txt.includes(u);
  });
  return hits.sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0] ?? null;
}

let runCounter = 0;

/** Runs one scenario in the shared workbench and writes every output file (see the header) into `options.out`. */
export async function runScenario(harness: Harness, options: RunOptions): Promise<RunResult> {
  const out = path.resolve(options.out);
  fs.mkdirSync(out, { recursive: true });
  for (const f of [
    'panel.html',
    'panel.txt',
    'status.jsonl',
    'session.jsonl',
    'requests.jsonl',
    'notifications.jsonl',
    'files.json',
    'editors.json',
    'screenshot.png',
    'result.json',
    'console.jsonl',
    'pages.jsonl',
  ])
    fs.rmSync(path.join(out, f), { force: true });
  fs.writeFileSync(path.join(out, 'requests.jsonl'), '');
  const errors: string[] = [];
  const timeoutMs = options.timeoutMs ?? 60_000;
  const model = await startScriptedModel({ scenario: options.scenario, requestsFile: path.join(out, 'requests.jsonl') });
  const agentDir = options.emptyAgentDir ? emptyAgentDir(options.piSettings) : await makePiAgentDir({ baseUrl: model.url, settings: options.piSettings });
  // Each run gets its own workspace (so its own workspace storage) and agent dir, in the shared server.
  const workspace = path.join(harness.server.tempDir, `workspace-${++runCounter}`);
  fs.mkdirSync(workspace, { recursive: true });
  if (options.files) fs.cpSync(path.resolve(options.files), workspace, { recursive: true });
  if (options.git) commitWorkspace(workspace);
  harness.server.writeSettings({ 'piPanel.agentDir': agentDir, ...options.vscodeSettings });

  const page = await harness.browser.context.newPage();
  // Errors in the workbench page and every webview frame, for a failed case's post-mortem (`console.jsonl`).
  const consoleLog = fs.openSync(path.join(out, 'console.jsonl'), 'w');
  const logConsole = (kind: string, text: string, url: string) =>
    fs.writeSync(consoleLog, JSON.stringify({ t: new Date().toISOString(), kind, text: text.slice(0, 2000), url: url.slice(0, 200) }) + '\n');
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') logConsole(m.type(), m.text(), m.location().url);
  });
  page.on('pageerror', (e) => logConsole('pageerror', `${e.message}\n${e.stack ?? ''}`, page.url()));
  const wb = new Workbench(page);
  const statusStart = Date.now();
  const statusLog = fs.openSync(path.join(out, 'status.jsonl'), 'w');
  await wb.watchStatus((items) => {
    fs.writeSync(statusLog, JSON.stringify({ t: new Date().toISOString(), ms: Date.now() - statusStart, items }) + '\n');
  });
  const notificationLog = fs.openSync(path.join(out, 'notifications.jsonl'), 'w');
  const notifications: NotificationRecord[] = [];
  await watchNotifications(wb, (n) => {
    notifications.push(n);
    fs.writeSync(notificationLog, JSON.stringify({ t: new Date().toISOString(), ms: Date.now() - statusStart, ...n }) + '\n');
  });
  const pageLog = fs.openSync(path.join(out, 'pages.jsonl'), 'w');
  const pages: PageRecord[] = [];
  await watchPages(wb, (p) => {
    pages.push(p);
    fs.writeSync(pageLog, JSON.stringify({ t: new Date().toISOString(), ms: Date.now() - statusStart, ...p }) + '\n');
  });
  let runState: string | null = null;
  let elapsedMs = 0;
  const chats: ChatTargets = { target: 'sidebar', editors: 0, worktrees: {}, workspace, pages };
  let deadline = Date.now() + timeoutMs;
  let chatStates: { id: string; runState: string | null }[] = [];
  try {
    await wb.open(harness.server.workbenchUrl(workspace));
    await wb.openPiView();
    await wb.waitForWebview();
    const composer = wb.webview().locator('[data-testid="composer"]');
    await composer.fill(options.prompt);
    await latchBusy(wb);
    const sentAt = Date.now();
    deadline = sentAt + timeoutMs;
    await wb.webview().locator('[data-testid="send"]').click();
    for (const [i, action] of (options.actions ?? []).entries()) {
      try {
        await playAction(wb, action, deadline, out, model, notifications, chats);
      } catch (err) {
        errors.push(`action ${i} ${JSON.stringify(action)}: ${(err as Error).message.split('\n')[0]}`);
        break;
      }
    }
    if (chats.editors) {
      // Several chats: each must come to rest; the run's state is the first that did not.
      chatStates = await waitChatsIdle(wb, chats, deadline);
      runState = chatStates.find((c) => c.runState !== 'idle' && c.runState !== 'closed')?.runState ?? 'idle';
    } else runState = await waitIdle(wb, deadline);
    elapsedMs = Date.now() - sentAt;
    if (runState !== 'idle') errors.push(`run did not reach idle within ${timeoutMs} ms (data-run-state=${runState})`);
  } catch (err) {
    errors.push((err as Error).message.split('\n')[0]);
  }

  try {
    if (chats.editors) await collectChats(wb, chats, out);
    else await collect(wb, out);
  } catch (err) {
    errors.push(`collecting the panel: ${(err as Error).message.split('\n')[0]}`);
  }
  const pwned = await hostileTrace(wb);
  if (pwned) errors.push(`model output executed in the page: window.__pwned = ${JSON.stringify(pwned)}`);
  try {
    await wb.screenshot(path.join(out, 'screenshot.png'));
  } catch (err) {
    errors.push(`screenshot: ${(err as Error).message.split('\n')[0]}`);
  }
  if (options.emptyAgentDir) copyExtensionLog(harness.server.tempDir, path.join(out, 'extension-log.txt'));
  const files = workspaceFiles(workspace);
  fs.writeFileSync(path.join(out, 'files.json'), JSON.stringify(files, null, 2) + '\n');
  try {
    fs.writeFileSync(path.join(out, 'editors.json'), JSON.stringify(await openEditors(wb, Object.keys(files)), null, 2) + '\n');
  } catch (err) {
    fs.writeFileSync(path.join(out, 'editors.json'), '[]\n');
    errors.push(`editors: ${(err as Error).message.split('\n')[0]}`);
  }
  await page.close().catch(() => undefined);
  fs.closeSync(consoleLog);
  fs.closeSync(statusLog);
  fs.closeSync(notificationLog);
  fs.closeSync(pageLog);
  await model.close();
  // Pi writes the session file as the run goes; give the last append a moment after the page closed.
  await sleep(200);
  const agentDirSessions = sessionFiles(agentDir);
  const worktreeOf = (id: string) => chats.worktrees?.[Number(id.slice('editor-'.length))];
  const chatSessions = chats.editors
    ? chatStates.map((c) => {
        const worktree = worktreeOf(c.id);
        return { ...c, sessionFile: sessionOfChat(agentDirSessions, out, c.id), ...(worktree ? { worktree } : {}) };
      })
    : undefined;
  // A worktree chat's files, as files.json has the workspace's: none once its worktree was discarded.
  for (const [n, worktree] of Object.entries(chats.worktrees ?? {}))
    fs.writeFileSync(path.join(out, `chat-${n}.files.json`), JSON.stringify(fs.existsSync(worktree) ? workspaceFiles(worktree) : {}, null, 2) + '\n');
  // With several chats, session.jsonl is the sidebar's, as panel.txt is; editor chat N's goes to chat-N.session.jsonl.
  const session = chatSessions ? (chatSessions.find((c) => c.id === 'sidebar')?.sessionFile ?? undefined) : newestSessionFile(agentDir);
  for (const c of chatSessions ?? [])
    if (c.id !== 'sidebar' && c.sessionFile) fs.copyFileSync(c.sessionFile, path.join(out, `chat-${c.id.slice('editor-'.length)}.session.jsonl`));
  // Pi creates a session file only once it holds a user or assistant message: a run cancelled before Pi started,
  // or a lone `!` command, leaves none, and that is a valid result (an empty session.jsonl).
  if (session) fs.copyFileSync(session, path.join(out, 'session.jsonl'));
  else fs.writeFileSync(path.join(out, 'session.jsonl'), '');
  const result: RunResult = {
    ok: errors.length === 0 && runState === 'idle',
    runState,
    elapsedMs,
    errors,
    ...(chatSessions ? { chats: chatSessions } : {}),
  };
  fs.writeFileSync(path.join(out, 'result.json'), JSON.stringify(result, null, 2) + '\n');
  fs.rmSync(agentDir, { recursive: true, force: true });
  return result;
}

/** An agent dir as after a fresh install: no models.json, no auth.json, no default model; settings only keep Pi quiet offline. */
function emptyAgentDir(piSettings: Readonly<Record<string, unknown>> | undefined): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-agent-empty-'));
  const settings = { enableInstallTelemetry: false, cacheWarming: 'off', quietStartup: true, ...piSettings };
  fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify(settings, null, 2) + '\n');
  return dir;
}

/** Copies the extension's output channel log ("Pi Agent Panel") from code-server's logs, for checks that grep it. */
function copyExtensionLog(serverDir: string, to: string): void {
  const logs = (fs.readdirSync(serverDir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((d) => d.isFile() && d.name.endsWith('.log') && /Pi Agent Panel/i.test(d.name))
    .map((d) => fs.readFileSync(path.join(d.parentPath, d.name), 'utf8'));
  fs.writeFileSync(to, logs.join('\n'));
}

async function runStateOf(wb: Workbench): Promise<string | null> {
  return wb
    .webview()
    .locator('body')
    .getAttribute('data-run-state', { timeout: 2_000 })
    .catch(() => null);
}

/**
 * Records in the webview's page whether `data-run-state` has left `idle` since the call (a MutationObserver, so
 * no state is missed between two polls: a Cancel pressed while Pi is still starting goes idle -> starting -> idle
 * in well under one poll). Answers what it saw so far: true or false, or undefined where the page was replaced
 * (a reload) and has no latch yet; that call installs one.
 */
async function latchBusy(wb: Workbench): Promise<boolean | undefined> {
  return wb
    .webview()
    .locator('body')
    .evaluate(
      (body) => {
        // The tests' tsconfig has no DOM: the page's globals, typed as far as used here.
        type Observer = new (f: () => void) => { observe(target: unknown, options: object): void };
        const w = globalThis as unknown as { __e2eBusy?: boolean; MutationObserver: Observer };
        if (w.__e2eBusy !== undefined) return w.__e2eBusy;
        const busy = (): boolean => (body.getAttribute('data-run-state') ?? 'idle') !== 'idle';
        w.__e2eBusy = busy();
        new w.MutationObserver(() => {
          if (busy()) w.__e2eBusy = true;
        }).observe(body, { attributes: true, attributeFilter: ['data-run-state'] });
        return undefined;
      },
      undefined,
      { timeout: 2_000 },
    )
    .catch(() => undefined);
}

/**
 * Waits until the panel is idle after a run: idle after having been busy (seen by the page's latch or by a poll),
 * or idle with a finished assistant row or a notice. A run that ended before Pi wrote anything (Cancel while Pi
 * starts, a lone `!` command) is over as soon as it is idle again: no timeout is waited out. Returns the last run
 * state seen.
 */
async function waitIdle(wb: Workbench, deadline: number): Promise<string | null> {
  let sawBusy = false;
  let state: string | null = null;
  // At least one look, even when the actions used up the time.
  for (let first = true; first || Date.now() < deadline; first = false) {
    state = await runStateOf(wb);
    if (state !== null && state !== 'idle') sawBusy = true;
    if (state === 'idle') {
      const finished =
        sawBusy ||
        (await latchBusy(wb)) === true ||
        // What only a finished run leaves: a final reply, a notice, or a `!` command's row with its end (a lone
        // `!` run can start and end within one frame, so the page may never show it busy).
        (await wb
          .webview()
          .locator(
            '[data-role="assistant"][data-stop-reason], [data-role="notice"], [data-role="bash"][data-status="done"], [data-role="bash"][data-status="error"]',
          )
          .count()) > 0;
      if (finished) {
        // The last batch (stop reason, usage) may trail the idle state by a frame.
        await sleep(300);
        state = await runStateOf(wb);
        if (state === 'idle') return state;
      }
    }
    await sleep(100);
  }
  return state;
}

/** A case's pattern: a regular expression, case-insensitive when it starts with `(?i)` (as in the checker). */
function casePattern(source: string): RegExp {
  return source.startsWith('(?i)') ? new RegExp(source.slice(4), 'i') : new RegExp(source);
}

/** Polls `read` until one of its records, as JSON, matches `pattern`. */
async function waitForRecord(what: string, pattern: string, read: () => Promise<readonly unknown[]>, deadline: number): Promise<void> {
  const re = casePattern(pattern);
  while (true) {
    const records = await read().catch(() => [] as unknown[]);
    if (records.some((r) => re.test(JSON.stringify(r)))) return;
    if (Date.now() >= deadline) throw new Error(`no ${what} matching ${JSON.stringify(pattern)} appeared`);
    await sleep(100);
  }
}

async function playAction(
  wb: Workbench,
  action: Action,
  deadline: number,
  out: string,
  model: ScriptedModel,
  notifications: readonly NotificationRecord[],
  chats: ChatTargets = { target: 'sidebar', editors: 0 },
): Promise<void> {
  const remaining = (): number => Math.max(1, deadline - Date.now());
  const view = () => chatView(wb, chats, deadline);
  if ('waitForNotification' in action) {
    await waitForRecord('notification', action.waitForNotification, async () => notifications, deadline);
  } else if ('waitForEditor' in action) {
    await waitForRecord('editor tab', action.waitForEditor, () => openEditors(wb, []), deadline);
  } else if ('waitForBadge' in action) {
    const badge = wb.page.locator('.activitybar li:has(a.action-label[aria-label^="Pi"]) .badge-content').first();
    while ((await badge.innerText({ timeout: 1_000 }).catch(() => '')).trim() !== action.waitForBadge) {
      if (Date.now() >= deadline) throw new Error(`the Pi icon never showed the badge ${JSON.stringify(action.waitForBadge)}`);
      await sleep(100);
    }
  } else if ('waitForPicture' in action) {
    const id = chatId(chats.target);
    const want = fold(action.waitForPicture);
    while (!(chats.pages ?? []).some((p) => p.kind === 'picture' && p.chat === id && fold(p.text).includes(want))) {
      if (Date.now() >= deadline) throw new Error(`the chat ${id} never saved a picture holding ${JSON.stringify(action.waitForPicture)}`);
      await sleep(100);
    }
  } else if ('waitForTreeItem' in action) {
    await waitForTreeItem(wb, action.view, action.waitForTreeItem, deadline);
  } else if ('waitForTerminal' in action) {
    await waitForTerminalText(wb, action.waitForTerminal, deadline);
  } else if ('waitFor' in action) {
    await (await view()).locator(action.waitFor).first().waitFor({ state: 'attached', timeout: remaining() });
  } else if ('waitForText' in action) {
    while (true) {
      const text = await (
        await view()
      )
        .locator('[data-testid="transcript"]')
        .innerText({ timeout: remaining() })
        .catch(() => '');
      if (text.includes(action.waitForText)) return;
      if (Date.now() >= deadline) throw new Error(`text ${JSON.stringify(action.waitForText)} never appeared`);
      await sleep(100);
    }
  } else if ('sleepMs' in action) {
    await sleep(action.sleepMs);
  } else {
    switch (action.do) {
      case 'cancel':
        await wb.runCommand('Pi: Cancel Run');
        return;
      case 'newChat': {
        // From now on focus leaves a webview by a blur: a click on the editor area would activate a chat's tab.
        wb.blurToFocusWorkbench = true;
        await runCommandById(wb, action.worktree ? 'piPanel.newChatInWorktree' : 'piPanel.newChat', remaining());
        chats.editors++;
        chats.target = chats.editors;
        await (await view()).locator('[data-testid="transcript"]').first().waitFor({ state: 'attached', timeout: remaining() });
        if (action.worktree) {
          const branch = await (await view()).locator('body').getAttribute('data-worktree', { timeout: remaining() });
          if (!branch || !chats.workspace) throw new Error('the new chat is not a worktree chat (no data-worktree)');
          (chats.worktrees ??= {})[chats.editors] = worktreeOfBranch(chats.workspace, branch);
        }
        return;
      }
      case 'target':
        if (action.chat !== 'sidebar' && !(Number.isInteger(action.chat) && action.chat >= 1)) throw new Error(`no chat ${JSON.stringify(action.chat)}`);
        chats.target = action.chat;
        return;
      case 'pick':
        await wb.page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: action.text }).first().click({ timeout: remaining() });
        return;
      case 'input': {
        const box = wb.page.locator('.quick-input-widget .quick-input-box input');
        const text = action.text.replaceAll('${modelUrl}', model.url);
        await box.waitFor({ state: 'visible', timeout: remaining() });
        await box.fill(text, { timeout: remaining() });
        await box.press('Enter', { timeout: remaining() });
        // Until this box has gone (or the next one, empty, took its place): the next action types into the next box.
        while ((await box.isVisible().catch(() => false)) && (await box.inputValue({ timeout: 1_000 }).catch(() => '')) === text) {
          if (Date.now() >= deadline) throw new Error('the input box did not take the text');
          await sleep(100);
        }
        return;
      }
      case 'cancelButton':
        await (await view()).locator('[data-testid="cancel"]').click({ timeout: remaining() });
        return;
      case 'steer':
      case 'followUp':
      case 'send':
        await (await view()).locator('[data-testid="composer"]').fill(action.text, { timeout: remaining() });
        await (await view()).locator(`[data-testid="${action.do}"]`).click({ timeout: remaining() });
        return;
      case 'type': {
        const composer = (await view()).locator('[data-testid="composer"]');
        await composer.fill((await composer.inputValue({ timeout: remaining() })) + action.text, { timeout: remaining() });
        return;
      }
      case 'command':
        await runCommandById(wb, action.id, remaining());
        return;
      case 'find': {
        await runCommandById(wb, 'piPanel.find', remaining());
        const box = (await view()).locator('[data-testid="find"]');
        await box.waitFor({ state: 'visible', timeout: remaining() });
        await box.fill(action.text, { timeout: remaining() });
        return;
      }
      case 'answer':
        await (
          await view()
        )
          .locator(`[data-testid="dialog"]:not([data-answered]) button[data-choice=${JSON.stringify(action.choice)}]`)
          .first()
          .click({ timeout: remaining() });
        return;
      case 'click':
        await (await view()).locator(action.selector).first().click({ timeout: remaining() });
        return;
      case 'hideView':
        await wb.hidePiView();
        return;
      case 'showView':
        // Through Pi: Focus Chat, as a user coming back does: the activity-bar icon's label changes while it
        // carries a badge (a chat that finished out of sight), and clicking it timed out in CI.
        await runCommandById(wb, 'piPanel.focusChat', remaining());
        await wb.waitForWebview(undefined, remaining());
        return;
      case 'reloadWindow': {
        // Developer: Reload Window, as a user reloads: VS Code saves its layout (the open chat tabs) before it
        // reloads. A bare page reload leaves that to the unload handler, and under load the tabs were lost.
        const main = wb.page.mainFrame();
        const navigated = wb.page.waitForEvent('framenavigated', { predicate: (f) => f === main, timeout: remaining() });
        await wb.runCommand('Developer: Reload Window');
        await navigated;
        await wb.page.waitForLoadState('domcontentloaded', { timeout: remaining() });
        await wb.waitReady(remaining());
        await wb.ensurePiViewShown(remaining());
        await wb.waitForWebview(undefined, remaining());
        return;
      }
      case 'release':
        model.release(action.gate);
        return;
      case 'showTab':
        await showTab(wb, chats, action.chat, action.picture, deadline);
        return;
      case 'attachImage': {
        const chips = (await view()).locator('[data-testid="composer-images"] [data-image-index]');
        const before = await chips.count();
        await (await view()).locator('[data-testid="image-input"]').setInputFiles(path.resolve(REPO_ROOT, action.path), { timeout: remaining() });
        await chips.nth(before).waitFor({ state: 'attached', timeout: remaining() });
        return;
      }
      case 'terminal':
        await typeInTerminal(wb, action.text, () => runCommandById(wb, 'workbench.action.terminal.new', remaining()), deadline);
        return;
      case 'openFile':
        await openFileAt(wb, action.path, action.line, action.column, deadline);
        return;
      case 'quickFix':
        await chooseQuickFix(wb, action.title, deadline);
        return;
      case 'treeItem':
        await clickTreeItem(wb, action.view, action.text, action.action, deadline);
        return;
      case 'sidebarWidth':
        await wb.resizeSidebar(action.width, remaining());
        return;
      case 'screenshot':
        await wb.screenshot(path.join(out, `${action.name.replace(/[^\w.-]/g, '_')}.png`));
        return;
      default: {
        const never: never = action;
        throw new Error(`unknown action ${JSON.stringify(never)}`);
      }
    }
  }
}

/** The palette title (`Pi: New Session`) of one of this extension's commands, to pick its row exactly. */
function commandTitle(id: string): string | undefined {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
    contributes?: { commands?: { command: string; title: string; category?: string }[] };
  };
  const c = pkg.contributes?.commands?.find((x) => x.command === id);
  if (!c) return undefined;
  // Localized manifest strings are `%key%`: the palette's English title is in package.nls.json.
  const nls = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.nls.json'), 'utf8')) as Record<string, string>;
  const english = (text: string) => text.replace(/^%(.+)%$/, (whole, key: string) => nls[key] ?? whole);
  const title = english(c.title);
  return c.category ? `${english(c.category)}: ${title}` : title;
}

/** Runs a command by id through the command palette, which matches a typed id exactly. */
async function runCommandById(wb: Workbench, id: string, timeoutMs: number): Promise<void> {
  const title = commandTitle(id);
  if (title) return wb.runCommand(title);
  const page = wb.page;
  await wb.typeInQuickInput(`>${id}`, Math.min(timeoutMs, 30_000));
  await page
    .locator('.quick-input-list .monaco-list-row')
    .first()
    .waitFor({ state: 'visible', timeout: Math.min(timeoutMs, 10_000) });
  await page.keyboard.press('Enter');
  await page
    .locator('.quick-input-widget')
    .waitFor({ state: 'hidden', timeout: 5_000 })
    .catch(() => undefined);
}

/** One VS Code notification as notifications.jsonl records it. */
export interface NotificationRecord {
  readonly severity: 'error' | 'warning' | 'info';
  readonly text: string;
  readonly buttons: string[];
  /** Targets of links rendered in the message (a `command:` one would run a command when clicked). */
  readonly links: string[];
  readonly source: string;
}

/** In the page: reports each notification (toast or center entry) once, across reloads. */
function installNotificationObserver(): void {
  type El = {
    readonly textContent: string | null;
    readonly className: string;
    querySelector(s: string): El | null;
    querySelectorAll(s: string): ArrayLike<El>;
    getAttribute(n: string): string | null;
  };
  const g = globalThis as unknown as {
    __piNotification?: (json: string) => void;
    __piNotificationsSeen?: Set<string>;
    document: El & { body: unknown };
    MutationObserver: new (cb: () => void) => { observe(n: unknown, o: unknown): void };
    requestAnimationFrame(cb: () => void): number;
  };
  if (g.__piNotificationsSeen) return;
  const seen = (g.__piNotificationsSeen = new Set<string>());
  let queued = false;
  const scan = () => {
    queued = false;
    for (const item of Array.from(g.document.querySelectorAll('.notification-list-item'))) {
      const icon = item.querySelector('.notification-list-item-icon')?.className ?? '';
      const severity = /error/.test(icon) ? 'error' : /warning/.test(icon) ? 'warning' : 'info';
      const text = (item.querySelector('.notification-list-item-message')?.textContent ?? '').trim();
      if (!text) continue;
      const buttons = Array.from(item.querySelectorAll('.notification-list-item-buttons-container .monaco-button')).map((b) => (b.textContent ?? '').trim());
      const links = Array.from(item.querySelectorAll('.notification-list-item-message a')).map(
        (a) => a.getAttribute('href') ?? a.getAttribute('data-href') ?? '',
      );
      const source = (item.querySelector('.notification-list-item-source')?.textContent ?? '').trim();
      const key = JSON.stringify([severity, text, buttons]);
      if (seen.has(key)) continue;
      seen.add(key);
      g.__piNotification?.(JSON.stringify({ severity, text, buttons, links, source }));
    }
  };
  const observer = new g.MutationObserver(() => {
    if (!queued) {
      queued = true;
      g.requestAnimationFrame(scan);
    }
  });
  const start = () => observer.observe(g.document.body, { subtree: true, childList: true, characterData: true });
  if (g.document.body) start();
  else (globalThis as unknown as { addEventListener(t: string, f: () => void): void }).addEventListener('DOMContentLoaded', start);
}

/**
 * Clicks editor chat N's tab (its title is the chat's label, "Chat N") and waits for its page; it becomes the target.
 * With `picture`: the page VS Code made for this show must hold a saved picture with that text in its HTML, which
 * paints before the page's script runs, and the live rows must then take the picture's place.
 */
async function showTab(wb: Workbench, chats: ChatTargets, n: number, picture: string | undefined, deadline: number): Promise<void> {
  const remaining = (): number => Math.max(1, deadline - Date.now());
  if (!(Number.isInteger(n) && n >= 1 && n <= chats.editors)) throw new Error(`no editor chat ${JSON.stringify(n)}`);
  const id = chatId(n);
  const made = () => (chats.pages ?? []).filter((p) => p.kind === 'page' && p.chat === id);
  const before = made().length;
  chats.target = n;
  await wb.page
    .locator('.part.editor .tabs-container .tab')
    .filter({ hasText: new RegExp(`\\bChat ${n}\\b`) })
    .first()
    .click({ timeout: remaining() });
  if (picture === undefined) {
    await wb.chatFrame(id, remaining());
    return;
  }
  // The host puts the picture into the hidden tab's HTML when it hears of the hide. When the tab is shown again before
  // that HTML has reached the workbench (a slow extension host), VS Code makes the page from the old HTML, then again
  // when the new HTML arrives: the first page since the show that holds a picture is the one checked.
  const withPicture = (): string | undefined => {
    for (const p of made().slice(before)) if (p.kind === 'page' && p.picture !== null) return p.picture;
    return undefined;
  };
  let shown: string | undefined;
  while ((shown = withPicture()) === undefined) {
    if (Date.now() >= deadline) {
      const count = made().length - before;
      throw new Error(
        count
          ? `the page VS Code made for the chat ${id} held no saved picture (${count} page(s) made since its tab was shown)`
          : `VS Code made no new page for the chat ${id} when its tab was shown again`,
      );
    }
    await sleep(100);
  }
  if (!fold(shown).includes(fold(picture)))
    throw new Error(`the saved picture in the chat ${id}'s page lacks ${JSON.stringify(picture)} (it holds ${JSON.stringify(shown.slice(-200))})`);
  // The picture is the page's `.saved-render` (webview/savedRender.ts) until the first live render takes it away. The
  // chat's frame is looked up each time: a page made again replaces it.
  const live = async (): Promise<boolean> => {
    const frame = await wb.chatFrame(id, remaining());
    return (await frame.locator('.saved-render').count()) === 0 && (await frame.locator('[data-testid="transcript"] [data-role]').count()) > 0;
  };
  while (!(await live().catch(() => false))) {
    if (Date.now() >= deadline) throw new Error(`the live rows never took the saved picture's place in the chat ${id}`);
    await sleep(100);
  }
}

/** Reports each chat page VS Code writes and each saved picture a page sends (test/e2e/chatPages.ts), in every frame. */
async function watchPages(wb: Workbench, onPage: (p: PageRecord) => void): Promise<void> {
  await wb.page.exposeFunction(PAGE_BINDING, (json: string) => onPage(JSON.parse(json) as PageRecord));
  await wb.page.addInitScript(pageWatcherScript());
}

async function watchNotifications(wb: Workbench, onNotification: (n: NotificationRecord) => void): Promise<void> {
  await wb.page.exposeFunction('__piNotification', (json: string) => onNotification(JSON.parse(json) as NotificationRecord));
  const script = `(${installNotificationObserver.toString()})()`;
  await wb.page.addInitScript(script);
  await wb.page.evaluate(script).catch(() => undefined);
}

/** Every file in the workspace, as relative path (with `/`) -> sha256 hex; `.git/` is left out. */
export function workspaceFiles(workspace: string): Record<string, string> {
  const files: Record<string, string> = {};
  const entries = fs.readdirSync(workspace, { recursive: true, withFileTypes: true }) as fs.Dirent[];
  for (const d of entries) {
    if (!d.isFile()) continue;
    const rel = path.relative(workspace, path.join(d.parentPath, d.name)).split(path.sep).join('/');
    if (rel === '.git' || rel.startsWith('.git/')) continue;
    files[rel] = createHash('sha256')
      .update(fs.readFileSync(path.join(workspace, rel)))
      .digest('hex');
  }
  return Object.fromEntries(Object.entries(files).sort(([a], [b]) => a.localeCompare(b)));
}

/** One open editor tab as editors.json records it. */
export interface EditorTab {
  readonly label: string;
  /** `diff` for a diff editor (its label joins two names with ↔), else `text`. */
  readonly kind: 'text' | 'diff';
  readonly active: boolean;
  /** Workspace files the tab shows, matched by the file name the tab carries (`data-resource-name`). */
  readonly resources: string[];
  readonly description: string;
}

/** The workbench's open editor tabs, in order. */
async function openEditors(wb: Workbench, workspaceFilePaths: readonly string[]): Promise<EditorTab[]> {
  const tabs = await wb.page.evaluate(() => {
    type El = {
      readonly textContent: string | null;
      readonly classList: { contains(c: string): boolean };
      querySelector(s: string): El | null;
      getAttribute(n: string): string | null;
    };
    const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<El> } }).document;
    return Array.from(doc.querySelectorAll('.part.editor .tabs-container .tab')).map((tab) => ({
      label: (tab.querySelector('.label-name')?.textContent ?? '').trim(),
      aria: tab.getAttribute('aria-label') ?? '',
      name: tab.getAttribute('data-resource-name') ?? '',
      description: (tab.querySelector('.label-description')?.textContent ?? '').trim(),
      active: tab.classList.contains('active'),
    }));
  });
  return tabs.map((t) => ({
    label: t.label || t.aria,
    kind: /↔/.test(`${t.label} ${t.aria}`) ? 'diff' : 'text',
    active: t.active,
    resources: t.name ? workspaceFilePaths.filter((p) => p === t.name || p.endsWith(`/${t.name}`)) : [],
    description: t.description,
  }));
}

/** A worktree chat whose worktree is gone: Discard closed its tab (runState `closed`, no chat-N.txt). */
function discarded(chats: ChatTargets, id: string): boolean {
  const worktree = chats.worktrees?.[Number(id.slice('editor-'.length))];
  return worktree !== undefined && !fs.existsSync(worktree);
}

/** With several chats: waits until each one is idle (two looks apart, so a trailing batch lands); each chat's last state. */
async function waitChatsIdle(wb: Workbench, chats: ChatTargets, deadline: number): Promise<{ id: string; runState: string | null }[]> {
  const ids = ['sidebar', ...Array.from({ length: chats.editors }, (_, i) => `editor-${i + 1}`)];
  const states: { id: string; runState: string | null }[] = [];
  for (const id of ids) {
    if (discarded(chats, id)) {
      states.push({ id, runState: 'closed' });
      continue;
    }
    let state: string | null = null;
    for (let first = true; first || Date.now() < deadline; first = false) {
      const frame = await chatFrameShown(wb, chats, id, Math.max(1, deadline - Date.now())).catch(() => undefined);
      const runState = async () =>
        frame
          ? await frame
              .locator('body')
              .getAttribute('data-run-state', { timeout: 2_000 })
              .catch(() => null)
          : null;
      state = await runState();
      if (state === 'idle') {
        await sleep(300);
        state = await runState();
        if (state === 'idle') break;
      }
      await sleep(100);
    }
    states.push({ id, runState: state });
  }
  return states;
}

/** With several chats: the sidebar's transcript into panel.html / panel.txt, editor chat N's into chat-N.html / chat-N.txt. */
async function collectChats(wb: Workbench, chats: ChatTargets, out: string): Promise<void> {
  for (const target of ['sidebar' as const, ...Array.from({ length: chats.editors }, (_, i) => i + 1)]) {
    if (discarded(chats, chatId(target))) continue;
    const frame = await chatFrameShown(wb, chats, chatId(target), 10_000);
    const transcript = frame.locator('[data-testid="transcript"]');
    const name = target === 'sidebar' ? 'panel' : `chat-${target}`;
    fs.writeFileSync(path.join(out, `${name}.html`), await transcript.evaluate((el) => el.outerHTML, undefined, { timeout: 10_000 }));
    fs.writeFileSync(path.join(out, `${name}.txt`), await transcript.innerText({ timeout: 10_000 }));
  }
}

/** Writes panel.html and panel.txt from the transcript root (re-opening the view if an action hid it). */
async function collect(wb: Workbench, out: string): Promise<void> {
  const transcript = wb.webview().locator('[data-testid="transcript"]');
  if ((await transcript.count().catch(() => 0)) === 0) {
    await wb.openPiView();
    await wb.waitForWebview();
  }
  fs.writeFileSync(path.join(out, 'panel.html'), await transcript.evaluate((el) => el.outerHTML, undefined, { timeout: 10_000 }));
  fs.writeFileSync(path.join(out, 'panel.txt'), await transcript.innerText({ timeout: 10_000 }));
  // Beyond the base output files: what the composer holds (cancel puts queued texts back there).
  const composer = wb.webview().locator('[data-testid="composer"]');
  fs.writeFileSync(path.join(out, 'composer.txt'), await composer.inputValue({ timeout: 5_000 }).catch(() => ''));
}

/** Hostile scenarios set `window.__pwned` if any of their markup runs; report it wherever it ran. */
async function hostileTrace(wb: Workbench): Promise<string | undefined> {
  const inWebview = await wb
    .webview()
    .locator('body')
    .evaluate(() => (globalThis as unknown as { __pwned?: unknown }).__pwned, undefined, { timeout: 5_000 })
    .catch(() => undefined);
  const inPage = await wb.page.evaluate(() => (globalThis as unknown as { __pwned?: unknown }).__pwned).catch(() => undefined);
  const hit = inWebview ?? inPage;
  return hit === undefined || hit === null ? undefined : String(hit);
}

/** Reads a case's scenario: a path (relative to `base`) or an inline scenario object. */
export async function resolveScenario(value: unknown, base: string): Promise<Scenario> {
  if (typeof value === 'string') return loadScenario(path.resolve(base, value));
  return validateScenario(value, 'scenario');
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      scenario: { type: 'string' },
      prompt: { type: 'string' },
      out: { type: 'string' },
      actions: { type: 'string' },
      'timeout-ms': { type: 'string' },
      vsix: { type: 'string' },
      files: { type: 'string' },
      settings: { type: 'string' },
      untrusted: { type: 'boolean' },
      git: { type: 'boolean' },
      locale: { type: 'string' },
      'empty-agent-dir': { type: 'boolean' },
    },
  });
  if (!values.scenario || values.prompt === undefined || !values.out) {
    console.error(
      'usage: npm run e2e:run -- --scenario FILE.json --prompt TEXT --out DIR [--actions ACTIONS.json] [--timeout-ms N] [--vsix FILE] [--files DIR] [--settings FILE] [--untrusted] [--git] [--locale LANG] [--empty-agent-dir]',
    );
    return 2;
  }
  const scenario = await loadScenario(path.resolve(values.scenario));
  const actions = values.actions ? (JSON.parse(fs.readFileSync(values.actions, 'utf8')) as Action[]) : [];
  const vsix = values.vsix ? path.resolve(values.vsix) : packagedVsix();
  const started = Date.now();
  const vscodeSettings = values.settings ? (JSON.parse(fs.readFileSync(values.settings, 'utf8')) as Record<string, unknown>) : undefined;
  if (values.files && !fs.statSync(values.files).isDirectory()) throw new Error(`--files ${values.files} is not a folder`);
  const harness = await startHarness(vsix, { untrusted: values.untrusted === true, ...(values.locale ? { locale: values.locale } : {}) });
  try {
    const result = await runScenario(harness, {
      scenario,
      prompt: values.prompt,
      out: values.out,
      actions,
      timeoutMs: values['timeout-ms'] ? Number(values['timeout-ms']) : undefined,
      vscodeSettings,
      files: values.files,
      git: values.git === true,
      emptyAgentDir: values['empty-agent-dir'] === true,
    });
    console.log(
      `${result.ok ? 'ok' : 'FAILED'}: runState=${result.runState} elapsedMs=${result.elapsedMs} (total ${Date.now() - started} ms) -> ${path.resolve(values.out)}`,
    );
    for (const e of result.errors) console.log(`  error: ${e}`);
    return result.ok ? 0 : 1;
  } finally {
    await harness.close();
  }
}

if (import.meta.main) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof Error ? err.stack : err);
      process.exit(1);
    },
  );
}
