/**
 * Lint check: fails when a module under `src/` exports a name no other module imports: dead code, or a
 * private helper that reads as API. A type only its own file uses may stay exported, since it names part of
 * an exported signature (an option bag, a result) that callers may need to spell. Tests, benches and
 * scripts count as users: a pure module's export that only its tests import is its tested surface, not dead
 * code. Entry points (bundled or loaded by the runtime) count as used whole.
 *
 * Usage: `node scripts/deadExports.ts`; run by `npm run lint`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Files whose exports the bundler or the runtime takes by name (esbuild.mjs's entry points, `main`). */
export const ENTRY_POINTS = [
  'src/extension/extension.ts',
  'src/worker/main.ts',
  'src/webview/main.ts',
  'src/pi/piEntry.ts',
  'src/pi/cliEntry.ts',
  'src/pi/importMetaUrlShim.js',
];

/** One export nobody imports. */
export interface DeadExport {
  /** Relative to the root, with `/`. */
  readonly file: string;
  readonly line: number;
  readonly name: string;
  /** Whether its own file uses the name: then drop `export`, else the code itself is dead. */
  readonly usedInFile: boolean;
}

export interface DeadExportOptions {
  readonly root: string;
  /** The folder whose exports are checked. */
  readonly checked: string;
  /** The folders whose imports count as uses (the checked one among them, for its modules' imports of each other). */
  readonly users: readonly string[];
  /** Files (relative to the root) whose every export counts as used. */
  readonly entries: readonly string[];
}

interface ExportEntry {
  readonly line: number;
  /** Whether it declares only a type (an interface, a type alias, `export type { … }`). */
  readonly type?: boolean;
  /** Set for a re-export: the module and name it forwards (`*` for `export * as ns from`). */
  readonly from?: { readonly file: string; readonly name: string };
}

interface ModuleInfo {
  readonly exports: Map<string, ExportEntry>;
  /** Modules re-exported whole with `export * from`. */
  readonly stars: string[];
  readonly source: ts.SourceFile;
}

const CODE = /\.(ts|mts|cts|js|mjs|cjs)$/;

/** The exports of the modules under `checked` that no module under `users` imports, by file then line. */
export function findDeadExports(opts: DeadExportOptions): DeadExport[] {
  const root = resolve(opts.root);
  const name = (abs: string) => relative(root, abs).split(sep).join('/');
  const checkedFiles = listFiles(join(root, opts.checked));
  const userFiles = new Set(opts.users.flatMap((u) => listFiles(join(root, u))));
  for (const f of checkedFiles) userFiles.add(f);

  const sources = new Map<string, ts.SourceFile>();
  const parse = (file: string) => {
    let sf = sources.get(file);
    if (!sf) {
      sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, scriptKind(file));
      sources.set(file, sf);
    }
    return sf;
  };
  const modules = new Map<string, ModuleInfo>();
  for (const file of checkedFiles) modules.set(file, moduleInfo(parse(file)));

  const used = new Set<string>();
  const use = (file: string, exported: string, seen = new Set<string>()): void => {
    const key = `${file}\0${exported}`;
    const mod = modules.get(file);
    if (!mod || seen.has(key)) return;
    seen.add(key);
    const entry = mod.exports.get(exported);
    if (entry) {
      used.add(key);
      if (entry.from) (entry.from.name === '*' ? useAll : use)(entry.from.file, entry.from.name, seen);
      return;
    }
    for (const star of mod.stars) use(star, exported, seen);
  };
  const useAll = (file: string, _name?: string, seen = new Set<string>()): void => {
    const mod = modules.get(file);
    if (!mod || seen.has(`${file}\0*`)) return;
    seen.add(`${file}\0*`);
    for (const exported of mod.exports.keys()) use(file, exported, seen);
    for (const star of mod.stars) useAll(star, undefined, seen);
  };

  for (const entry of opts.entries) useAll(join(root, entry));
  for (const file of userFiles) {
    for (const ref of moduleRefs(parse(file))) {
      if (ref.names === 'all') useAll(ref.file);
      else for (const n of ref.names) use(ref.file, n);
    }
  }

  const dead: DeadExport[] = [];
  for (const [file, mod] of modules) {
    if (file.endsWith('.d.ts')) continue;
    for (const [exported, entry] of mod.exports) {
      if (used.has(`${file}\0${exported}`)) continue;
      const usedInFile = !entry.from && usedLocally(mod.source, exported);
      if (usedInFile && entry.type) continue;
      dead.push({ file: name(file), line: entry.line, name: exported, usedInFile });
    }
  }
  return dead.sort((a, b) => (a.file !== b.file ? (a.file < b.file ? -1 : 1) : a.line - b.line));
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(path));
    else if (CODE.test(entry.name)) out.push(path);
  }
  return out;
}

function scriptKind(file: string): ts.ScriptKind {
  return /\.[mc]?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
}

/** The file a relative module specifier in `from` names, or undefined for a package or a missing file. */
function resolveSpecifier(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec);
  const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, `${base}.js`, join(base, 'index.ts')];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

function lineOf(node: ts.Node): number {
  const sf = node.getSourceFile();
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
}

