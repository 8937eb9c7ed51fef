/** Bundles the in-VS Code integration suite to CommonJS in out/test/integration/ (index.js + one file per *.test.ts). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const suiteDir = path.join(root, 'test', 'integration', 'suite');
const outdir = path.join(root, 'out', 'test', 'integration');
const entryPoints = ['index.ts', ...fs.readdirSync(suiteDir).filter((f) => f.endsWith('.test.ts'))].map((f) => path.join(suiteDir, f));

fs.rmSync(outdir, { recursive: true, force: true });
await esbuild.build({
  entryPoints,
  outdir,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node22',
  sourcemap: 'inline',
  // vscode is the host's; mocha is loaded from the repo's node_modules (it requires its own files at run time).
  external: ['vscode', 'mocha'],
  logLevel: 'warning',
});
// A CommonJS marker so a "type": "module" up the tree never reinterprets the bundles.
fs.writeFileSync(path.join(outdir, 'package.json'), '{ "type": "commonjs" }\n');
console.log(`integration suite bundled: ${entryPoints.length} file(s) -> ${path.relative(root, outdir)}/`);
