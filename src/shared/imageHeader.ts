/** An image's pixel size read from its header (PNG, JPEG, GIF, WebP, BMP) without decoding it, and the size the panel accepts. */
import { t } from './l10n.ts';

/** Widest or tallest image the panel takes, in pixels. */
const MAX_IMAGE_SIDE = 8192;
/** Most pixels the panel takes in one image (40 megapixels): a decoder needs about 4 bytes for each. */
const MAX_IMAGE_PIXELS = 40_000_000;

/** Bytes read one at a time by offset (a byte array, or base64 text decoded only where asked). */
export interface ByteSource {
  readonly length: number;
  /** The byte at `i`; undefined past the end. */
  at(i: number): number | undefined;
}

export interface ImageSize {
  readonly width: number;
  readonly height: number;
}

/** A byte array as a `ByteSource`. */
export function arrayBytes(bytes: ArrayLike<number>): ByteSource {
  return { length: bytes.length, at: (i) => (i >= 0 && i < bytes.length ? bytes[i] : undefined) };
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Padded base64 text as a `ByteSource`, decoding only the four characters that hold the byte asked for. */
export function base64Source(text: string): ByteSource {
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const length = (text.length / 4) * 3 - pad;
  return {
    length,
    at(i) {
      if (i < 0 || i >= length) return undefined;
      const q = Math.floor(i / 3) * 4;
      const v = [0, 1, 2, 3].map((k) => B64.indexOf(text[q + k] ?? '='));
      const r = i % 3;
      if (r === 0) return ((v[0]! << 2) | (v[1]! >> 4)) & 255;
      if (r === 1) return (((v[1]! & 15) << 4) | (v[2]! >> 2)) & 255;
      return (((v[2]! & 3) << 6) | v[3]!) & 255;
    },
  };
}

/** Markers a JPEG scan may pass before its frame header: each has a length, except the standalone ones. */
const JPEG_STANDALONE = new Set([0x01, 0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7]);
/** Segments a JPEG may have before its frame header; more means a file built to make this loop long. */
const MAX_JPEG_SEGMENTS = 1000;

/** The pixel size `mimeType`'s header says, or undefined when the header cannot be read. */
export function imageSize(mimeType: string, b: ByteSource): ImageSize | undefined {
  const u8 = (i: number) => b.at(i);
  const be16 = (i: number) => word(u8(i), u8(i + 1));
  const le16 = (i: number) => word(u8(i + 1), u8(i));
  switch (mimeType) {
    case 'image/png': {
      // The IHDR chunk comes first: width and height as big-endian 32-bit numbers.
      const w = be32(b, 16);
      const h = be32(b, 20);
      return w !== undefined && h !== undefined ? { width: w, height: h } : undefined;
    }
    case 'image/gif': {
      const w = le16(6);
      const h = le16(8);
      return w !== undefined && h !== undefined ? { width: w, height: h } : undefined;
    }
    case 'image/webp':
      return webpSize(b);
    case 'image/bmp': {
      // BITMAPINFOHEADER: signed 32-bit width and height (a negative height is a top-down bitmap).
      const w = le32(b, 18);
      const h = le32(b, 22);
      return w !== undefined && h !== undefined ? { width: Math.abs(w), height: Math.abs(h) } : undefined;
    }
    case 'image/jpeg': {
      let i = 2;
      for (let n = 0; n < MAX_JPEG_SEGMENTS && i < b.length; n++) {
        if (u8(i) !== 0xff) return undefined;
        let m = u8(i + 1);
        // Fill bytes: any number of 0xFF before a marker.
        while (m === 0xff) m = u8(++i + 1);
        if (m === undefined) return undefined;
        if (JPEG_STANDALONE.has(m)) {
          i += 2;
          continue;
        }
        const len = be16(i + 2);
        if (len === undefined || len < 2) return undefined;
        // Start of frame (SOF0–SOF15, without DHT C4, JPG C8 and DAC CC): precision, height, width.
        if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) {
          const h = be16(i + 5);
          const w = be16(i + 7);
          return w !== undefined && h !== undefined ? { width: w, height: h } : undefined;
        }
        // The scan starts without a frame header: not a JPEG this can read.
        if (m === 0xda || m === 0xd9) return undefined;
        i += 2 + len;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

function webpSize(b: ByteSource): ImageSize | undefined {
  const tag = [12, 13, 14, 15].map((i) => String.fromCharCode(b.at(i) ?? 0)).join('');
  const at = (i: number) => b.at(i);
  if (tag === 'VP8 ') {
    const w = word(at(27), at(26));
    const h = word(at(29), at(28));
    return w !== undefined && h !== undefined ? { width: w & 0x3fff, height: h & 0x3fff } : undefined;
  }
  if (tag === 'VP8L') {
    const [b0, b1, b2, b3] = [21, 22, 23, 24].map(at);
    if (b0 === undefined || b1 === undefined || b2 === undefined || b3 === undefined) return undefined;
    return { width: 1 + (((b1 & 0x3f) << 8) | b0), height: 1 + (((b3 & 0x0f) << 10) | (b2 << 2) | ((b1 & 0xc0) >> 6)) };
  }
  if (tag === 'VP8X') {
    const [w0, w1, w2, h0, h1, h2] = [24, 25, 26, 27, 28, 29].map(at);
    if ([w0, w1, w2, h0, h1, h2].some((x) => x === undefined)) return undefined;
    return { width: 1 + (w0! | (w1! << 8) | (w2! << 16)), height: 1 + (h0! | (h1! << 8) | (h2! << 16)) };
  }
  return undefined;
}

function word(hi: number | undefined, lo: number | undefined): number | undefined {
  return hi === undefined || lo === undefined ? undefined : (hi << 8) | lo;
}

function be32(b: ByteSource, i: number): number | undefined {
  const v = [0, 1, 2, 3].map((k) => b.at(i + k));
  if (v.some((x) => x === undefined)) return undefined;
  return ((v[0]! << 24) >>> 0) + (v[1]! << 16) + (v[2]! << 8) + v[3]!;
}

function le32(b: ByteSource, i: number): number | undefined {
  const v = [0, 1, 2, 3].map((k) => b.at(i + k));
  if (v.some((x) => x === undefined)) return undefined;
  return v[0]! | (v[1]! << 8) | (v[2]! << 16) | (v[3]! << 24);
}

/**
 * Why an image of this type and header must not be decoded, in words for the user (`label` names it), or
 * undefined when its size is within `MAX_IMAGE_SIDE` a side and `MAX_IMAGE_PIXELS` in all.
 */
export function imageSizeProblem(label: string, mimeType: string, b: ByteSource): string | undefined {
  const size = imageSize(mimeType, b);
  if (!size) return t('{0}: its size could not be read from the {1} header, so it is not opened.', label, mimeType.slice(6).toUpperCase());
  const { width, height } = size;
  if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE || width * height > MAX_IMAGE_PIXELS)
    return t(
      '{0} is {1}×{2} pixels; images may be at most {3} pixels a side and {4} megapixels.',
      label,
      width,
      height,
      MAX_IMAGE_SIDE,
      MAX_IMAGE_PIXELS / 1_000_000,
    );
  return undefined;
}
