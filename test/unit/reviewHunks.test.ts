import { strict as assert } from 'node:assert';
import { applyEdit, applyEdits, computeHunks, linesOf, stackRun, stillThere, undoEdit, type Hunk, type LineEdit } from '../../src/shared/review/hunks.ts';

/** The text with `edit` applied, as a document would have it. */
function edited(text: string, edit: LineEdit): string {
  const offset = (line: number, character: number) => {
    const lines = linesOf(text);
    let o = 0;
    for (let i = 0; i < line; i++) o += lines[i]?.length ?? 0;
    return o + character;
  };
  return text.slice(0, offset(edit.start.line, edit.start.character)) + edit.text + text.slice(offset(edit.end.line, edit.end.character));
}

function ids(): () => string {
  let n = 0;
  return () => `h${++n}`;
}

const at = (line: number, character = 0) => ({ line, character });
const BEFORE = 'a\nb\nc\nd\ne\nf\ng\nh\n';
const AFTER = 'a\nB\nc\nd\ne\nf\nG\nG2\nh\n';

describe('review hunks', () => {
  it('finds one hunk per run of changed lines, with the lines before and after', () => {
    const hunks = computeHunks(BEFORE, AFTER, ids());
    assert.deepEqual(
      hunks.map((h) => [h.start, h.oldText, h.newText]),
      [
        [1, 'b\n', 'B\n'],
        [6, 'g\n', 'G\nG2\n'],
      ],
    );
  });

  it('undoes one hunk and leaves the other as it is', () => {
    const [first, second] = computeHunks(BEFORE, AFTER, ids());
    const text = edited(AFTER, undoEdit(second!));
    assert.equal(text, 'a\nB\nc\nd\ne\nf\ng\nh\n');
    assert.ok(stillThere(first!, linesOf(text)));
  });

  it('moves a later hunk down when the user adds lines above it', () => {
    const hunks = computeHunks(BEFORE, AFTER, ids());
    const edit = { start: at(3), end: at(3), text: 'x\ny\n' };
    const r = applyEdit(hunks, edit);
    assert.deepEqual(r.taken, []);
    assert.deepEqual(
      r.hunks.map((h) => h.start),
      [1, 8],
    );
    const text = edited(AFTER, edit);
    for (const h of r.hunks) assert.ok(stillThere(h, linesOf(text)), h.id);
    assert.equal(edited(text, undoEdit(r.hunks[1]!)), 'a\nB\nc\nx\ny\nd\ne\nf\ng\nh\n');
  });

  it('moves a later hunk up when the user deletes lines above it', () => {
    const r = applyEdit(computeHunks(BEFORE, AFTER, ids()), { start: at(2), end: at(5), text: '' });
    assert.deepEqual(
      r.hunks.map((h) => h.start),
      [1, 3],
    );
  });

  it('leaves an earlier hunk where it is when the user types below it', () => {
    const r = applyEdit(computeHunks(BEFORE, AFTER, ids()), { start: at(4, 1), end: at(4, 1), text: 'zz' });
    assert.deepEqual(
      r.hunks.map((h) => h.start),
      [1, 6],
    );
  });

  it('gives a hunk to the user when they type inside it, and only that one', () => {
    const r = applyEdit(computeHunks(BEFORE, AFTER, ids()), { start: at(7, 1), end: at(7, 1), text: '!' });
    assert.deepEqual(
      r.taken.map((h) => h.newText),
      ['G\nG2\n'],
    );
    assert.deepEqual(
      r.hunks.map((h) => h.newText),
      ['B\n'],
    );
  });

  it('gives a hunk to the user when text without a line break lands at the start of its first line', () => {
    const r = applyEdit(computeHunks(BEFORE, AFTER, ids()), { start: at(1), end: at(1), text: '// ' });
    assert.deepEqual(
      r.taken.map((h) => h.newText),
      ['B\n'],
    );
  });

  it('moves a hunk down when whole lines are inserted right before it', () => {
    const r = applyEdit(computeHunks(BEFORE, AFTER, ids()), { start: at(1), end: at(1), text: 'new\n' });
    assert.deepEqual(
      r.hunks.map((h) => h.start),
      [2, 7],
    );
  });

  it('gives a hunk to the user when an edit joins its last line with the next', () => {
    const r = applyEdit(computeHunks(BEFORE, AFTER, ids()), { start: at(1, 1), end: at(2, 0), text: '' });
    assert.deepEqual(
      r.taken.map((h) => h.newText),
      ['B\n'],
    );
  });

  it('keeps a pure deletion pending while lines around it change, and undo puts the lines back', () => {
    const after = 'a\nb\nf\ng\nh\n';
    const [del] = computeHunks(BEFORE, after, ids());
    assert.deepEqual([del!.start, del!.oldText, del!.newText], [2, 'c\nd\ne\n', '']);
    const edit = { start: at(0), end: at(1), text: '' };
    const r = applyEdit([del!], edit);
    assert.equal(r.hunks[0]!.start, 1);
    assert.equal(edited(edited(after, edit), undoEdit(r.hunks[0]!)), 'b\nc\nd\ne\nf\ng\nh\n');
  });

  it('undoes a change to a last line without a line break', () => {
    const [h] = computeHunks('a\nb', 'a\nc', ids());
    assert.equal(edited('a\nc', undoEdit(h!)), 'a\nb');
    assert.equal(applyEdit([h!], { start: at(1, 1), end: at(1, 1), text: '\nmore' }).taken.length, 1);
  });

  it('moves hunks through one event of several edits (multiple cursors, last one first as VS Code reports them)', () => {
    const hunks = computeHunks(BEFORE, AFTER, ids());
    const edits = [
      { start: at(8), end: at(8), text: 'tail\n' },
      { start: at(4), end: at(4), text: 'mid\n' },
      { start: at(0), end: at(0), text: 'top\n' },
    ];
    const r = applyEdits(hunks, edits);
    let text = AFTER;
    for (const e of edits) text = edited(text, e);
    assert.deepEqual(r.taken, []);
    assert.deepEqual(
      r.hunks.map((h) => h.start),
      [2, 8],
    );
    for (const h of r.hunks) assert.ok(stillThere(h, linesOf(text)), h.id);
  });

  it('keeps every untouched hunk undoable through many edits elsewhere (seeded random edits)', () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 200; round++) {
      const base = Array.from({ length: 30 }, (_, i) => `line ${i}\n`);
      const changed = base.map((l, i) => (i % 5 === 2 ? `changed ${i}\n` : l)).filter((_, i) => i % 7 !== 4);
      const before = base.join('');
      let text = changed.join('');
      let hunks: Hunk[] = computeHunks(before, text, ids());
      for (let k = 0; k < 5; k++) {
        const lines = linesOf(text);
        const line = rand(lines.length);
        const endLine = Math.min(lines.length, line + rand(3));
        const width = (l: number) => (lines[l] ?? '').replace(/\n$/, '').length;
        const startChar = Math.min(width(line), rand(3));
        const endChar = endLine === line ? Math.min(width(line), startChar + rand(3)) : Math.min(width(endLine), rand(2));
        const edit = { start: at(line, startChar), end: at(endLine, endChar), text: ['', 'x', 'y\n', 'p\nq\n', 'z\nw'][rand(5)]! };
        const r = applyEdits(hunks, [edit]);
        text = edited(text, edit);
        hunks = r.hunks;
        for (const h of hunks) assert.ok(stillThere(h, linesOf(text)), `round ${round}: ${JSON.stringify(h)} lost after ${JSON.stringify(edit)}`);
      }
      // Undoing all that is still pending, last first, leaves each of them as it was before the run.
      for (const h of [...hunks].reverse()) text = edited(text, undoEdit(h));
      for (const h of hunks) assert.ok(text.includes(h.oldText), `round ${round}`);
    }
  });

  it("stacks a new run's changes on pending ones: untouched ones move, touched ones merge back to the first text", () => {
    const first = 'a\nb\nc\nd\ne\nf\ng\nh\n';
    const afterOne = 'a\nB\nc\nd\ne\nf\nG\nh\n';
    const older = computeHunks(first, afterOne, ids());
    const afterTwo = 'top\na\nB\nc\nd\ne\nf\nGG\nh\n';
    const stacked = stackRun(older, afterOne, afterTwo, ids());
    assert.deepEqual(
      stacked.map((h) => [h.start, h.oldText, h.newText]),
      [
        [0, '', 'top\n'],
        [2, 'b\n', 'B\n'],
        [7, 'g\n', 'GG\n'],
      ],
    );
    let text = afterTwo;
    for (const h of [...stacked].reverse()) text = edited(text, undoEdit(h));
    assert.equal(text, first);
  });

  it("keeps a new run's change on the line next to a pending one as a change of its own", () => {
    const older = computeHunks('a\nb\nc\n', 'a\nB\nc\n', ids());
    const stacked = stackRun(older, 'a\nB\nc\n', 'A\nB\nc\n', ids());
    assert.deepEqual(
      stacked.map((h) => [h.start, h.oldText, h.newText]),
      [
        [0, 'a\n', 'A\n'],
        [1, 'b\n', 'B\n'],
      ],
    );
  });

  it('undoing every stacked change gives the file before both runs, less what the user kept (seeded random runs)', () => {
    let seed = 11;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const mutate = (lines: string[], tag: string) =>
      lines.flatMap((l, i) => {
        const r = rand(10);
        if (r === 0) return [];
        if (r === 1) return [`${tag} ${i}\n`];
        if (r === 2) return [l, `${tag} added ${i}\n`];
        return [l];
      });
    for (let round = 0; round < 300; round++) {
      const t0 = Array.from({ length: 20 }, (_, i) => `line ${i}\n`);
      const t1 = mutate(t0, 'one');
      const first = computeHunks(t0.join(''), t1.join(''), ids());
      // The user keeps some of the first run's changes: the file "before" them is the first run's text there.
      const pending = first.filter(() => rand(3) > 0);
      let base = t1.join('');
      for (const h of [...pending].reverse()) base = edited(base, undoEdit(h));
      const t2 = mutate(t1, 'two').join('');
      const stacked = stackRun(pending, t1.join(''), t2, ids());
      for (const h of stacked) assert.ok(stillThere(h, linesOf(t2)), `round ${round}: ${JSON.stringify(h)}`);
      let text = t2;
      for (const h of [...stacked].reverse()) text = edited(text, undoEdit(h));
      assert.equal(text, base, `round ${round}`);
    }
  });
});
