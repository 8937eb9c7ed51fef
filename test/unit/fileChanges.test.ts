/** What a run did to files: before-content captured when edit/write start, +/− counts, Undo and its refusals, the record kept across a reload. */

import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FileChanges, MAX_BEFORE_BYTES } from '../../src/worker/fileChanges.ts';
import { firstChangedLine, lineCounts } from '../../src/shared/lineDiff.ts';

describe('file changes of a run', () => {
  let root: string;
  let storage: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'pi-changes-'));
    storage = mkdtempSync(join(tmpdir(), 'pi-storage-'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(storage, { recursive: true, force: true });
  });
  const file = (rel: string) => join(root, rel);

  it('keeps the content from before the first edit when a file is edited twice in one run', () => {
    writeFileSync(file('a.ts'), 'one\ntwo\nthree\n');
    const fc = new FileChanges(root, storage);
    fc.toolStarted('edit', { path: 'a.ts', oldText: 'two', newText: 'TWO' });
    writeFileSync(file('a.ts'), 'one\nTWO\nthree\n');
    fc.toolStarted('edit', { path: file('a.ts'), oldText: 'three', newText: 'THREE' });
    writeFileSync(file('a.ts'), 'one\nTWO\nTHREE\n');
    assert.deepEqual(fc.before('a.ts'), { kind: 'text', text: 'one\ntwo\nthree\n' });
    const row = fc.runSettled(undefined);
    assert.deepEqual(row?.files, [{ path: 'a.ts', added: 2, removed: 2, created: false }]);
  });

  it('diffs a file Pi created against nothing, and Undo deletes it', () => {
    const fc = new FileChanges(root, storage);
    fc.toolStarted('write', { path: 'new/b.txt', content: 'x\ny\n' });
    // `write` creates the folder too.
    mkdirSync(join(root, 'new'));
    writeFileSync(file('new/b.txt'), 'x\ny\n');
    assert.deepEqual(fc.before('new/b.txt'), { kind: 'absent' });
    assert.deepEqual(fc.runSettled(undefined)?.files, [{ path: 'new/b.txt', added: 2, removed: 0, created: true }]);
    assert.equal(fc.undo('new/b.txt').ok, true);
    assert.equal(existsSync(file('new/b.txt')), false);
  });

  it('refuses a binary file politely: no diff, no undo, the row says why', () => {
    writeFileSync(file('img.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    const fc = new FileChanges(root, storage);
    fc.toolStarted('write', { path: 'img.bin', content: 'text now' });
    writeFileSync(file('img.bin'), 'text now');
    assert.deepEqual(fc.before('img.bin'), { kind: 'refused', reason: 'it is a binary file' });
    const row = fc.runSettled(undefined);
    assert.equal(row?.files[0]?.note, 'it is a binary file');
    const undo = fc.undo('img.bin');
    assert.equal(undo.ok, false);
    assert.match(undo.message, /binary/);
    assert.equal(readFileSync(file('img.bin'), 'utf8'), 'text now');
  });

  it('does not list a binary file the run left alone', () => {
    writeFileSync(file('img.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    const fc = new FileChanges(root, storage);
    fc.toolStarted('write', { path: 'img.bin', content: 'x' });
    assert.equal(fc.runSettled(undefined), undefined);
  });

  it('refuses a file larger than the limit', () => {
    writeFileSync(file('big.txt'), 'a'.repeat(MAX_BEFORE_BYTES + 1));
    const fc = new FileChanges(root, storage);
    fc.toolStarted('edit', { path: 'big.txt', oldText: 'a', newText: 'b' });
    assert.equal(fc.before('big.txt')?.kind, 'refused');
    assert.match((fc.before('big.txt') as { reason: string }).reason, /larger than/);
  });

  it('restores the exact bytes on Undo', () => {
    const original = 'keep\r\nthese bytes é\n';
    writeFileSync(file('c.txt'), original);
    const fc = new FileChanges(root, storage);
    fc.toolStarted('edit', { path: 'c.txt' });
    writeFileSync(file('c.txt'), 'changed\n');
    fc.runSettled(undefined);
    const undo = fc.undo('c.txt');
    assert.deepEqual(undo, { ok: true, message: 'Restored c.txt.' });
    assert.equal(readFileSync(file('c.txt'), 'utf8'), original);
    assert.equal(fc.view()?.files[0]?.undone, true);
  });

  it('refuses Undo when the file changed outside Pi since the run, and leaves it alone', () => {
    writeFileSync(file('d.txt'), 'before\n');
    const fc = new FileChanges(root, storage);
    fc.toolStarted('edit', { path: 'd.txt' });
    writeFileSync(file('d.txt'), 'by pi\n');
    fc.runSettled(undefined);
    writeFileSync(file('d.txt'), 'by the user\n');
    const undo = fc.undo('d.txt');
    assert.equal(undo.ok, false);
    assert.match(undo.message, /changed after Pi's run/);
    assert.equal(readFileSync(file('d.txt'), 'utf8'), 'by the user\n');
  });

  it('lists nothing when the run left every file as it was (a failed or blocked edit)', () => {
    writeFileSync(file('e.txt'), 'same\n');
    const fc = new FileChanges(root, storage);
    fc.toolStarted('edit', { path: 'e.txt' });
    assert.equal(fc.runSettled(undefined), undefined);
  });

  it('ignores tools that do not change files', () => {
    const fc = new FileChanges(root, storage);
    fc.toolStarted('read', { path: 'x' });
    fc.toolStarted('bash', { command: 'rm -rf x' });
    assert.equal(fc.before('x'), undefined);
  });

  it('tracks and undoes writes through ~/x, @x, file:// and a Unicode space where Pi puts them', () => {
    const home = mkdtempSync(join(tmpdir(), 'pi-home-'));
    const savedHome = process.env.HOME;
    process.env.HOME = home;
    try {
      for (const f of ['h.txt', 'at.txt', 'url.txt', 'sp ace.txt']) writeFileSync(f === 'h.txt' ? join(home, f) : file(f), 'old\n');
      const fc = new FileChanges(root, storage);
      const writes: [string, string][] = [
        ['~/h.txt', join(home, 'h.txt')],
        ['@at.txt', file('at.txt')],
        [pathToFileURL(file('url.txt')).href, file('url.txt')],
        ['sp\u00A0ace.txt', file('sp ace.txt')],
      ];
      for (const [given, real] of writes) {
        fc.toolStarted('write', { path: given, content: 'new\n' });
        writeFileSync(real, 'new\n');
      }
      assert.equal(fc.runSettled(undefined)?.files.length, 4);
      assert.deepEqual(fc.undoAll(), { ok: true, message: "Undid the run's changes to 4 files." });
      for (const [, real] of writes) assert.equal(readFileSync(real, 'utf8'), 'old\n', real);
    } finally {
      process.env.HOME = savedHome;
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('keeps the last run in workspace storage: a fresh tracker (a reloaded window) shows it and can undo', () => {
    writeFileSync(file('f.txt'), 'v1\n');
    const first = new FileChanges(root, storage);
    first.toolStarted('write', { path: 'f.txt', content: 'v2\n' });
    writeFileSync(file('f.txt'), 'v2\n');
    first.runSettled('/sessions/s1.jsonl');
    const reloaded = new FileChanges(root, storage);
    assert.equal(reloaded.lastFor('/sessions/other.jsonl'), undefined);
    assert.deepEqual(reloaded.lastFor('/sessions/s1.jsonl')?.files, [{ path: 'f.txt', added: 1, removed: 1, created: false }]);
    assert.equal(reloaded.undoAll().ok, true);
    assert.equal(readFileSync(file('f.txt'), 'utf8'), 'v1\n');
  });
});

describe('line arithmetic', () => {
  it('counts lines added and removed', () => {
    assert.deepEqual(lineCounts('a\nb\nc\n', 'a\nB\nc\nd\n'), { added: 2, removed: 1 });
    assert.deepEqual(lineCounts('', 'x\ny'), { added: 2, removed: 0 });
    assert.deepEqual(lineCounts('x', 'x'), { added: 0, removed: 0 });
  });
  it('finds the first changed line', () => {
    assert.equal(firstChangedLine('a\nb\nc', 'a\nb\nC'), 3);
    assert.equal(firstChangedLine('', 'new'), 1);
    assert.equal(firstChangedLine('a\nb', 'a'), 1);
  });
});
