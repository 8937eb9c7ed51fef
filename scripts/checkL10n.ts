/**
 * Lint check for localization: fails when a user-visible English string in `src/` bypasses the l10n
 * bundles, when a `t()` / `vscode.l10n.t()` key is missing from a locale's bundle or a bundle holds a key
 * no code uses, and when the manifest's `%key%` strings and `package.nls*.json` disagree.
 *
 * Usage: `node scripts/checkL10n.ts` (run by `npm run lint`). Each problem is printed with its file, line
 * and the fix.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The display languages the panel ships, besides English (the keys themselves). */
export const LOCALES = ['zh-cn', 'vi'] as const;

/** One user-visible string found in code: a key already passed to t(), or English that bypasses the bundles. */
export interface Found {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

export interface Scan {
  /** Keys passed to `t()` / `vscode.l10n.t()` as string literals. */
  readonly keys: Found[];
  /** English prose outside `t()`: each one is a string the user would see untranslated. */
  readonly bypasses: Found[];
  /** `t()` calls whose first argument is not a plain string literal (cannot be checked or extracted). */
  readonly dynamicKeys: Found[];
}

// Calls whose string arguments are never shown to the user (the Output channel's log stays English, as VS Code's own).
const LOG_METHODS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'log', 'appendLine']);
// Named attributes and properties that only machines read.
const MACHINE_KEYS =
  /^(class|className|id|type|role|name|data-[\w-]+|href|src|rel|lang|command|group|when|key|code|kind|level|tag|method|mime|mimeType|path|scheme|language|viewType|contextValue|tabindex|autocomplete|accept|inputmode|enterkeyhint|spellcheck|draggable|dir|target|for|style|event|icon)$/;

const IGNORE_MARK = 'l10n-ignore';

/**
 * Folders whose English is checked. The worker's and src/shared's own texts (validator reasons, Pi-facing
 * prompts, checkpoint details) are not yet in the bundles; their t() keys are still checked in every folder.
 */
// src/shared's wire checks (`src/shared/wire`, `images.ts`) answer a malformed message from the view with a reason for
// the log, so only its user-facing modules are scanned.
export const SCANNED = [
  'src/extension',
  'src/webview',
  'src/shared/run',
  'src/shared/transcript',
  'src/shared/bidi.ts',
  'src/shared/chips.ts',
  'src/shared/imageHeader.ts',
  'src/shared/sessions.ts',
  'src/shared/slashCommands.ts',
];
const KEY_FOLDERS = ['src/extension', 'src/webview', 'src/worker', 'src/shared'];

/** Words and punctuation of the literal parts of a string, as the user would read them. */
function staticText(node: ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | ts.TemplateExpression): string {
  if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join('{}');
  return node.text;
}

/**
 * True for English meant for people: two words or more of letters (or one capitalized word ending in
 * punctuation like `Copied…`), and not code (CSS selectors, class lists, paths, identifiers, commands).
 */
