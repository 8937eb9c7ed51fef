import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkL10n, LOCALES, looksLikeProse, scanSource } from '../../scripts/checkL10n.ts';
import { fill, formatAgo, formatNumber, formatTime, setL10nBundle, t } from '../../src/shared/l10n.ts';
import { shortStats, statsLine } from '../../src/shared/sessions.ts';
import { builtinCommands } from '../../src/shared/slashCommands.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');

describe('l10n: t() and Intl in the display language', () => {
  afterEach(() => setL10nBundle(undefined));

  it('falls back to the English key and fills positional and named placeholders', () => {
    assert.equal(t('Open {0} at line {1}', 'a.ts', 3), 'Open a.ts at line 3');
    assert.equal(fill('{who} ran {n}', [{ who: 'Pi', n: 2 }]), 'Pi ran 2');
    assert.equal(t('{0} stays {1}', 'x'), 'x stays {1}');
  });

  it('translates the built-in slash commands and the session totals when they are built, not at load', () => {
    const zh = JSON.parse(readFileSync(join(ROOT, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
    setL10nBundle(zh, 'zh-cn');
    assert.equal(builtinCommands().find((c) => c.name === 'new')?.description, zh['Start a new session']);
    assert.ok(
      builtinCommands().every((c) => c.description && !/^[A-Z][a-z]+ /.test(c.description)),
      'every built-in described in zh-cn',
    );
    assert.equal(shortStats({ input: 1000, output: 234, cacheRead: 0, cacheWrite: 0, cost: 0.5 }), '1.2k 个令牌 · $0.5000');
    assert.match(
      statsLine({ input: 1000, output: 2, cacheRead: 0, cacheWrite: 0, cost: 0, contextPercent: 7 }),
      /^令牌：输入 1,000, 输出 2, \$0\.0000, 上下文 7%$/,
    );
  });

  it('reads the bundle of the display language, placeholders moved as the translation needs', () => {
    setL10nBundle({ 'Open {0} at line {1}': '在第 {1} 行打开 {0}' }, 'zh-cn');
    assert.equal(t('Open {0} at line {1}', 'a.ts', 3), '在第 3 行打开 a.ts');
  });

  it('formats numbers and relative times with Intl in the display language', () => {
    setL10nBundle({}, 'vi');
    assert.equal(formatNumber(12000), '12.000');
    setL10nBundle({}, 'zh-cn');
    assert.equal(formatAgo(0, 86_400_000), '昨天');
    setL10nBundle({}, 'en');
    assert.equal(formatNumber(12000), '12,000');
  });

  it('formats clock times from a kept format exactly as toLocaleTimeString does, per display language', () => {
    const at = 1_700_000_123_456;
    for (const language of ['en', 'zh-cn', 'vi', 'en']) {
      setL10nBundle({}, language);
      assert.equal(formatTime(at), new Date(at).toLocaleTimeString(language), language);
    }
    setL10nBundle({}, 'not a language');
    assert.equal(formatTime(at), new Date(at).toLocaleTimeString('en'));
  });
});

describe('l10n check (scripts/checkL10n.ts, run by npm run lint)', () => {
  it('passes on the repository: no English bypasses the bundles, and every locale has exactly the keys in use', function () {
    this.timeout(60_000); // parses every file of src/
    assert.deepEqual(checkL10n(ROOT), []);
  });

  it('flags an English string added without t(), with the file, line and fix', () => {
    const scan = scanSource('src/webview/x.ts', "h('button', { class: 'btn btn-small', title: 'Show the diff' }, 'Open');\nconst ok = t('Send');\n");
    assert.deepEqual(
      scan.bypasses.map((b) => `${b.line}:${b.text}`),
      ['1:Show the diff', '1:Open'],
    );
    assert.deepEqual(
      scan.keys.map((k) => k.text),
      ['Send'],
    );
  });

  it('leaves alone what nobody reads: logs, ids, selectors, comparisons, l10n-ignore', () => {
    const source = [
      "log.warn('The worker did not answer in time');",
      "el.querySelector('.dialog-card button[data-choice]');",
      "if (choice === 'Open Chat') go();",
      "vscode.commands.executeCommand('piPanel.focusChat');",
      '// l10n-ignore: sent to Pi',
      "const prompt = 'Continue from where it stopped.';",
    ].join('\n');
    assert.deepEqual(scanSource('src/extension/x.ts', source).bypasses, []);
  });

  it('tells prose from code', () => {
    for (const s of ['Send', 'Copy failed', 'Pi: {} has no problems.', 'no workspace folder is open', 'Select a model']) assert.ok(looksLikeProse(s), s);
    for (const s of ['btn btn-secondary', 'piPanel.chat', 'default-src {}', './l10n.ts', 'image/png', 'data-choice']) assert.ok(!looksLikeProse(s), s);
  });

  it('ships the same keys in every locale as package.nls.json', () => {
    const english = Object.keys(JSON.parse(readFileSync(join(ROOT, 'package.nls.json'), 'utf8')) as object).sort();
    for (const locale of LOCALES)
      assert.deepEqual(Object.keys(JSON.parse(readFileSync(join(ROOT, `package.nls.${locale}.json`), 'utf8')) as object).sort(), english, locale);
  });
});
