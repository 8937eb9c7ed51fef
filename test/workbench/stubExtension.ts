/** Packages a small extension written into a folder (a test's or bench's stub) as a .vsix with the project's vsce. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './install.ts';

/**
 * Writes `manifest` as `dir`'s package.json, with the README and LICENSE vsce asks for, and packages `dir` (with the
 * files the caller put there) into `vsix`. `what` names the stub in the error when packaging fails.
 */
export function packageStubExtension(dir: string, manifest: { description: string }, vsix: string, what: string): void {
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  fs.writeFileSync(path.join(dir, 'README.md'), manifest.description);
  fs.writeFileSync(path.join(dir, 'LICENSE'), 'MIT');
  const vsce = path.join(REPO_ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
  const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '-o', vsix], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`packaging ${what} failed: ${r.stdout}${r.stderr}`);
}
