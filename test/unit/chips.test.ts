/** The documented prompt format chips expand into, and the user row reading it back. */

import { strict as assert } from 'node:assert';
import { chipRef, expandChips, isCodeChip, splitChips, type CodeChip } from '../../src/shared/chips.ts';

describe('chips', () => {
  const selection: CodeChip = { kind: 'selection', path: 'src/a.ts', startLine: 12, endLine: 14, text: 'const a = 1;\nconst b = 2;\n' };
  const problems: CodeChip = { kind: 'problems', path: 'src/a.ts', text: '3:5 error: x is not defined (ts)' };

  it('names a selection path:start-end, a file by its path, problems as problems:path', () => {
    assert.equal(chipRef(selection), 'src/a.ts:12-14');
    assert.equal(chipRef({ kind: 'file', path: 'README.md', text: '' }), 'README.md');
    assert.equal(chipRef(problems), 'problems:src/a.ts');
  });

  it('expands into context blocks before the text, and reads back the refs and the text', () => {
    const prompt = expandChips([selection, problems], 'Why does this fail?');
    assert.equal(
      prompt,
      '<context ref="src/a.ts:12-14">\nconst a = 1;\nconst b = 2;\n</context>\n\n' +
        '<context ref="problems:src/a.ts">\n3:5 error: x is not defined (ts)\n</context>\n\n' +
        'Why does this fail?',
    );
    assert.deepEqual(splitChips(prompt), { refs: ['src/a.ts:12-14', 'problems:src/a.ts'], text: 'Why does this fail?' });
  });

  it('leaves a prompt without chips as it is', () => {
    assert.equal(expandChips([], 'hi'), 'hi');
    assert.deepEqual(splitChips('<context> is a word\nhi'), { refs: [], text: '<context> is a word\nhi' });
  });

  it('checks chips from the host', () => {
    assert.ok(isCodeChip(selection));
    assert.ok(!isCodeChip({ kind: 'selection', path: 'a', text: 'x', startLine: -1 }));
    assert.ok(!isCodeChip({ kind: 'shell', path: 'a', text: 'x' }));
  });
});
