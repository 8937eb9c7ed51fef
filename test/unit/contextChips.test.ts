/** What the new chips send: terminal output cleaned and clipped to its tail, bounds that say what they clipped, refs and sizes. */

import { strict as assert } from 'node:assert';
import { chipRef, chipSize, expandChips, isCodeChip, splitChips, type CodeChip } from '../../src/shared/chips.ts';
import { CHANGES_MAX_CHARS, clipHead, clipTail } from '../../src/extension/context/bounds.ts';
import { changesText } from '../../src/extension/context/changesText.ts';

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

  describe('@changes', () => {
    const diff = (file: string, lines: number) =>
      `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -1,${lines} +1,${lines} @@\n${Array.from({ length: lines }, (_, i) => `-old ${i}\n+new ${i}`).join('\n')}\n`;
    const untracked = Array.from({ length: 20_000 }, (_, i) => `generated/output-${String(i).padStart(5, '0')}.json`);

    it('keeps 20,000 untracked files within its bound, says it clipped the list, and still sends the diff', () => {
      const r = changesText({ stagedOnly: false, staged: diff('src/a.ts', 3), unstaged: '', untracked })!;
      assert.ok(r.text.length <= CHANGES_MAX_CHARS, `${r.text.length} characters`);
      assert.ok(r.text.startsWith('# uncommitted changes (staged and not staged), 20001 files:\n#   M src/a.ts (staged)\n'), r.text.slice(0, 200));
      assert.match(r.text, /\n\[… clipped: \d+ more lines not included\]\n## staged \(git diff --cached\)\n/);
      assert.ok(r.text.includes('+new 2\n'), 'the diff is still sent');
      assert.match(r.detail, /clipped/);
    });

    it('keeps a large diff within its bound, the line that says it clipped included', () => {
      const r = changesText({ stagedOnly: true, staged: diff('src/big.ts', 20_000), unstaged: '', untracked: [] })!;
      assert.ok(r.text.length <= CHANGES_MAX_CHARS, `${r.text.length} characters`);
      assert.match(r.text, /\[… clipped: \d+ more lines not included\]\n$/);
      assert.match(r.detail, /clipped/);
    });

    it('sends small changes whole', () => {
      const r = changesText({ stagedOnly: false, staged: '', unstaged: diff('a.ts', 1), untracked: ['b.ts'] })!;
      assert.equal(
        r.text,
        `# uncommitted changes (staged and not staged), 2 files:\n#   M a.ts\n#   ? b.ts (untracked: no diff)\n## not staged (git diff)\n${diff('a.ts', 1)}`,
      );
      assert.equal(r.detail, 'Uncommitted changes: 1 not staged, 1 untracked');
    });
  });
});
