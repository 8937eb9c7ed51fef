import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { findDeadExports } from '../../scripts/deadExports.ts';

/** Writes `files` (path -> text) under a fresh folder, runs the check over its src/ with `users`, cleans up. */
function check(files: Record<string, string>, opts: { users?: string[]; entries?: string[] } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'dead-exports-'));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return findDeadExports({ root: dir, checked: 'src', users: opts.users ?? ['src'], entries: opts.entries ?? [] }).map(
      (d) => `${d.file}:${d.line} ${d.name}${d.usedInFile ? ' (used in its file)' : ''}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('dead export check', () => {
  it('reports an export no other module imports, and says when its own file still uses it', () => {
    const dead = check({
      'src/a.ts':
        'export const used = 1;\nexport function lonely() {}\nexport const LIMIT = 3;\nexport const pick = (s: number[]) => s.slice(0, LIMIT);\nexport type Unused = 1;\n',
      'src/b.ts': "import { used, pick } from './a.ts';\nconsole.log(used, pick);\n",
    });
    assert.deepEqual(dead, ['src/a.ts:2 lonely', 'src/a.ts:3 LIMIT (used in its file)', 'src/a.ts:5 Unused']);
  });

  it('lets a type that only its own file uses stay exported: it names part of an exported signature', () => {
    const dead = check({
      'src/a.ts': 'export interface Options { n: number }\nexport type Result = string;\nexport function run(o: Options): Result { return String(o.n); }\n',
      'src/b.ts': "import { run } from './a.ts';\nconsole.log(run({ n: 1 }));\n",
    });
    assert.deepEqual(dead, []);
  });

  it('counts type-only, renamed, default, namespace and dynamic imports and import() types as uses', () => {
    const dead = check({
      'src/a.ts': 'export type T = 1;\nexport const r = 1;\nexport default 3;\n',
      'src/ns.ts': 'export const x = 1;\nexport const y = 2;\n',
      'src/dyn.ts': 'export const d = 1;\n',
      'src/typ.ts': 'export interface I {}\nexport interface J {}\n',
      'src/b.ts':
        "import type { T } from './a.ts';\nimport { r as renamed } from './a.ts';\nimport three from './a.ts';\nimport * as ns from './ns.ts';\n" +
        "const m = () => import('./dyn.ts');\nlet i: import('./typ.ts').I;\nconsole.log(renamed, three, ns, m, i, {} as T);\n",
    });
    assert.deepEqual(dead, ['src/typ.ts:2 J']);
  });

  it('follows re-exports: the original is used when its re-export is, and an unused re-export is itself dead', () => {
    const dead = check({
      'src/core.ts': 'export const a = 1;\nexport const b = 2;\nexport const c = 3;\nexport const d = 4;\n',
      'src/index.ts': "export { a, b as bee } from './core.ts';\nexport * from './core.ts';\n",
      'src/user.ts': "import { a, c } from './index.ts';\nconsole.log(a, c);\n",
    });
    assert.deepEqual(dead, ['src/core.ts:2 b', 'src/core.ts:4 d', 'src/index.ts:1 bee']);
  });

  it('takes an entry point (loaded by the bundler or the runtime) as used, and only the folders given as users', () => {
    const files = {
      'src/main.ts': 'export function activate() {}\n',
      'src/lib.ts': 'export const forTests = 1;\n',
      'test/lib.test.ts': "import { forTests } from '../src/lib.ts';\nconsole.log(forTests);\n",
    };
    assert.deepEqual(check(files, { entries: ['src/main.ts'] }), ['src/lib.ts:1 forTests']);
    assert.deepEqual(check(files, { entries: ['src/main.ts'], users: ['src', 'test'] }), []);
  });
});
