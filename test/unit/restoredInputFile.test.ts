/** Queued messages a reload took back from Pi, kept on disk for the next extension host. */

import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keepRestoredInput, takeRestoredInput } from '../../src/extension/restoredInputFile.ts';
import { MemoryLog } from '../support/memoryLog.ts';

describe('queued messages across a reload', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'pi-restored-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('gives back every text kept, in order, once', () => {
    const file = join(dir, 'restored-input.json');
    const log = new MemoryLog();
    keepRestoredInput(file, { texts: ['steer me'] }, log);
    keepRestoredInput(file, { texts: ['then this'] }, log);
    assert.deepEqual(takeRestoredInput(file, log), { texts: ['steer me', 'then this'] });
    assert.equal(existsSync(file), false);
    assert.equal(takeRestoredInput(file, log), undefined);
  });

  it('drops a file it did not write', () => {
    const file = join(dir, 'restored-input.json');
    writeFileSync(file, JSON.stringify({ texts: [1, 2] }));
    assert.equal(takeRestoredInput(file, new MemoryLog()), undefined);
  });
});
