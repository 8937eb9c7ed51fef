/** The review draws no marks on a side of a diff editor, which shows the change already; a plain editor of the same file keeps them. */

import { strict as assert } from 'node:assert';
import { inDiff, type GroupSeen } from '../../src/shared/review/diffSides.ts';

const FILE = 'file:///w/a.ts';
const BEFORE = 'pi-before:/w/a.ts?chat=c1&t=1';
const OTHER = 'file:///w/b.ts';

/** A group in column `column` whose active tab is a plain editor. */
const plain = (column: number): GroupSeen => ({ column, diffs: [] });
/** A group in column `column` whose active tab is the diff `original` ↔ `modified`. */
const diff = (column: number, original: string, modified: string): GroupSeen => ({ column, diffs: [{ original, modified }] });

// As VS Code reports them: a diff editor's sides have no column, a plain editor has its group's.
describe('review marks and diff editors', () => {
  it('counts both sides of an active diff as in a diff', () => {
    const groups = [diff(1, BEFORE, FILE)];
    assert.equal(inDiff({ uri: FILE, column: undefined }, groups), true);
    assert.equal(inDiff({ uri: BEFORE, column: undefined }, groups), true);
  });

  it('leaves a plain editor of the same file in another group out of it', () => {
    const groups = [diff(1, BEFORE, FILE), plain(2)];
    assert.equal(inDiff({ uri: FILE, column: 2 }, groups), false);
    assert.equal(inDiff({ uri: FILE, column: undefined }, groups), true);
  });

  it('leaves the file out once no group’s active tab is a diff of it (the diff closed, or another tab active)', () => {
    assert.equal(inDiff({ uri: FILE, column: 1 }, [plain(1)]), false);
    assert.equal(inDiff({ uri: FILE, column: undefined }, [plain(1), plain(2)]), false);
  });

  it('does not take a diff of another file for one of this file', () => {
    assert.equal(inDiff({ uri: FILE, column: undefined }, [diff(1, 'pi-before:/w/b.ts', OTHER)]), false);
  });

  it('matches an editor that has a column only to the diff of its own group', () => {
    assert.equal(inDiff({ uri: FILE, column: 1 }, [diff(1, BEFORE, FILE)]), true);
    assert.equal(inDiff({ uri: FILE, column: 2 }, [diff(1, BEFORE, FILE), diff(2, BEFORE, OTHER)]), false);
  });

  it('counts an editor of any file of an active multi-file diff', () => {
    const review: GroupSeen = {
      column: 1,
      diffs: [
        { original: 'pi-pending:/w/b.ts', modified: OTHER },
        { original: 'pi-pending:/w/a.ts', modified: FILE },
      ],
    };
    assert.equal(inDiff({ uri: FILE, column: undefined }, [review]), true);
    assert.equal(inDiff({ uri: FILE, column: 2 }, [review, plain(2)]), false);
  });
});
