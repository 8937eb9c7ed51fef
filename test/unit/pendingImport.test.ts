/** An import the worker died during leaves no copy: the next worker's start removes it, and only it, before any session opens. */

import { strict as assert } from 'node:assert';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importLeavingNoCopy, PendingImport } from '../../src/worker/sessionFiles.ts';
import { tempDir } from '../support/tempDir.ts';

/** A session file whose header names session `id`. */
function session(file: string, id: string, version = 3): string {
  writeFileSync(file, `${JSON.stringify({ type: 'session', version, id, timestamp: '2026-12-01T00:00:00.000Z', cwd: '/w' })}\n{"type":"message"}\n`);
  return file;
}

/** An import whose worker dies once the copy exists: `op` never settles, as no code runs after a worker ends. */
function dyingImport(dir: string, source: string, pending: PendingImport, copy: (dest: string) => void): void {
  void importLeavingNoCopy(
    dir,
    source,
    () => {
      copy(join(dir, 'imported.jsonl'));
      return new Promise<never>(() => undefined);
    },
    pending,
  );
}

describe('an import the worker died during', () => {
  let root: string;
  let dir: string;
  let storage: string;
  beforeEach(() => {
    root = tempDir('pi-pending-');
    dir = join(root, 'sessions');
    storage = join(root, 'storage');
    mkdirSync(dir);
    session(join(dir, 'kept.jsonl'), 'kept');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('leaves a copy that the next start removes, with the record', () => {
    const source = session(join(root, 'crafted.jsonl'), 'crafted');
    dyingImport(dir, source, new PendingImport(() => storage), (dest) => session(dest, 'crafted'));
    assert.deepEqual(readdirSync(dir).sort(), ['imported.jsonl', 'kept.jsonl']);
    const next = new PendingImport(() => storage);
    assert.deepEqual(next.removeLeftover(), [join(dir, 'imported.jsonl')]);
    assert.deepEqual(readdirSync(dir), ['kept.jsonl']);
    assert.deepEqual(readdirSync(storage), [], 'the record is gone');
    assert.deepEqual(next.removeLeftover(), [], 'a second start finds nothing');
  });

  it('finds the copy Pi rewrote when it opened it (an old version migrated)', () => {
    const source = session(join(root, 'old.jsonl'), 'old', 1);
    dyingImport(dir, source, new PendingImport(() => storage), (dest) => session(dest, 'old', 3));
    assert.deepEqual(new PendingImport(() => storage).removeLeftover(), [join(dir, 'imported.jsonl')]);
  });

  it('never removes a session saved meanwhile by another chat, or the imported file when it was in the folder already', () => {
    const source = session(join(dir, 'already-here.jsonl'), 'here');
    dyingImport(dir, source, new PendingImport(() => storage), (dest) => session(dest, 'another-chat'));
    assert.deepEqual(new PendingImport(() => storage).removeLeftover(), []);
    assert.deepEqual(readdirSync(dir).sort(), ['already-here.jsonl', 'imported.jsonl', 'kept.jsonl']);
  });

  it('leaves no record once the import finished, or failed and removed its copy itself', async () => {
    const source = session(join(root, 'good.jsonl'), 'good');
    const pending = new PendingImport(() => storage);
    await importLeavingNoCopy(dir, source, async () => session(join(dir, 'good.jsonl'), 'good'), pending);
    await assert.rejects(
      importLeavingNoCopy(
        dir,
        source,
        async () => {
          session(join(dir, 'good-1.jsonl'), 'good');
          throw new Error('replay failed');
        },
        pending,
      ),
    );
    assert.deepEqual(new PendingImport(() => storage).removeLeftover(), []);
    assert.deepEqual(readdirSync(dir).sort(), ['good.jsonl', 'kept.jsonl']);
  });

  it('records nothing without a storage folder', () => {
    const source = session(join(root, 'crafted.jsonl'), 'crafted');
    dyingImport(dir, source, new PendingImport(() => undefined), (dest) => session(dest, 'crafted'));
    assert.deepEqual(new PendingImport(() => undefined).removeLeftover(), []);
  });
});
