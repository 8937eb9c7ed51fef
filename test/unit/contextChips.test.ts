/** What the new chips send: terminal output cleaned and clipped to its tail, bounds that say what they clipped, refs and sizes. */

import { strict as assert } from 'node:assert';
import { chipRef, chipSize, expandChips, isCodeChip, splitChips, type CodeChip } from '../../src/shared/chips.ts';
import { clipHead, clipTail } from '../../src/extension/context/bounds.ts';

describe('context chips', () => {
  it('names terminal, changes and folder chips, and one problem by its line', () => {
    assert.equal(chipRef({ kind: 'terminal', path: 'bash', text: '' }), 'terminal:bash');
    assert.equal(chipRef({ kind: 'changes', path: '', text: '' }), 'changes');
    assert.equal(chipRef({ kind: 'changes', path: 'staged', text: '' }), 'changes:staged');
    assert.equal(chipRef({ kind: 'folder', path: 'src/util', text: '' }), 'folder:src/util');
    assert.equal(chipRef({ kind: 'problems', path: 'a.json', startLine: 3, text: '' }), 'problems:a.json:3');
  });

  it('expands a new chip exactly as the chip holds it, and reads it back', () => {
    const chip: CodeChip = { kind: 'terminal', path: 'bash', text: '$ false\n[exit code 1]\n', detail: 'bash: false (exit code 1)' };
    const prompt = expandChips([chip], 'Why?');
    assert.equal(prompt, '<context ref="terminal:bash">\n$ false\n[exit code 1]\n</context>\n\nWhy?');
    assert.deepEqual(splitChips(prompt), { refs: ['terminal:bash'], text: 'Why?' });
    assert.ok(isCodeChip(chip));
    assert.ok(!isCodeChip({ ...chip, detail: 3 }));
  });

  it('gives a chip its size in characters and lines', () => {
    assert.equal(chipSize({ kind: 'file', path: 'a', text: 'ab\ncd\n' }), '6 chars, 2 lines');
    assert.equal(chipSize({ kind: 'file', path: 'a', text: 'x'.repeat(1500) }), '1.5K chars, 1 line');
    assert.equal(chipSize({ kind: 'file', path: 'a', text: '' }), '0 chars, 0 lines');
  });

  it('clips at line boundaries within the bound and says how many lines it left out', () => {
    const text = Array.from({ length: 10 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const head = clipHead(text, 20);
    assert.equal(head, 'line 0\nline 1\n[… clipped: 8 more lines not included]\n');
    const tail = clipTail(text, 20);
    assert.equal(tail, '[… clipped: 8 earlier lines not included]\nline 8\nline 9\n');
    assert.equal(clipHead(text, 1000), text);
    assert.equal(clipTail(text, 1000), text);
  });
});
