/** Starts code-server offline and isolated (throwaway HOME, user data, extensions, TMPDIR) and stops all it started. */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { onExitCleanup } from './cleanup.ts';
import { ensureCodeServer } from './install.ts';
import { languagePackVsix } from './languagePack.ts';
import type { CodeServerInstall } from './install.ts';

/** User settings that keep the workbench quiet and offline (see WORKBENCH.md). */
export const QUIET_SETTINGS: Readonly<Record<string, unknown>> = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'chat.disableAIFeatures': true,
  'git.enabled': false,
  'security.workspace.trust.enabled': false,
  'window.restoreWindows': 'none',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

export interface CodeServerOptions {
  /** Folder the workbench opens by default; a fresh empty folder when absent. */
  readonly workspace?: string;
  /** Packaged extensions to install into the throwaway extensions dir before starting. */
  readonly vsix?: readonly string[];
  /** Extra environment for the server, and so for every extension host it starts (but PATH: see `pathFirst`). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Folders put first on the extension hosts' PATH (a tool Pi runs, say). The server gives an extension host the
   * environment of the user's login shell, whose /etc/profile sets PATH afresh: the folders go into the throwaway
   * HOME's ~/.profile, as a user's own would.
   */
  readonly pathFirst?: readonly string[];
  /** Extra user settings, merged over {@link QUIET_SETTINGS}. */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** `--vscode-option enable-smoke-test-driver`: lets extensionTestsPath report through `codeAutomationExit`. */
  readonly smokeTestDriver?: boolean;
  /** Leave workspace trust on (no `--disable-workspace-trust`), for runs in Restricted Mode. */
  readonly workspaceTrust?: boolean;
  /**
   * Display language (code-server's `--locale`, e.g. `zh-cn`, `vi`); a stub language pack for it is installed
   * first (test/workbench/languagePack.ts), as VS Code ignores a locale it has no pack for.
   */
  readonly locale?: string;
  /** Echo the server's output to stderr (it always goes to `<tempDir>/code-server.log`). */
  readonly verbose?: boolean;
}

/** A running code-server. */
export interface CodeServer {
  readonly url: string;
  readonly port: number;
  readonly workspace: string;
  /** Root of every throwaway folder of this server (removed by `stop()`). */
  readonly tempDir: string;
  readonly userDataDir: string;
  readonly extensionsDir: string;
  readonly logFile: string;
  /** URL of the workbench on a folder, with optional extra query parameters. */
  workbenchUrl(folder?: string, query?: Readonly<Record<string, string>>): string;
  /** Rewrites the user settings (quiet settings + the given ones); a workbench loaded afterwards sees them. */
  writeSettings(settings: Readonly<Record<string, unknown>>): void;
  /** Stops the server's whole process group and removes its temp dir. Idempotent. */
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function isolatedEnv(tempDir: string, extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const home = path.join(tempDir, 'home');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_RUNTIME_DIR: path.join(tempDir, 'run'),
    TMPDIR: path.join(tempDir, 'tmp'),
    EXTENSIONS_GALLERY: '{}',
    ...extra,
  };
  // Variables that would make code-server or the extension host behave unlike a user's.
  for (const k of ['PASSWORD', 'HASHED_PASSWORD', 'VSCODE_PROXY_URI', 'ELECTRON_RUN_AS_NODE', 'VSCODE_IPC_HOOK_CLI', 'NODE_OPTIONS']) {
    if (!(k in extra)) delete env[k];
  }
  return env;
}