function hasModifier(node: ts.Node, kind: ts.SyntaxKind): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node)?.some((m) => m.kind === kind) ?? false);
}

function bindingNames(name: ts.BindingName): ts.Identifier[] {
  if (ts.isIdentifier(name)) return [name];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : bindingNames(e.name)));
}

function moduleInfo(sf: ts.SourceFile): ModuleInfo {
  const exports = new Map<string, ExportEntry>();
  const stars: string[] = [];
  for (const st of sf.statements) {
    if (ts.isExportDeclaration(st)) {
      const target = st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier) ? resolveSpecifier(sf.fileName, st.moduleSpecifier.text) : undefined;
      if (!st.exportClause) {
        if (target) stars.push(target);
      } else if (ts.isNamespaceExport(st.exportClause)) {
        exports.set(st.exportClause.name.text, { line: lineOf(st), ...(target ? { from: { file: target, name: '*' } } : {}) });
      } else {
        for (const el of st.exportClause.elements) {
          const local = (el.propertyName ?? el.name).text;
          const type = st.isTypeOnly || el.isTypeOnly;
          exports.set(el.name.text, { line: lineOf(el), type, ...(target ? { from: { file: target, name: local } } : {}) });
        }
      }
    } else if (ts.isExportAssignment(st)) {
      exports.set('default', { line: lineOf(st) });
    } else if (hasModifier(st, ts.SyntaxKind.ExportKeyword)) {
      if (hasModifier(st, ts.SyntaxKind.DefaultKeyword)) exports.set('default', { line: lineOf(st) });
      else if (ts.isVariableStatement(st)) {
        for (const decl of st.declarationList.declarations) for (const id of bindingNames(decl.name)) exports.set(id.text, { line: lineOf(id) });
      } else if (
        (ts.isFunctionDeclaration(st) ||
          ts.isClassDeclaration(st) ||
          ts.isInterfaceDeclaration(st) ||
          ts.isTypeAliasDeclaration(st) ||
          ts.isEnumDeclaration(st) ||
          ts.isModuleDeclaration(st)) &&
        st.name &&
        ts.isIdentifier(st.name)
      ) {
        exports.set(st.name.text, { line: lineOf(st), type: ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st) });
      }
    }
  }
  return { exports, stars, source: sf };
}

/** What a module takes from the local modules it names: some exports by name, or all (namespace, dynamic). */
function moduleRefs(sf: ts.SourceFile): { file: string; names: string[] | 'all' }[] {
  const refs: { file: string; names: string[] | 'all' }[] = [];
  const add = (spec: ts.Expression | ts.TypeNode | undefined, names: string[] | 'all') => {
    let text: string | undefined;
    if (spec && ts.isStringLiteralLike(spec)) text = spec.text;
    else if (spec && ts.isLiteralTypeNode(spec) && ts.isStringLiteralLike(spec.literal)) text = spec.literal.text;
    const file = text ? resolveSpecifier(sf.fileName, text) : undefined;
    if (file) refs.push({ file, names });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const names: string[] = [];
      if (clause?.name) names.push('default');
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) add(node.moduleSpecifier, 'all');
      else if (bindings) for (const el of bindings.elements) names.push((el.propertyName ?? el.name).text);
      if (names.length) add(node.moduleSpecifier, names);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && !node.exportClause && !ts.isSourceFile(node.parent)) {
      add(node.moduleSpecifier, 'all');
    } else if (ts.isImportTypeNode(node)) {
      const q = node.qualifier;
      const first = q ? (ts.isIdentifier(q) ? q : leftmost(q)) : undefined;
      add(node.argument, first ? [first.text] : 'all');
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
    ) {
      add(node.arguments[0], 'all');
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, 'all');
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return refs;
}

function leftmost(q: ts.QualifiedName): ts.Identifier {
  let left: ts.EntityName = q;
  while (ts.isQualifiedName(left)) left = left.left;
  return left;
}

/** Whether `name` appears in `sf` other than where it is declared. */
function usedLocally(sf: ts.SourceFile, name: string): boolean {
  let count = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && node.text === name) {
      const p = node.parent;
      const declares =
        (ts.isFunctionDeclaration(p) ||
          ts.isClassDeclaration(p) ||
          ts.isInterfaceDeclaration(p) ||
          ts.isTypeAliasDeclaration(p) ||
          ts.isEnumDeclaration(p) ||
          ts.isVariableDeclaration(p) ||
          ts.isModuleDeclaration(p) ||
          ts.isBindingElement(p)) &&
        p.name === node;
      if (!declares && !(ts.isExportSpecifier(p) && (p.propertyName ?? p.name) === node)) count++;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return count > 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const dead = findDeadExports({ root, checked: 'src', users: ['src', 'test', 'bench', 'scripts'], entries: ENTRY_POINTS });
  for (const d of dead)
    console.error(`${d.file}:${d.line} exports '${d.name}', which no module imports${d.usedInFile ? ' (its file uses it: drop `export`)' : ''}`);
  if (dead.length) {
    console.error(`${dead.length} dead export${dead.length === 1 ? '' : 's'} under src/: remove them, or the code they export.`);
    process.exitCode = 1;
  } else console.log('No dead exports under src/.');
}
