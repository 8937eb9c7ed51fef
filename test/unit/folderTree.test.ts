/** `@folder`'s tree: nested `.gitignore` files and `files.exclude` honoured, breadth first to a bound that says what it left out. */

import { strict as assert } from 'node:assert';
import { folderTree, type TreeFs } from '../../src/extension/context/folderTree.ts';

/** An in-memory tree: paths ending in '/' are folders, others files with their text. */
class MemoryFs implements TreeFs {
  readonly reads: string[] = [];
  private readonly _files: Record<string, string>;
  constructor(files: Record<string, string>) {
    this._files = files;
  }
  async readDir(rel: string) {
    this.reads.push(rel);
    const prefix = rel ? `${rel}/` : '';
    const seen = new Map<string, boolean>();
    for (const p of Object.keys(this._files)) {
      if (!p.startsWith(prefix)) continue;
      const rest = p.slice(prefix.length);
      const [name, ...more] = rest.split('/');
      if (name) seen.set(name, (seen.get(name) ?? false) || more.length > 0);
    }
    return [...seen];
  }
  async readText(rel: string) {
    return this._files[rel];
  }
}

describe('folder tree', () => {
  const ws = new MemoryFs({
    '.gitignore': 'node_modules/\n*.log\n',
    '.git/HEAD': 'ref',
    'node_modules/x/index.js': '',
    'README.md': '',
    'debug.log': '',
    'src/a.ts': '',
    'src/.gitignore': 'gen/\n!keep.log\n',
    'src/gen/out.ts': '',
    'src/keep.log': '',
    'src/util/b.ts': '',
    'out/bundle.js': '',
  });

  it('lists folders first, leaves out .git, gitignored paths (nested files too) and files.exclude', async () => {
    const tree = await folderTree('', ws, { excluded: (rel) => rel === 'out' });
    assert.equal(
      tree.text,
      ['./', '  src/', '    util/', '      b.ts', '    .gitignore', '    a.ts', '    keep.log', '  .gitignore', '  README.md', ''].join('\n'),
    );
    assert.deepEqual([tree.files, tree.folders, tree.clipped], [6, 2, false]);
  });

  it('reads the .gitignore files above a subfolder', async () => {
    const tree = await folderTree('src', ws);
    assert.ok(!tree.text.includes('gen/'));
    assert.ok(tree.text.includes('keep.log'), "src/.gitignore's negation beats the root's *.log");
  });

  it('keeps the top levels whole under the bound, says what it left out, and reads no folder past it', async () => {
    const big = new MemoryFs({ 'a/deep/x.ts': '', 'a/y.ts': '', 'b/z.ts': '', 'c.ts': '', 'd.ts': '' });
    const tree = await folderTree('', big, { maxEntries: 5 });
    assert.equal(
      tree.text,
      [
        './',
        '  a/',
        '    deep/',
        '      [… clipped: not listed]',
        '    [… clipped: 1 more entry not listed]',
        '  b/',
        '    [… clipped: not listed]',
        '  c.ts',
        '  d.ts',
        '',
      ].join('\n'),
    );
    assert.ok(tree.clipped);
    assert.ok(!big.reads.includes('a/deep'), 'a folder past the bound is not read');
  });
});
