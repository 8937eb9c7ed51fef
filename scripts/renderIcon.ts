/** Renders the 128×128 marketplace icon (media/icon.png) from media/pi.svg with headless chromium: `node scripts/renderIcon.ts`. */
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { ensureSystemPackages, REPO_ROOT } from '../test/workbench/install.ts';

const SIZE = 128;

async function main(): Promise<void> {
  // The activity-bar glyph draws in currentColor; the marketplace icon puts it in white on a tile of its own.
  const svg = fs
    .readFileSync(path.join(REPO_ROOT, 'media', 'pi.svg'), 'utf8')
    .replace('stroke="currentColor"', 'stroke="#ffffff"')
    .replace(/width="24" height="24"/, 'width="96" height="96"');
  const html = `<!doctype html><html><body style="margin:0;background:transparent">
<div style="width:${SIZE}px;height:${SIZE}px;border-radius:24px;background:linear-gradient(135deg,#3b2f8f,#1c6dd0);display:flex;align-items:center;justify-content:center">${svg}</div>
</body></html>`;
  if (!process.env.CHROMIUM_PATH) ensureSystemPackages(['chromium']);
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE }, deviceScaleFactor: 1 });
    await page.setContent(html);
    const out = path.join(REPO_ROOT, 'media', 'icon.png');
    await page.screenshot({ path: out, omitBackground: true, clip: { x: 0, y: 0, width: SIZE, height: SIZE } });
    console.log(`wrote ${path.relative(REPO_ROOT, out)}`);
  } finally {
    await browser.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
