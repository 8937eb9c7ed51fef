/**
 * A stub VS Code language pack for a display language, packaged as a .vsix: the real packs come from the
 * Marketplace, which this machine cannot reach. It contributes the locale (so `--locale` takes effect and
 * `vscode.env.language` is that language, and extensions' `l10n` bundles load) with no translations of
 * VS Code's own text, which stays in English.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './install.ts';

const NAMES: Readonly<Record<string, string>> = { 'zh-cn': 'Chinese Simplified', vi: 'Vietnamese' };

/** Builds (once per process and locale) the stub pack for `locale` and returns its .vsix path. */
export function languagePackVsix(locale: string): string {
  const dir = path.join(os.tmpdir(), `pi-panel-language-pack-${process.pid}-${locale}`);
  const vsix = path.join(dir, `language-pack-${locale}.vsix`);
  if (fs.existsSync(vsix)) return vsix;
  fs.mkdirSync(path.join(dir, 'translations'), { recursive: true });
  const manifest = {
    name: `pi-panel-test-language-pack-${locale}`,
    displayName: `Test language pack (${locale})`,
    description: `Turns on the ${locale} display language for tests; VS Code's own text stays English.`,
    publisher: 'pi-panel-test',
    version: '0.0.1',
    license: 'MIT',
    repository: { type: 'git', url: 'https://github.com/pi-agent-panel/pi-agent-panel.git' },
    engines: { vscode: '^1.101.0' },
    categories: ['Language Packs'],
    contributes: {
      localizations: [
        {
          languageId: locale,
          languageName: NAMES[locale] ?? locale,
          localizedLanguageName: NAMES[locale] ?? locale,
          translations: [{ id: 'vscode', path: './translations/main.i18n.json' }],
        },
      ],
    },
  };
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  fs.writeFileSync(path.join(dir, 'translations', 'main.i18n.json'), JSON.stringify({ version: '1.0.0', contents: {} }));
  fs.writeFileSync(path.join(dir, 'README.md'), manifest.description);
  fs.writeFileSync(path.join(dir, 'LICENSE'), 'MIT');
  const vsce = path.join(REPO_ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
  const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '-o', vsix], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`packaging the ${locale} language pack failed: ${r.stdout}${r.stderr}`);
  return vsix;
}
