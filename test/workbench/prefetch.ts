/**
 * Starts the workbench's install (code-server and its Node: WORKBENCH.md, `install.ts`) in the background, so that
 * on a fresh machine it overlaps the test stages that do not need it (lint, types, unit, SDK, webview); the first
 * stage that does waits for it (`ensureCodeServer`). Debian packages are installed first, in the foreground: the
 * webview suite needs Chromium, and two apt runs at once would fight over dpkg's lock.
 *
 *   node test/workbench/prefetch.ts         start it and return at once (nothing to do when installed)
 *   node test/workbench/prefetch.ts --run   the install itself, as the background process runs it
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ensureCodeServer, ensureSystemPackages, installLockFile, installLogFile, isInstalled } from './install.ts';

if (process.argv.includes('--run')) {
  fs.writeFileSync(installLockFile(), `${process.pid}\n`);
  try {
    ensureCodeServer();
  } finally {
    fs.rmSync(installLockFile(), { force: true });
  }
} else if (!isInstalled()) {
  ensureSystemPackages();
  fs.mkdirSync(path.dirname(installLogFile()), { recursive: true });
  const out = fs.openSync(installLogFile(), 'w');
  const child = spawn(process.execPath, [import.meta.filename, '--run'], { detached: true, stdio: ['ignore', out, out] });
  // Written here too, so a stage that starts at once already sees it.
  fs.writeFileSync(installLockFile(), `${child.pid}\n`);
  child.unref();
  fs.closeSync(out);
  process.stderr.write(`[workbench] installing code-server in the background (pid ${child.pid}; output: ${installLogFile()})\n`);
}
