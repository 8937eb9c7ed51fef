/** The composer's attached images kept on disk across a window reload. */

import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ComposerImageDraft } from '../../src/extension/composerImageDraft.ts';
import type { ImageAttachment } from '../../src/shared/images.ts';
import { MemoryLog } from '../support/memoryLog.ts';

const fixtures = fileURLToPath(new URL('../fixtures/images/', import.meta.url));
const png = (file: string): string => readFileSync(join(fixtures, file)).toString('base64');

describe("the composer's images across a reload", () => {
  const red: ImageAttachment = { mimeType: 'image/png', data: png('red-square.png'), name: 'red-square.png' };
  const blue: ImageAttachment = { mimeType: 'image/png', data: png('blue-square.png') };
  let root: string;
  let dir: string;
  let log: MemoryLog;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'pi-draft-'));
    dir = join(root, 'composer-images');
    log = new MemoryLog();
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('gives back what the last save kept, in order, to a new instance (the next extension host)', async () => {
    const before = new ComposerImageDraft(dir, log);
    void before.save([blue]);
    await before.save([red, blue]);
    assert.deepEqual(await new ComposerImageDraft(dir, log).load(), [red, blue]);
    assert.deepEqual(log.lines, []);
  });

  it('writes nothing again for the images it keeps (a re-created view, or the view after a reload, sends them back)', async () => {
    const draft = new ComposerImageDraft(dir, log);
    await draft.save([red, blue]);
    writeFileSync(join(dir, 'untouched'), '');
    await draft.save([{ ...red }, { ...blue }]);
    const next = new ComposerImageDraft(dir, log);
    await next.load();
    await next.save([red, blue]);
    assert.ok(existsSync(join(dir, 'untouched')), 'the folder was not written again');
    await next.save([blue]);
    assert.equal(existsSync(join(dir, 'untouched')), false, 'other images are written');
    assert.deepEqual(await new ComposerImageDraft(dir, log).load(), [blue]);
  });

  it('keeps nothing once the images are sent or removed', async () => {
    const draft = new ComposerImageDraft(dir, log);
    await draft.save([red]);
    await draft.save([]);
    assert.equal(existsSync(dir), false);
    assert.deepEqual(await new ComposerImageDraft(dir, log).load(), []);
  });

  it('reads a write cut short (no index yet) as no draft, without a warning', async () => {
    const draft = new ComposerImageDraft(dir, log);
    await draft.save([red]);
    unlinkSync(join(dir, 'index.json'));
    assert.deepEqual(await draft.load(), []);
    assert.deepEqual(log.lines, []);
  });

  it('checks what it reads back as anything from the webview: a file that is not the image it claims is refused', async () => {
    const draft = new ComposerImageDraft(dir, log);
    await draft.save([red]);
    writeFileSync(join(dir, '0.bin'), '<svg onload="alert(1)"/>');
    assert.deepEqual(await draft.load(), []);
    assert.match(log.lines.join('\n'), /warn The composer's attached images were not restored: images\[0\]\.data is not a image\/png image/);
  });

  it('keeps nothing without a storage folder', async () => {
    const draft = new ComposerImageDraft(undefined, log);
    await draft.save([red]);
    assert.deepEqual(await draft.load(), []);
  });
});
