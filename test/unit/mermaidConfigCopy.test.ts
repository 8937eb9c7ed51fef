/** The copy the build gives Mermaid's getConfig (esbuild.mjs) returns what Mermaid's own deep assign returned. */

import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyConfig } from '../../src/webview/mermaidConfigCopy.ts';

type Config = Record<string, unknown>;

/** The part of Mermaid's config module the test drives (the unpatched chunk from node_modules). */
interface MermaidConfigModule {
  assignWithDepth_default(dst: Config, src: Config): Config;
  setSiteConfig(conf: Config): Config;
  reset(): void;
  addDirective(directive: Config): void;
  getConfig(): Config;
}

const chunks = join('node_modules', 'mermaid', 'dist', 'chunks', 'mermaid.core');

async function mermaidConfig(): Promise<MermaidConfigModule> {
  const file = readdirSync(chunks).find((f) => f.endsWith('.mjs') && readFileSync(join(chunks, f), 'utf8').includes('var getConfig = '));
  assert.ok(file, "Mermaid's config module");
  return (await import(join(process.cwd(), chunks, file))) as MermaidConfigModule;
}

describe("Mermaid's configuration copy", () => {
  let m: MermaidConfigModule;
  before(async () => {
    m = await mermaidConfig();
  });
  afterEach(() => {
    m.setSiteConfig({});
    m.reset();
  });

  const states: [string, () => void][] = [
    ['the default configuration', () => m.reset()],
    [
      "the view's: strict, SVG labels, the base theme in VS Code's colours",
      () => {
        m.setSiteConfig({
          securityLevel: 'strict',
          htmlLabels: false,
          flowchart: { htmlLabels: false },
          theme: 'base',
          themeVariables: { darkMode: true, primaryColor: '#252526', lineColor: '#cccccc', fontFamily: 'system-ui' },
        });
        m.reset();
      },
    ],
    ['the dark theme', () => (m.setSiteConfig({ theme: 'dark' }), m.reset())],
    [
      "a diagram's directive with nested sections and lists",
      () => {
        m.reset();
        m.addDirective({ flowchart: { curve: 'basis', padding: 4 }, gantt: { topAxis: true }, sequence: { mirrorActors: false }, fontFamily: 'serif' });
      },
    ],
  ];
  for (const [name, setUp] of states) {
    it(`returns what Mermaid's deep assign returned for ${name}`, () => {
      setUp();
      const current = m.getConfig();
      assert.deepEqual(copyConfig(current), m.assignWithDepth_default({}, current));
    });
  }

  it('keeps arrays without repeated items and leaves null values out, as Mermaid did', () => {
    const src: Config = { list: ['a', 'b', 'a'], gone: null, section: { tags: [1, 1, 2], none: null, font: { size: 3 } } };
    assert.deepEqual(copyConfig(src), m.assignWithDepth_default({}, src));
    assert.deepEqual(copyConfig(src), { list: ['a', 'b'], section: { tags: [1, 2], font: { size: 3 } } });
  });

  it('gives each caller a copy it may change at any of the three levels without changing the configuration', () => {
    m.setSiteConfig({ theme: 'base' });
    m.reset();
    const current = m.getConfig();
    const before = JSON.stringify(current);
    const copy = copyConfig(current) as { theme: string; flowchart: { padding: number }; themeVariables: Config } & Record<string, Config>;
    copy.theme = 'changed';
    copy.flowchart.padding = -1;
    copy.themeVariables.primaryColor = 'red';
    // An object inside a section (the third level): the first one Mermaid's configuration has.
    const [section, key] = Object.entries(copy)
      .flatMap(([s, v]) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.entries(v).map(([k, x]) => [s, k, x] as const) : []))
      .find(([, , x]) => x && typeof x === 'object' && !Array.isArray(x))!;
    (copy[section]![key] as Config).changed = true;
    assert.equal(JSON.stringify(current), before);
  });
});
