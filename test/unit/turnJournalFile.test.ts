/** The turn journal's file: written off the host thread while a reply streams, never left stale by a clear or a stop. */

import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TurnJournalFile } from '../../src/extension/turnJournalFile.ts';
import type { JournaledTurn } from '../../src/shared/run/turnJournal.ts';
import { MemoryLog } from '../support/memoryLog.ts';

const turn = (text: string): JournaledTurn => ({ sessionFile: '/s.jsonl', prompt: 'Hi', text, at: 1 });

/** Resolves once `predicate` holds (the background write ran), polling the file system. */
async function until(predicate: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 10_000; !predicate(); await new Promise((r) => setTimeout(r, 5)))
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
}

describe('the turn journal file', () => {
  let dir: string;
  let file: string;
  let log: MemoryLog;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pi-journal-'));
    file = join(dir, 'storage', 'turn-journal.json');
    log = new MemoryLog();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes in the background, the newest turn last, and reads it back', async () => {
    const store = new TurnJournalFile(file, log);
    store.write(turn('one'));
    store.write(turn('one two'));
    store.write(turn('one two three'));
    await until(() => new TurnJournalFile(file, log).load()?.text === 'one two three', 'the newest turn on disk');
    // Nothing else queued: it stays the newest.
    await store.idle();
    assert.equal(store.load()?.text, 'one two three');
  });

  it('a clear wins over a write still under way: no stale journal comes back', async () => {
    const store = new TurnJournalFile(file, log);
    store.write(turn('streamed'));
    store.clear();
    await store.idle();
    assert.equal(existsSync(file), false);
    assert.deepEqual(readdirSync(join(dir, 'storage')), [], 'no temporary file left');
  });

  it('a write at once (the host ending) wins over a write still under way', async () => {
    const store = new TurnJournalFile(file, log);
    store.write(turn('older'));
    store.writeNow(turn('at the stop'));
    assert.equal(store.load()?.text, 'at the stop', 'on disk before it returns');
    await store.idle();
    assert.equal(store.load()?.text, 'at the stop');
    assert.deepEqual(log.lines, []);
  });

  it('a write that fails warns, settles, and does not stop a later write', async () => {
    writeFileSync(join(dir, 'storage'), 'a file where the folder should be');
    const store = new TurnJournalFile(file, log);
    store.write(turn('lost'));
    await store.idle();
    assert.equal(log.lines.length, 1, 'one warning');
    rmSync(join(dir, 'storage'));
    store.write(turn('kept'));
    await store.idle();
    assert.equal(store.load()?.text, 'kept');
  });
});
