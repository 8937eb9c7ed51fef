/**
 * Checks the packaged extension a user would publish: only allow-listed files, under 10 MB, one copy of Pi (its CLI
 * entry a few lines over the SDK bundle), a 128×128 PNG icon, `extensionKind: ["workspace"]`, repository/bugs/homepage, and a CHANGELOG entry for its version.
 *
 *   node test/package/checkVsix.ts [--vsix FILE]   (default: runs `npm run package` first)
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import zlib from 'node:zlib';
import { REPO_ROOT } from '../workbench/install.ts';

export const MAX_BYTES = 10 * 1024 * 1024;

/** `dist/pi/cli.cjs` requires the SDK bundle beside it (esbuild.mjs); more than this means it carries Pi again. */
export const MAX_CLI_BYTES = 16 * 1024;

/** Every file a .vsix may hold (vsce's own files, then the .vscodeignore allow-list under `extension/`). */
export const ALLOWED: readonly RegExp[] = [
  /^extension\.vsixmanifest$/,
  /^\[Content_Types\]\.xml$/,
  /^extension\/package\.json$/,
  /^extension\/(readme|changelog)\.md$/i,
  /^extension\/LICENSE(\.txt)?$/,
  /^extension\/dist\/.+(?<!\.map)$/,
  /^extension\/media\/[^/]+\.(css|svg|png)$/,
  /^extension\/package\.nls(\.[a-z-]+)?\.json$/,
  /^extension\/l10n\/bundle\.l10n\.[a-z-]+\.json$/,
];

/** Files the extension cannot run or be listed without. */
export const REQUIRED: readonly string[] = [
  'extension/package.json',
  'extension/dist/extension.js',
  'extension/media/icon.png',
  'extension/LICENSE.txt',
  // The manifest's strings and the host/webview bundles in each shipped display language.
  'extension/package.nls.json',
  'extension/package.nls.zh-cn.json',
  'extension/package.nls.vi.json',
  'extension/l10n/bundle.l10n.zh-cn.json',
  'extension/l10n/bundle.l10n.vi.json',
  // Pi's codemode: its script worker and the QuickJS VM, found beside the Pi bundle (esbuild.mjs).
  'extension/dist/pi/codemode-worker.js',
  'extension/dist/pi/node_modules/quickjs-wasi/quickjs.wasm',
  'extension/dist/pi/node_modules/quickjs-wasi/package.json',
  // Pi's CLI, which the worker gives extensions as `process.argv[1]` (subagents start it), and the SDK it runs.
  'extension/dist/pi/cli.cjs',
  'extension/dist/pi/pi.cjs',
];

/** The entries of a zip file, read from its central directory (name, and the data inflated on demand). */
export function readZip(buf: Buffer): Map<string, () => Buffer> {
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('not a zip file (no end of central directory)');
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const entries = new Map<string, () => Buffer>();
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error(`bad central directory entry ${i}`);
    const method = buf.readUInt16LE(at + 10);
    const compressed = buf.readUInt32LE(at + 20);
    const nameLen = buf.readUInt16LE(at + 28);
    const extraLen = buf.readUInt16LE(at + 30);
    const commentLen = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.toString('utf8', at + 46, at + 46 + nameLen);
    entries.set(name, () => {
      const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
      const data = buf.subarray(start, start + compressed);
      return method === 0 ? data : zlib.inflateRawSync(data);
    });
    at += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/** Everything wrong with a .vsix and its changelog; empty when it is fit to publish. */
export function problems(vsixBytes: Buffer, changelog: string): string[] {
  const out: string[] = [];
  if (vsixBytes.length >= MAX_BYTES) out.push(`the .vsix is ${(vsixBytes.length / 1048576).toFixed(1)} MB, over 10 MB`);
  const zip = readZip(vsixBytes);
  const names = [...zip.keys()].filter((n) => !n.endsWith('/'));
  for (const n of names) if (!ALLOWED.some((re) => re.test(n))) out.push(`not on the allow-list: ${n}`);
  for (const n of REQUIRED) if (!zip.has(n)) out.push(`missing: ${n}`);
  const cli = zip.get('extension/dist/pi/cli.cjs')?.();
  if (cli && cli.length > MAX_CLI_BYTES)
    out.push(`dist/pi/cli.cjs is ${(cli.length / 1024).toFixed(0)} KB: a second copy of Pi instead of an entry over pi.cjs`);
  const readPkg = zip.get('extension/package.json');
  if (!readPkg) return out;
  const pkg = JSON.parse(readPkg().toString('utf8')) as Record<string, unknown>;
  if (JSON.stringify(pkg.extensionKind) !== '["workspace"]') out.push(`extensionKind is ${JSON.stringify(pkg.extensionKind)}, not ["workspace"]`);
  const url = (v: unknown): string | undefined => (typeof v === 'string' ? v : ((v as { url?: string } | undefined)?.url ?? undefined));
  for (const field of ['repository', 'bugs', 'homepage']) {
    if (!/^https:\/\/\S+$/.test(url(pkg[field]) ?? '')) out.push(`package.json ${field} has no https URL`);
  }
  const icon = typeof pkg.icon === 'string' ? zip.get(`extension/${pkg.icon}`) : undefined;
  if (!icon) out.push(`package.json icon ${JSON.stringify(pkg.icon)} is not in the .vsix`);
  else {
    const png = icon();
    const isPng = png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    if (!isPng || png.readUInt32BE(16) !== 128 || png.readUInt32BE(20) !== 128) out.push(`the icon ${pkg.icon} is not a 128×128 PNG`);
  }
  const version = String(pkg.version);
  if (!new RegExp(`^## \\[?${version.replace(/\./g, '\\.')}\\]?\\b`, 'm').test(changelog)) out.push(`CHANGELOG.md has no "## ${version}" entry`);
  return out;
}

function main(): number {
  const { values } = parseArgs({ options: { vsix: { type: 'string' } } });
  let vsix = values.vsix;
  if (!vsix) {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
    vsix = path.join(REPO_ROOT, `${pkg.name}-${pkg.version}.vsix`);
    fs.rmSync(vsix, { force: true });
    const r = spawnSync('npm', ['run', '--silent', 'package'], { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0) {
      console.error('package: npm run package failed');
      return 1;
    }
  }
  const bytes = fs.readFileSync(vsix);
  const found = problems(bytes, fs.readFileSync(path.join(REPO_ROOT, 'CHANGELOG.md'), 'utf8'));
  const files = readZip(bytes).size;
  for (const p of found) console.error(`package: ${p}`);
  console.log(
    `package: ${path.basename(vsix)}, ${files} files, ${(bytes.length / 1048576).toFixed(2)} MB: ${found.length ? `${found.length} problem(s)` : 'ok'}`,
  );
  return found.length ? 1 : 0;
}

if (import.meta.main) process.exit(main());
