import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findCycles, importGraph } from '../../scripts/importCycles.ts';

const graph = (edges: Record<string, string[]>) => new Map(Object.entries(edges));

describe('import cycle check', () => {
  it('finds nothing in imports that go one way', () => {
    assert.deepEqual(findCycles(graph({ a: ['b', 'c'], b: ['c'], c: [] })), []);
  });

  it('reports each cycle once, as a loop through its modules', () => {
    const cycles = findCycles(graph({ a: ['b'], b: ['c'], c: ['a'], d: ['e'], e: ['d'], f: ['a'] }));
    assert.deepEqual(cycles.map((c) => c.join(' -> ')).sort(), ['a -> b -> c -> a', 'd -> e -> d']);
  });

  it('ignores a module that names its own type', () => {
    assert.deepEqual(findCycles(graph({ a: ['a', 'b'], b: [] })), []);
  });

  it('counts type-only and dynamic imports, as the layers they tie together', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cycles-'));
    try {
      mkdirSync(join(dir, 'src', 'wire'), { recursive: true });
      writeFileSync(join(dir, 'src', 'wire', 'events.ts'), "import type { Row } from '../rows.ts';\nexport type Ev = { row: Row };\n");
      writeFileSync(join(dir, 'src', 'rows.ts'), "import type { Ev } from './wire/events.ts';\nexport type Row = { ev?: Ev };\n");
      writeFileSync(join(dir, 'src', 'view.ts'), "export const load = () => import('./rows.ts');\n");
      const g = importGraph(join(dir, 'src'));
      assert.deepEqual(g.get('src/view.ts'), ['src/rows.ts']);
      assert.deepEqual(findCycles(g), [['src/rows.ts', 'src/wire/events.ts', 'src/rows.ts']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