export function looksLikeProse(text: string): boolean {
  const s = text.replace(/\$\([\w~-]+\)/g, ' ').trim(); // codicons such as $(sync~spin)
  if (!/[A-Za-z]/.test(s)) return false;
  if (/^[\w.-]+(\s+[\w.-]+)*$/.test(s) && !/[A-Z]/.test(s) && !/\s(a|an|the|is|of|to|for|and|or|in|on|no|not|this|that|was|with|from|at)\s/.test(` ${s} `))
    return false; // class lists, ids, command names
  if (/^[.#[:]|^[\w-]+\[|[>~]\s*[.#\w]|^\s*[.#][\w-]+/.test(s) && !/\s(is|the|a|to)\s/.test(s)) return false; // CSS selectors
  if (/^(https?:|file:|\.{0,2}\/|[\w-]+\/[\w./-]+$)/.test(s)) return false; // URLs and paths
  if (/^[a-zA-Z]+(\.[\w{}-]+)+$/.test(s) || /^[a-z][a-zA-Z0-9]*$/.test(s)) return false; // command and setting ids, identifiers
  if (/^'?[a-z-]+-src\b/.test(s)) return false; // CSP directives
  const bare = s
    .replace(/\{\}/g, ' ')
    .replace(/[^A-Za-z\s'-]/g, ' ')
    .trim();
  if (/^[A-Z][a-z]+$/.test(bare)) return true; // one capitalized word: a button, a heading
  // Two words or more, one of them may be a single letter ("Select a model").
  return /[A-Za-z]{2,}[ \u00a0]+[A-Za-z]+|[A-Za-z]+[ \u00a0]+[A-Za-z]{2,}/.test(s);
}

function calleeName(call: ts.CallExpression | ts.NewExpression): { name: string; receiver: string } {
  const e = call.expression;
  if (ts.isIdentifier(e)) return { name: e.text, receiver: '' };
  if (ts.isPropertyAccessExpression(e)) return { name: e.name.text, receiver: e.expression.getText() };
  return { name: '', receiver: '' };
}

function isL10nCall(call: ts.CallExpression): boolean {
  const { name, receiver } = calleeName(call);
  return name === 't' && (receiver === '' || /(^|\.)l10n$/.test(receiver));
}

/** Why a string literal is not shown to the user, or undefined when it may be. */
function machineContext(node: ts.Node, source: ts.SourceFile): boolean {
  const parent = node.parent;
  if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent) || ts.isExternalModuleReference(parent)) return true;
  if (ts.isLiteralTypeNode(parent) || ts.isImportTypeNode(parent)) return true;
  if (
    (ts.isPropertyAssignment(parent) || ts.isPropertySignature(parent) || ts.isPropertyDeclaration(parent) || ts.isMethodDeclaration(parent)) &&
    parent.name === node
  )
    return true;
  if (ts.isPropertyAssignment(parent) && parent.initializer === node) {
    const key = parent.name.getText(source).replace(/^['"]|['"]$/g, '');
    if (MACHINE_KEYS.test(key)) return true;
  }
  if (ts.isElementAccessExpression(parent) && parent.argumentExpression === node) return true;
  if (ts.isCaseClause(parent)) return true;
  if (
    ts.isBinaryExpression(parent) &&
    [
      ts.SyntaxKind.EqualsEqualsEqualsToken,
      ts.SyntaxKind.ExclamationEqualsEqualsToken,
      ts.SyntaxKind.EqualsEqualsToken,
      ts.SyntaxKind.ExclamationEqualsToken,
      ts.SyntaxKind.InKeyword,
    ].includes(parent.operatorToken.kind)
  )
    return true;
  if (ts.isEnumMember(parent)) return true;
  for (let n: ts.Node = node; n.parent && !ts.isSourceFile(n); n = n.parent) {
    const p = n.parent;
    if (ts.isCallExpression(p) || ts.isNewExpression(p)) {
      const { name, receiver } = calleeName(p);
      if (LOG_METHODS.has(name) && /log|console|channel|output/i.test(receiver)) return true;
      // Errors thrown inside the extension are for the log; the few a user sees go through a notification that is checked.
      if (ts.isNewExpression(p) && /Error$/.test(name)) return true;
      if (
        name === 'querySelector' ||
        name === 'querySelectorAll' ||
        name === 'closest' ||
        name === 'matches' ||
        name === 'getCommand' ||
        name === 'executeCommand' ||
        name === 'registerCommand' ||
        name === 'getConfiguration' ||
        name === 'get' ||
        name === 'createElement' ||
        name === 'postMessage' ||
        name === 'RegExp' ||
        name === 'setContext'
      )
        return true;
      if (ts.isCallExpression(p) && isL10nCall(p)) return true;
      break;
    }
    if (ts.isStatement(p)) break;
  }
  return false;
}

function ignored(node: ts.Node, source: ts.SourceFile): boolean {
  const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
  const lines = source.text.split('\n');
  return (lines[line] ?? '').includes(IGNORE_MARK) || (lines[line - 1] ?? '').includes(IGNORE_MARK);
}

/** Scans one TypeScript file for t() keys and English that bypasses them. */
export function scanSource(file: string, text: string): Scan {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const keys: Found[] = [];
  const bypasses: Found[] = [];
  const dynamicKeys: Found[] = [];
  const at = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && isL10nCall(node)) {
      const first = node.arguments[0];
      if (first && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first))) keys.push({ file, line: at(first), text: first.text });
      else if (first && ts.isObjectLiteralExpression(first)) {
        // vscode.l10n.t({ message, args, comment })
        const message = first.properties.find((p) => ts.isPropertyAssignment(p) && p.name.getText(source) === 'message');
        if (message && ts.isPropertyAssignment(message) && ts.isStringLiteralLike(message.initializer))
          keys.push({ file, line: at(first), text: message.initializer.text });
        else dynamicKeys.push({ file, line: at(node), text: node.getText(source).slice(0, 80) });
      } else if (!ignored(node, source)) dynamicKeys.push({ file, line: at(node), text: node.getText(source).slice(0, 80) });
    } else if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) && !machineContext(node, source)) {
      const s = staticText(node);
      if (looksLikeProse(s) && !ignored(node, source)) bypasses.push({ file, line: at(node), text: s });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { keys, bypasses, dynamicKeys };
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? tsFiles(p) : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Every problem in the repository at `root`, as lines a person can act on. */
export function checkL10n(root: string, folders = SCANNED): string[] {
  const problems: string[] = [];
  const keys = new Map<string, Found>();
  for (const folder of KEY_FOLDERS) {
    for (const file of tsFiles(join(root, folder))) {
      const rel = relative(root, file);
      const scan = scanSource(rel, readFileSync(file, 'utf8'));
      for (const k of scan.keys) if (!keys.has(k.text)) keys.set(k.text, k);
      if (!folders.some((f) => rel === f || rel.startsWith(`${f}/`))) continue;
      for (const b of scan.bypasses)
        problems.push(
          `${b.file}:${b.line}: English text shown without the l10n bundles: ${JSON.stringify(b.text)}.\n` +
            `    Fix: wrap it in ${rel.startsWith('src/webview') ? "t('…') from src/webview/l10n.ts" : rel.startsWith('src/extension') ? "vscode.l10n.t('…')" : "t('…') from this layer's l10n module"} (placeholders {0}, {1}; never concatenate), ` +
            `then add the English key to l10n/bundle.l10n.zh-cn.json and l10n/bundle.l10n.vi.json. ` +
            `If nobody ever reads it (a log line, an id), add a "// ${IGNORE_MARK}" comment on or above the line.`,
        );
      for (const d of scan.dynamicKeys)
        problems.push(
          `${d.file}:${d.line}: t() needs a string literal as its message so it can be translated: ${d.text}. Pass the English text literally and the variable parts as {0} arguments.`,
        );
    }
  }
  for (const locale of LOCALES) {
    const path = join(root, 'l10n', `bundle.l10n.${locale}.json`);
    const bundle = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>) : {};
    for (const [key, where] of keys)
      if (typeof bundle[key] !== 'string' || !bundle[key])
        problems.push(
          `l10n/bundle.l10n.${locale}.json: missing ${JSON.stringify(key)} (used at ${where.file}:${where.line}). Fix: add it with its ${locale} translation.`,
        );
      else if (placeholders(bundle[key]) !== placeholders(key))
        problems.push(
          `l10n/bundle.l10n.${locale}.json: ${JSON.stringify(key)} has placeholders ${placeholders(bundle[key]) || 'none'}, the English ${placeholders(key) || 'none'}. Fix the translation.`,
        );
    for (const key of Object.keys(bundle))
      if (!keys.has(key))
        problems.push(`l10n/bundle.l10n.${locale}.json: ${JSON.stringify(key)} is not used by any t() call in src/. Fix: remove it (or restore the call).`);
  }
  problems.push(...checkManifest(root));
  return problems;
}

function placeholders(s: string): string {
  return [...new Set(s.match(/\{[^{}]+\}/g) ?? [])].sort().join(' ');
}

/** package.json's `%key%` strings against package.nls.json and each package.nls.LOCALE.json. */
export function checkManifest(root: string): string[] {
  const problems: string[] = [];
  const manifest = readFileSync(join(root, 'package.json'), 'utf8');
  const used = new Set([...manifest.matchAll(/"%([^"%]+)%"/g)].map((m) => m[1]!));
  const english = JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
  const pkg = JSON.parse(manifest) as { contributes?: unknown };
  const plain: string[] = [];
  const walk = (v: unknown, path: string): void => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
    else if (
      typeof v === 'string' &&
      /\.(title|shortTitle|name|contextualTitle|description|markdownDescription|enumDescriptions\[\d+\]|markdownEnumDescriptions\[\d+\]|deprecationMessage|markdownDeprecationMessage|label)$/.test(
        path,
      ) &&
      !/^%.+%$/.test(v)
    )
      plain.push(`${path} = ${JSON.stringify(v)}`);
  };
  walk(pkg.contributes, 'contributes');
  for (const p of plain)
    problems.push(
      `package.json: ${p} is plain English. Fix: replace it with "%some.key%" and add "some.key" to package.nls.json and each package.nls.LOCALE.json.`,
    );
  for (const key of used) if (!(key in english)) problems.push(`package.nls.json: missing "${key}" (used as %${key}% in package.json).`);
  for (const key of Object.keys(english)) if (!used.has(key)) problems.push(`package.nls.json: "${key}" is not used in package.json. Fix: remove it.`);
  for (const locale of LOCALES) {
    const file = `package.nls.${locale}.json`;
    const bundle = existsSync(join(root, file)) ? (JSON.parse(readFileSync(join(root, file), 'utf8')) as Record<string, string>) : {};
    for (const key of Object.keys(english))
      if (!bundle[key]) problems.push(`${file}: missing "${key}". Fix: add its ${locale} translation of ${JSON.stringify(english[key])}.`);
    for (const key of Object.keys(bundle)) if (!(key in english)) problems.push(`${file}: "${key}" is not in package.nls.json. Fix: remove it.`);
  }
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(fileURLToPath(import.meta.url), '..', '..');
  const problems = checkL10n(root);
  if (problems.length) {
    console.error(problems.join('\n'));
    console.error(`\n${problems.length} localization problem(s). Strings the user sees go through the bundles: see the README's "Language" section.`);
    process.exit(1);
  }
  console.log('l10n: every user-visible string goes through the bundles, and every locale has every key.');
}
