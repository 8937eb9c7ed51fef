/** Image sizes read from headers, not pixels: a small file holding a huge image is refused in the composer, by the host and for Pi's `read`. */

import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { arrayBytes, imageSize } from '../../src/shared/imageHeader.ts';
import { parseImageAttachments } from '../../src/shared/images.ts';
import { imageFileProblem } from '../../src/worker/imageReadGuard.ts';

const be32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const le16 = (n: number) => [n & 255, (n >> 8) & 255];
const le24 = (n: number) => [n & 255, (n >> 8) & 255, (n >> 16) & 255];

/** The first bytes of a PNG of that size (signature and IHDR): all a header reader needs. */
const png = (w: number, h: number) =>
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, ...be32(w), ...be32(h), 8, 6, 0, 0, 0]);
/** A JPEG with an APP1 segment before its baseline frame header. */
const jpeg = (w: number, h: number) =>
  Buffer.from([
    0xff,
    0xd8,
    0xff,
    0xe1,
    0,
    8,
    1,
    2,
    3,
    4,
    5,
    6,
    0xff,
    0xff,
    0xc0,
    0,
    17,
    8,
    h >> 8,
    h & 255,
    w >> 8,
    w & 255,
    3,
    1,
    0x22,
    0,
    2,
    0x11,
    1,
    3,
    0x11,
    1,
  ]);
const gif = (w: number, h: number) => Buffer.from([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, ...le16(w), ...le16(h), 0, 0, 0]);
const webpX = (w: number, h: number) =>
  Buffer.from([0x52, 0x49, 0x46, 0x46, 0, 0, 0, 0, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50, 0x38, 0x58, 10, 0, 0, 0, 0, 0, 0, 0, ...le24(w - 1), ...le24(h - 1)]);

const attach = (mimeType: string, bytes: Buffer) => parseImageAttachments([{ mimeType, data: bytes.toString('base64') }]);

describe('image sizes from headers', () => {
  it('reads PNG, JPEG (past its metadata), GIF and WebP sizes', () => {
    assert.deepEqual(imageSize('image/png', arrayBytes(png(12000, 34))), { width: 12000, height: 34 });
    assert.deepEqual(imageSize('image/jpeg', arrayBytes(jpeg(640, 480))), { width: 640, height: 480 });
    assert.deepEqual(imageSize('image/gif', arrayBytes(gif(300, 200))), { width: 300, height: 200 });
    assert.deepEqual(imageSize('image/webp', arrayBytes(webpX(16000, 9))), { width: 16000, height: 9 });
  });

  it('the composer and the host refuse a 12000×12000 PNG of a few bytes, and more than 40 MP, with a clear message', () => {
    const huge = attach('image/png', png(12000, 12000));
    assert.equal(huge.ok, false);
    assert.match(huge.ok ? '' : huge.reason, /12000×12000 pixels; images may be at most 8192 pixels a side and 40 megapixels/);
    const many = attach('image/jpeg', jpeg(8000, 8000));
    assert.equal(many.ok, false, '64 MP with both sides under 8192');
    assert.equal(attach('image/gif', gif(8192, 4000)).ok, true);
    assert.equal(attach('image/webp', webpX(16000, 16000)).ok, false);
  });

  it("Pi's read of a huge image file is refused before it decodes it; other files pass", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-img-'));
    try {
      writeFileSync(join(dir, 'huge.png'), png(16000, 16000));
      writeFileSync(join(dir, 'ok.png'), png(100, 100));
      writeFileSync(join(dir, 'BMW.txt'), 'BMW notes');
      assert.match((await imageFileProblem(join(dir, 'huge.png'), 'huge.png')) ?? '', /^huge\.png is 16000×16000 pixels/);
      assert.equal(await imageFileProblem(join(dir, 'ok.png'), 'ok.png'), undefined);
      assert.equal(await imageFileProblem(join(dir, 'BMW.txt'), 'BMW.txt'), undefined);
      assert.equal(await imageFileProblem(join(dir, 'missing.png'), 'missing.png'), undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
