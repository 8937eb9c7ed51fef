/** What the new chips send: terminal output cleaned and clipped to its tail, bounds that say what they clipped, refs and sizes. */

import { strict as assert } from 'node:assert';
import { chipRef, chipSize, expandChips, isCodeChip, splitChips, type CodeChip } from '../../src/shared/chips.ts';
import { clipHead, clipTail } from '../../src/extension/context/bounds.ts';
import { beginsWithExecutedMark, plainTerminalText, terminalChipText, terminalDetail } from '../../src/extension/context/terminalText.ts';

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

  it("takes out colours, shell-integration marks and a progress line's overwritten states", () => {
    const raw = '\x1b]633;C\x07\x1b[31merror\x1b[0m: bad\r\n10%\r50%\r100%\r\n\x1b]633;D;1\x07';
    assert.equal(plainTerminalText(raw), 'error: bad\n100%\n');
  });

  it("writes the command, its output's tail and its exit code; says when it was clipped or still running", () => {
    const record = { terminal: 'bash', commandLine: 'npm test', cwd: '/w', output: 'ok\r\nFAIL x\r\n', exitCode: 1, running: false };
    assert.equal(terminalChipText(record), '# terminal "bash", in /w\n$ npm test\nok\nFAIL x\n[exit code 1]\n');
    assert.equal(terminalDetail(record), 'bash: npm test (exit code 1)');
    const long = { ...record, output: Array.from({ length: 100 }, (_, i) => `row ${i}`).join('\n') };
    const clipped = terminalChipText(long, 30);
    assert.match(clipped, /\[… clipped: \d+ earlier lines not included\]\n/);
    assert.ok(clipped.includes('row 99\n[exit code 1]'));
    assert.ok(!clipped.includes('row 1\n'));
    assert.match(terminalChipText({ ...record, running: true, exitCode: undefined }), /\[still running when added\]\n$/);
  });

  it('tells output VS Code passed on whole from output whose start it dropped', () => {
    assert.ok(beginsWithExecutedMark('\x1b]633;C\x07ls: cannot access'));
    assert.ok(beginsWithExecutedMark('\x1b]133;C\x07'), 'the FinalTerm mark of other shell integrations');
    assert.ok(!beginsWithExecutedMark("ls: cannot access '/x': No such file or directory\r\n"), 'the first piece was dropped');
    assert.ok(!beginsWithExecutedMark('\x1b]633;E;ls /x;nonce\x07'));
    assert.ok(!beginsWithExecutedMark(''));
  });

  it('says when the output was not received rather than that there was none', () => {
    const record = { terminal: 'bash', commandLine: 'ls /x', output: '', exitCode: 2, running: false };
    assert.equal(terminalChipText(record), '# terminal "bash"\n$ ls /x\n(no output)\n[exit code 2]\n');
    assert.equal(
      terminalChipText({ ...record, outputIncomplete: true }),
      '# terminal "bash"\n$ ls /x\n(the output was not received: copy it from the terminal into the message)\n[exit code 2]\n',
    );
    assert.equal(
      terminalChipText({ ...record, output: 'tail line\r\n', outputIncomplete: true }),
      '# terminal "bash"\n$ ls /x\n[… the start of the output was not received]\ntail line\n[exit code 2]\n',
    );
  });
});
