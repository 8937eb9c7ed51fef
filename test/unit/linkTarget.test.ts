import { strict as assert } from 'node:assert';
import { linkTarget } from '../../src/extension/linkTarget.ts';

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
