import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkFolder, lineCount, oneFileReason, oversized } from '../../scripts/fileSize.ts';

/** A file of `lines` lines: `head` first, then filler code. */
const fileOf = (lines: number, head = '/** What this file is for. */') => {
  const body = Array.from({ length: lines - head.split('\n').length }, (_, i) => `export const v${i} = ${i};`);
  return [head, ...body].join('\n') + '\n';
};

describe('file size check', () => {
  it('counts lines as an editor shows them (a final newline adds none)', () => {
    assert.equal(lineCount(''), 0);
    assert.equal(lineCount('a'), 1);
    assert.equal(lineCount('a\n'), 1);
    assert.equal(lineCount('a\r\nb\r\n'), 2);
    assert.equal(lineCount(fileOf(501)), 501);
  });

  it('reports a file over the limit whose top says nothing of why it is one file', () => {
    const found = oversized([{ path: 'src/big.ts', text: fileOf(501) }], 500);
    assert.deepEqual(found, [{ path: 'src/big.ts', lines: 501 }]);
  });

  it('lets a file of exactly the limit pass without a reason', () => {
    assert.deepEqual(oversized([{ path: 'src/full.ts', text: fileOf(500) }], 500), []);
  });

  it("lets a file over the limit pass when its top JSDoc has a line 'One file because …'", () => {
    const head = '/**\n * Checkpoints of a workspace.\n * One file because every operation runs through one queue.\n */';
    assert.deepEqual(oversized([{ path: 'src/big.ts', text: fileOf(800, head) }], 500), []);
    assert.equal(oneFileReason(fileOf(800, head)), 'One file because every operation runs through one queue.');
  });

  it('takes no reason from further down the file, from a // comment, or from an empty one', () => {
    const below = fileOf(600) + '/** One file because it is long. */\n';
    const lineComment = fileOf(600, '// One file because it is long.');
    const empty = fileOf(600, '/**\n * What it is.\n * One file because\n */');
    const afterCode = fileOf(600, "import x from './x.ts';\n/** One file because it is long. */");
    for (const text of [below, lineComment, empty, afterCode]) assert.equal(oneFileReason(text), undefined);
    assert.equal(oversized([{ path: 'src/a.ts', text: below }], 500).length, 1);
  });

  it('walks the folder, .ts and .js files only, and names each oversized file from the folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'file-size-'));
    try {
      mkdirSync(join(dir, 'src', 'worker'), { recursive: true });
      writeFileSync(join(dir, 'src', 'worker', 'big.ts'), fileOf(520));
      writeFileSync(join(dir, 'src', 'shim.js'), fileOf(510));
      writeFileSync(join(dir, 'src', 'small.ts'), fileOf(20));
      writeFileSync(join(dir, 'src', 'notes.md'), fileOf(900));
      const found = checkFolder(join(dir, 'src'), 500);
      assert.deepEqual(found, [
        { path: 'src/shim.js', lines: 510 },
        { path: 'src/worker/big.ts', lines: 520 },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
