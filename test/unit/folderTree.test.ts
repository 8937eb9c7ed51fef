/** `@folder`'s tree: nested `.gitignore` files and `files.exclude` honoured, breadth first to a bound that says what it left out. */

import { strict as assert } from 'node:assert';
import { folderTree, type TreeFs } from '../../src/extension/context/folderTree.ts';

/**
 * An in-memory tree: paths are files with their text, folders are implied. `links` are symlinked folders: each to
 * a workspace-relative folder, or to `outside` (a path out of the workspace, whose files are keyed `outside/…`).
 */
class MemoryFs implements TreeFs {
  readonly reads: string[] = [];
  private readonly _files: Record<string, string>;
  private readonly _links: Record<string, string>;
  constructor(files: Record<string, string>, links: Record<string, string> = {}) {
    this._files = files;
    this._links = links;
  }
  /** `rel` with its symlinked folders followed, as the file system would. */
  private _resolve(rel: string): string {
    const parts = rel ? rel.split('/') : [];
    for (let i = 1; i <= parts.length; i++) {
      const target = this._links[parts.slice(0, i).join('/')];
      if (target !== undefined) return this._resolve([target, ...parts.slice(i)].filter(Boolean).join('/'));
    }
    return rel;
  }
  async readDir(rel: string) {
    this.reads.push(rel);
    const real = this._resolve(rel);
    const prefix = real ? `${real}/` : '';
    const seen = new Map<string, boolean>();
    for (const p of Object.keys(this._files)) {
      if (!p.startsWith(prefix) || (!real && p.startsWith('outside/'))) continue;
      const rest = p.slice(prefix.length);
      const [name, ...more] = rest.split('/');
      if (name) seen.set(name, (seen.get(name) ?? false) || more.length > 0);
    }
    for (const link of Object.keys(this._links)) {
      const at = link.lastIndexOf('/');
      if (link.slice(0, Math.max(0, at)) === real) seen.set(link.slice(at + 1), true);
    }
    return [...seen].map(([name, isDir]) => [name, isDir, this._links[real ? `${real}/${name}` : name] !== undefined] as const);
  }
  async readText(rel: string) {
    return this._files[this._resolve(rel)];
  }
  async realPath(rel: string) {
    const real = this._resolve(rel);
    return real === 'outside' || real.startsWith('outside/') ? undefined : real;
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

  describe('with symlinked folders', () => {
    /** A fresh workspace for each test (each counts its own reads). */
    const workspace = () =>
      new MemoryFs(
        { 'src/a.ts': '', 'src/util/b.ts': '', 'outside/.ssh/id_rsa': 'KEY', 'outside/.ssh/config': '' },
        { home: 'outside', 'src/ssh': 'outside/.ssh', lib: 'src/util', 'src/util/up': 'src' },
      );

    it('does not descend into one whose real path leaves the workspace, and lists it as a link', async () => {
      const linked = workspace();
      const tree = await folderTree('', linked);
      assert.ok(!linked.reads.some((r) => r === 'home' || r === 'src/ssh'), linked.reads.join(', '));
      assert.ok(!tree.text.includes('id_rsa'), tree.text);
      assert.ok(tree.text.includes('  home/ (symlink out of the workspace: not followed)\n'), tree.text);
      assert.ok(tree.text.includes('    ssh/ (symlink out of the workspace: not followed)\n'), tree.text);
    });

    it('follows one that stays in the workspace, but not one back into a folder it is in', async () => {
      const linked = workspace();
      const tree = await folderTree('', linked);
      assert.ok(tree.text.includes('  lib/ (symlink to src/util)\n    up/ (symlink to src: a folder it is in, not followed)\n    b.ts\n'), tree.text);
      assert.ok(tree.text.includes('    util/\n      up/ (symlink to src: a folder it is in, not followed)\n'), tree.text);
      assert.ok(!linked.reads.includes('src/util/up') && !linked.reads.includes('lib/up'), linked.reads.join(', '));
    });

    it('follows none without a way to tell where they lead', async () => {
      const linked = workspace();
      const blind: TreeFs = { readDir: (rel) => linked.readDir(rel), readText: (rel) => linked.readText(rel) };
      const tree = await folderTree('', blind);
      assert.ok(tree.text.includes('  lib/ (symlink: not followed)\n'), tree.text);
      assert.ok(!linked.reads.includes('lib'));
    });
  });
});
