/**
 * Runs the integration suite in desktop VS Code through @vscode/test-electron (downloads VS Code unless
 * VSCODE_EXECUTABLE names one). This machine cannot download it; use runCodeServer.ts here.
 *
 *   VSCODE_EXECUTABLE=/path/to/code node test/integration/runDesktop.ts [--no-build]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runTests } from '@vscode/test-electron';
import { REPO_ROOT } from '../workbench/install.ts';

function step(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed`);
}

async function main(): Promise<number> {
  if (!process.argv.includes('--no-build')) step('npm', ['run', '--silent', 'build']);
  step(process.execPath, [path.join(REPO_ROOT, 'test', 'build-tests.mjs')]);
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-panel-desktop-'));
  const workspace = path.join(temp, 'workspace');
  fs.mkdirSync(workspace);
  try {
    await runTests({
      vscodeExecutablePath: process.env.VSCODE_EXECUTABLE || undefined,
      extensionDevelopmentPath: REPO_ROOT,
      extensionTestsPath: path.join(REPO_ROOT, 'out', 'test', 'integration', 'index.js'),
      launchArgs: [
        workspace,
        '--disable-extensions',
        '--disable-workspace-trust',
        '--skip-welcome',
        '--skip-release-notes',
        '--user-data-dir',
        path.join(temp, 'user-data'),
        '--extensions-dir',
        path.join(temp, 'extensions'),
      ],
    });
    console.log('integration (desktop): passed');
    return 0;
  } catch (err) {
    console.error(`integration (desktop): ${(err as Error).message}`);
    return 1;
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
}

main().then((code) => process.exit(code));
