/** `.gitignore` rules as git applies them: negation, nested files, folder patterns, anchors, and no way back out of an ignored folder. */

import { strict as assert } from 'node:assert';
import { GitignoreRules } from '../../src/extension/context/gitignore.ts';

function rules(files: Record<string, string>, ignoreCase = false): GitignoreRules {
  const r = new GitignoreRules({ ignoreCase });
  for (const [dir, text] of Object.entries(files)) r.add(dir, text);
  return r;
}

describe('gitignore rules', () => {
  it('re-includes with ! when a later line negates an earlier match', () => {
    const r = rules({ '': '*.log\n!keep.log\n' });
    assert.ok(r.ignores('debug.log', false));
    assert.ok(r.ignores('src/deep/trace.log', false));
    assert.ok(!r.ignores('keep.log', false));
    assert.ok(!r.ignores('src/keep.log', false));
  });

  it('lets a later line ignore again what an earlier negation re-included', () => {
    const r = rules({ '': '*.log\n!*.keep.log\nold.keep.log\n' });
    assert.ok(!r.ignores('a.keep.log', false));
    assert.ok(r.ignores('old.keep.log', false));
  });

  it('never brings back a file inside an ignored folder, whatever the negation', () => {
    const r = rules({ '': 'logs/\n!logs/keep.log\n' });
    assert.ok(r.ignores('logs/keep.log', false));
    // Ignoring the contents (not the folder) leaves room for a negation.
    const contents = rules({ '': 'logs/*\n!logs/keep.log\n' });
    assert.ok(!contents.ignores('logs/keep.log', false));
    assert.ok(contents.ignores('logs/other.log', false));
  });

  it('never lets a .gitignore inside an ignored folder bring its files back (git never reads it)', () => {
    const r = rules({ '': 'vendor/\n', vendor: '!*\n!lib.js\n' });
    assert.ok(r.ignores('vendor/lib.js', false));
    assert.ok(r.ignores('vendor/sub/x.js', false));
  });

  it('matches a pattern ending in / only on folders', () => {
    const r = rules({ '': 'build/\n' });
    assert.ok(r.ignores('build', true));
    assert.ok(r.ignores('packages/a/build', true));
    assert.ok(r.ignores('build/out.js', false));
    assert.ok(!r.ignores('build', false), 'a file named build is kept');
  });

  it('anchors a pattern with a leading or middle / to the .gitignore folder, and leaves a bare name free to match at any depth', () => {
    const r = rules({ '': '/todo.txt\ndocs/*.md\nsecret\n' });
    assert.ok(r.ignores('todo.txt', false));
    assert.ok(!r.ignores('src/todo.txt', false));
    assert.ok(r.ignores('docs/a.md', false));
    assert.ok(!r.ignores('src/docs/a.md', false), 'docs/*.md is anchored by its middle slash');
    assert.ok(!r.ignores('docs/sub/a.md', false), '* does not cross a slash');
    assert.ok(r.ignores('secret', false));
    assert.ok(r.ignores('a/b/secret', true));
  });

  it('reads ** as any number of folders', () => {
    const r = rules({ '': 'a/**/z.txt\n**/cache\n' });
    assert.ok(r.ignores('a/z.txt', false));
    assert.ok(r.ignores('a/b/c/z.txt', false));
    assert.ok(r.ignores('x/y/cache', true));
  });

  it('applies a nested .gitignore only below its own folder, anchored there', () => {
    const r = rules({ '': '*.tmp\n', pkg: '/dist\n*.gen.ts\n' });
    assert.ok(r.ignores('pkg/dist', true));
    assert.ok(!r.ignores('dist', true), 'the nested file does not rule the root');
    assert.ok(!r.ignores('other/dist', true));
    assert.ok(!r.ignores('pkg/sub/dist', true), '/dist is anchored to pkg/');
    assert.ok(r.ignores('pkg/sub/x.gen.ts', false));
    assert.ok(!r.ignores('x.gen.ts', false));
    assert.ok(r.ignores('pkg/a.tmp', false), "the root's rules still reach into pkg/");
  });

  it('lets a deeper .gitignore re-include what a shallower one ignores, and ignore what it keeps', () => {
    const r = rules({ '': '*.txt\n', docs: '!notes.txt\n', 'docs/private': 'notes.txt\n' });
    assert.ok(r.ignores('a.txt', false));
    assert.ok(!r.ignores('docs/notes.txt', false));
    assert.ok(r.ignores('docs/other.txt', false));
    assert.ok(r.ignores('docs/private/notes.txt', false));
  });

  it('skips comments and blank lines, honours an escaped # and is case-sensitive unless told', () => {
    const r = rules({ '': '# a comment\n\n\\#hash\nREADME.MD\n' });
    assert.ok(r.ignores('#hash', false));
    assert.ok(!r.ignores('# a comment', false));
    assert.ok(!r.ignores('README.md', false));
    assert.ok(rules({ '': 'README.MD\n' }, true).ignores('README.md', false));
  });
});
