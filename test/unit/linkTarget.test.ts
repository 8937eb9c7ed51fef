import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { linkTarget, realPath } from '../../src/extension/linkTarget.ts';

describe('links clicked in the chat', () => {
  const root = '/work/project';
  const cases: [string, string, string | undefined][] = [
    ['https://example.com/a?b=c', 'external', 'https://example.com/a?b=c'],
    ['http://localhost:3000/', 'external', 'http://localhost:3000/'],
    ['src/app.ts', 'file', '/work/project/src/app.ts'],
    ['./README.md#L12', 'file', '/work/project/README.md'],
    ['file:///work/project/src/x.ts', 'file', '/work/project/src/x.ts'],
    ['..foo/bar.ts', 'file', '/work/project/..foo/bar.ts'],
    ['../secret.txt', 'refused', undefined],
    ['/etc/passwd', 'refused', undefined],
    ['file:///etc/passwd', 'refused', undefined],
    ['src/../../escape', 'refused', undefined],
    ['javascript:alert(1)', 'refused', undefined],
    ['data:text/html,<script>alert(1)</script>', 'refused', undefined],
    ['vscode://settings/x', 'refused', undefined],
    ['command:workbench.action.terminal.new', 'refused', undefined],
  ];
  for (const [href, kind, where] of cases) {
    it(`${kind === 'refused' ? 'refuses' : 'opens'} ${href}`, () => {
      const t = linkTarget(href, root);
      assert.equal(t.kind, kind, JSON.stringify(t));
      if (t.kind === 'external') assert.equal(t.url, where);
      if (t.kind === 'file') assert.equal(t.path, where);
    });
  }

  it('goes to the line of a #L fragment', () => {
    assert.deepEqual(linkTarget('src/a.ts#L42', root), { kind: 'file', path: '/work/project/src/a.ts', line: 42 });
  });

  it('opens no file when no folder is open', () => {
    assert.equal(linkTarget('src/a.ts', undefined).kind, 'refused');
  });
});

describe('links and the real file system', () => {
  let dir: string;
  let root: string;

  before(() => {
    // realpath of the temp dir itself, which may be a symlink (macOS /var -> /private/var).
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'pi-links-')));
    root = join(dir, 'workspace');
    mkdirSync(join(root, 'src'), { recursive: true });
    mkdirSync(join(dir, 'outside'));
    writeFileSync(join(dir, 'outside', 'secret.txt'), 'secret');
    writeFileSync(join(root, 'src', 'app.ts'), 'app');
    symlinkSync(join(dir, 'outside'), join(root, 'escape'));
    symlinkSync(join(dir, 'outside', 'secret.txt'), join(root, 'secret-link.txt'));
    symlinkSync(join(root, 'src'), join(root, 'inner'));
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a symlinked folder in the workspace that leads outside it', () => {
    assert.equal(linkTarget('escape/secret.txt', root).kind, 'refused');
    assert.equal(linkTarget(pathToFileURL(join(root, 'escape', 'secret.txt')).href, root).kind, 'refused');
  });

  it('refuses a symlinked file in the workspace that points outside it', () => {
    assert.equal(linkTarget('secret-link.txt', root).kind, 'refused');
  });

  it('opens a symlink that stays inside the workspace, at its real path', () => {
    assert.deepEqual(linkTarget('inner/app.ts#L3', root), { kind: 'file', path: join(root, 'src', 'app.ts'), line: 3 });
  });

  it('accepts a workspace opened through a symlink', () => {
    const alias = join(dir, 'alias');
    symlinkSync(root, alias);
    assert.deepEqual(linkTarget('src/app.ts', alias), { kind: 'file', path: join(root, 'src', 'app.ts') });
    assert.equal(linkTarget('escape/secret.txt', alias).kind, 'refused');
  });

  it('resolves a file that does not exist yet below its real folder', () => {
    assert.equal(realPath(join(root, 'inner', 'new', 'file.ts')), join(root, 'src', 'new', 'file.ts'));
    assert.equal(linkTarget('escape/not-yet.txt', root).kind, 'refused');
  });

  it('refuses a file: URI with a malformed % escape instead of throwing', () => {
    assert.deepEqual(linkTarget('file:///work/project/%E0%A4%A.ts', root).kind, 'refused');
    assert.deepEqual(linkTarget(`${pathToFileURL(root).href}/%ZZ%E0.ts`, root).kind, 'refused');
  });
});
