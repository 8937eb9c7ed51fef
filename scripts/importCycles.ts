/**
 * Lint check: fails when modules under `src/` import each other in a cycle. Type-only imports count too: a
 * cycle through a type still ties two layers together, and eslint-plugin-import-x's `no-cycle` skips them.
 *
 * Usage: `node scripts/importCycles.ts [folder]` (default `src`); run by `npm run lint`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Module -> the modules it imports (both as paths relative to the checked folder's parent). */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/**
 * The cycles in `graph`, one per strongly connected component (Tarjan's algorithm), each as the modules
 * along one loop through it, starting and ending at the same module.
 */
export function findCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  // Iterative, so a long import chain cannot overflow the call stack.
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: { node: string; next: number }[] = [{ node: root, next: 0 }];
    index.set(root, index.size);
    low.set(root, index.get(root)!);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const top = work[work.length - 1]!;
      const targets = graph.get(top.node) ?? [];
      if (top.next < targets.length) {
        const to = targets[top.next++]!;
        if (!index.has(to)) {
          index.set(to, index.size);
          low.set(to, index.get(to)!);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, next: 0 });
        } else if (onStack.has(to)) low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(top.node)!));
      if (low.get(top.node) !== index.get(top.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== top.node);
      // A module naming itself (`typeof import('./self.ts')`) is no cycle.
      if (component.length > 1) components.push(component);
    }
  }
  return components.map((c) => loopThrough(graph, new Set(c), [...c].sort()[0]!));
}

/** One loop from `start` back to itself inside `members` (breadth first, so the shortest). */
function loopThrough(graph: ImportGraph, members: ReadonlySet<string>, start: string): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const at = queue.shift()!;
    for (const to of graph.get(at) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let n: string | undefined = at; n !== undefined && n !== start; n = cameFrom.get(n)) path.splice(1, 0, n);
        return [...path, start];
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, at);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

/** Every `.ts` file's relative imports under `folder`, type-only and dynamic ones included. */
export function importGraph(folder: string): ImportGraph {
  const base = dirname(resolve(folder));
  const graph = new Map<string, string[]>();
  const name = (file: string) => relative(base, file).split(sep).join('/');
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.ts')) {
        const { importedFiles } = ts.preProcessFile(readFileSync(path, 'utf8'), true, true);
        const targets = importedFiles.filter((f) => f.fileName.startsWith('.')).map((f) => name(resolve(dirname(path), f.fileName)));
        graph.set(name(path), [...new Set(targets)]);
      }
    }
  };
  visit(resolve(folder));
  return graph;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const folder = process.argv[2] ?? 'src';
  const cycles = findCycles(importGraph(folder));
  for (const cycle of cycles) console.error(`import cycle: ${cycle.join(' -> ')}`);
  if (cycles.length) {
    console.error(`${cycles.length} import cycle${cycles.length === 1 ? '' : 's'} under ${folder}/: make the imports go one way.`);
    process.exitCode = 1;
  } else console.log(`No import cycles under ${folder}/.`);
}