/** A ~/.profile that puts `dirs` first on PATH, each taken literally (quoted for the shell). */
export function pathFirstProfile(dirs: readonly string[]): string {
  const first = dirs.map((d) => `'${d.replaceAll("'", `'\\''`)}'`).join(':');
  return `export PATH=${first}:"$PATH"\n`;
}

function makeDirs(tempDir: string): void {
  for (const d of ['home/.config', 'home/.local/share', 'home/.cache', 'run', 'tmp', 'user-data/User', 'extensions']) {
    fs.mkdirSync(path.join(tempDir, d), { recursive: true, mode: 0o700 });
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** Installs a packaged extension into a code-server extensions dir (offline). */
export function installVsix(install: CodeServerInstall, vsix: string, dirs: { extensionsDir: string; userDataDir: string; tempDir: string }): void {
  const r = spawnSync(
    install.node,
    [install.entry, '--install-extension', path.resolve(vsix), '--force', '--extensions-dir', dirs.extensionsDir, '--user-data-dir', dirs.userDataDir],
    { env: isolatedEnv(dirs.tempDir), encoding: 'utf8', timeout: 120_000 },
  );
  if (r.status !== 0) throw new Error(`installing ${vsix} failed: ${r.error?.message ?? ''}${r.stdout}${r.stderr}`);
}

async function waitHealthy(url: string, child: ChildProcess, logFile: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`code-server exited (${child.exitCode ?? child.signalCode}) before listening; log:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`);
    }
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`code-server did not answer /healthz within ${timeoutMs} ms; log:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`);
}

/**
 * The server reads the installed language packs from `<user-data>/languagepacks.json`, which the desktop app
 * writes as packs are installed but `--install-extension` does not: write it for the stub pack.
 */
function writeLanguagePacks(userDataDir: string, extensionsDir: string, locale: string): void {
  const folder = fs.readdirSync(extensionsDir).find((f) => f.startsWith(`pi-panel-test.pi-panel-test-language-pack-${locale}-`));
  if (!folder) throw new Error(`the ${locale} language pack was not installed into ${extensionsDir}`);
  const packs = {
    [locale]: {
      hash: `stub${locale.replace(/[^a-z]/g, '')}0001`,
      extensions: [{ extensionIdentifier: { id: `pi-panel-test.pi-panel-test-language-pack-${locale}` }, version: '0.0.1' }],
      translations: { vscode: path.join(extensionsDir, folder, 'translations', 'main.i18n.json') },
      label: locale,
    },
  };
  fs.writeFileSync(path.join(userDataDir, 'languagepacks.json'), JSON.stringify(packs));
}

/** Installs code-server if needed, then starts it isolated on a free loopback port. */
export async function startCodeServer(options: CodeServerOptions = {}): Promise<CodeServer> {
  const install = ensureCodeServer();
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-panel-code-server-'));
  let unregister = onExitCleanup(() => fs.rmSync(tempDir, { recursive: true, force: true }));
  makeDirs(tempDir);
  if (options.pathFirst?.length) fs.writeFileSync(path.join(tempDir, 'home', '.profile'), pathFirstProfile(options.pathFirst));
  const userDataDir = path.join(tempDir, 'user-data');
  const extensionsDir = path.join(tempDir, 'extensions');
  const logFile = path.join(tempDir, 'code-server.log');
  const configFile = path.join(tempDir, 'config.yaml');
  fs.writeFileSync(configFile, '');
  const workspace = options.workspace ?? path.join(tempDir, 'workspace');
  fs.mkdirSync(workspace, { recursive: true });

  const writeSettings = (settings: Readonly<Record<string, unknown>>): void => {
    const json = JSON.stringify({ ...QUIET_SETTINGS, ...options.settings, ...settings }, null, 2);
    fs.writeFileSync(path.join(userDataDir, 'User', 'settings.json'), json);
    // code-server is a remote window: machine-scoped settings are read from the remote's Machine settings.
    fs.mkdirSync(path.join(userDataDir, 'Machine'), { recursive: true });
    fs.writeFileSync(path.join(userDataDir, 'Machine', 'settings.json'), json);
  };
  writeSettings({});
  const locale = options.locale && options.locale !== 'en' ? options.locale : undefined;
  if (locale) {
    installVsix(install, languagePackVsix(locale), { extensionsDir, userDataDir, tempDir });
    writeLanguagePacks(userDataDir, extensionsDir, locale);
  }
  for (const vsix of options.vsix ?? []) installVsix(install, vsix, { extensionsDir, userDataDir, tempDir });

  const port = await freePort();
  const args = [
    install.entry,
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--auth',
    'none',
    '--user-data-dir',
    userDataDir,
    '--extensions-dir',
    extensionsDir,
    '--config',
    configFile,
    '--disable-telemetry',
    '--disable-update-check',
    ...(options.workspaceTrust ? [] : ['--disable-workspace-trust']),
    '--disable-getting-started-override',
    '--ignore-last-opened',
    // Without a short grace time every closed page leaves an extension host running for hours.
    '--reconnection-grace-time',
    '5',
    ...(options.smokeTestDriver ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
    ...(locale ? ['--locale', locale] : []),
    workspace,
  ];
  const log = fs.openSync(logFile, 'a');
  // detached: its own process group, so stop() reaches the extension hosts and pty hosts too.
  const child = spawn(install.node, args, { cwd: workspace, env: isolatedEnv(tempDir, options.env), detached: true, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  unregister();
  unregister = onExitCleanup(() => {
    killGroup(child, 'SIGKILL');
    fs.rmSync(tempDir, { recursive: true, force: true });
  });
  if (options.verbose) {
    const tail = spawn('tail', ['-n', '+1', '-f', logFile], { stdio: ['ignore', process.stderr, 'ignore'] });
    child.once('exit', () => tail.kill());
  }

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      killGroup(child, 'SIGTERM');
      const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => child.once('exit', () => r()));
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      // Stragglers in the group (extension hosts in their grace time) go too.
      killGroup(child, 'SIGKILL');
      fs.rmSync(tempDir, { recursive: true, force: true, maxRetries: 3 });
      unregister();
    })();
    return stopped;
  };

  const url = `http://127.0.0.1:${port}`;
  try {
    await waitHealthy(url, child, logFile, 30_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url,
    port,
    workspace,
    tempDir,
    userDataDir,
    extensionsDir,
    logFile,
    workbenchUrl(folder = workspace, query = {}) {
      const q = new URLSearchParams({ folder, ...query });
      return `${url}/?${q.toString()}`;
    },
    writeSettings,
    stop,
  };
}
