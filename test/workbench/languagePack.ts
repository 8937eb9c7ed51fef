/**
 * A stub VS Code language pack for a display language, packaged as a .vsix: the real packs come from the
 * Marketplace, which this machine cannot reach. It contributes the locale (so `--locale` takes effect and
 * `vscode.env.language` is that language, and extensions' `l10n` bundles load) with no translations of
 * VS Code's own text, which stays in English.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageStubExtension } from './stubExtension.ts';

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
  fs.writeFileSync(path.join(dir, 'translations', 'main.i18n.json'), JSON.stringify({ version: '1.0.0', contents: {} }));
  packageStubExtension(dir, manifest, vsix, `the ${locale} language pack`);
  return vsix;
}
