/**
 * Images in the chat: what the composer may attach (an allow-list of raster types, a size cap, a count cap),
 * the checks both sides run on them, and the view of an image block that crosses to the webview (its bytes
 * only when allow-listed and small enough; otherwise a placeholder with its type and size).
 */

import { base64Source, imageSizeProblem } from './imageHeader.ts';

/** Image types the panel accepts and shows. SVG is left out on purpose: it is a document that can carry script. */
export const IMAGE_MIME_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageMimeType = (typeof IMAGE_MIME_TYPES)[number];

/** Largest image the composer takes, decoded (Pi resizes what it sends to the model; this bounds what crosses the wire). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Most images one message may carry. */
export const MAX_IMAGES = 10;
/** Largest image (decoded) whose bytes go to the webview for a thumbnail; a bigger one shows as a placeholder. */
export const MAX_VIEW_IMAGE_BYTES = 2 * 1024 * 1024;

/** An image the user attached: base64 data and its type, as Pi's `ImageContent` takes it. */
export interface ImageAttachment {
  readonly mimeType: ImageMimeType;
  /** Base64, no `data:` prefix. */
  readonly data: string;
  /** The file's name, when it had one (shown on the chip; never sent to the model). */
  readonly name?: string;
}

/** An image block of a user message or a tool result, as the transcript shows it. */
export interface ImageView {
  /** The block's type as the message gave it (shown on a placeholder; only allow-listed types are drawn). */
  readonly mimeType: string;
  /** Decoded size in bytes. */
  readonly bytes: number;
  /** Base64 data; absent when the type is not allow-listed, the data is not base64 or the image is over `MAX_VIEW_IMAGE_BYTES`. */
  readonly data?: string;
}

export function isImageMimeType(v: unknown): v is ImageMimeType {
  return typeof v === 'string' && (IMAGE_MIME_TYPES as readonly string[]).includes(v);
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Whether `s` is padded base64 (what `FileReader`, Node's `Buffer` and Pi produce). */
function isBase64(s: string): boolean {
  return s.length % 4 === 0 && BASE64.test(s);
}

/** The decoded size of base64 text (assumed valid). */
function base64Bytes(s: string): number {
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  return (s.length / 4) * 3 - pad;
}

/** A size for people: "812 B", "41 KB", "3.2 MB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${Math.round(n / 1024)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The first bytes of base64 text (enough to read a file signature), without decoding the rest. */
function headBytes(s: string, count: number): number[] {
  const out: number[] = [];
  for (let i = 0; i + 4 <= s.length && out.length < count; i += 4) {
    const v = [0, 1, 2, 3].map((k) => B64.indexOf(s[i + k]!));
    out.push((v[0]! << 2) | (v[1]! >> 4));
    if (v[2]! >= 0) out.push(((v[1]! & 15) << 4) | (v[2]! >> 2));
    if (v[3]! >= 0) out.push(((v[2]! & 3) << 6) | v[3]!);
  }
  return out.slice(0, count);
}

/** The image type a file's first bytes say it is, or undefined for anything else. */
export function sniffImageType(bytes: ArrayLike<number>): ImageMimeType | undefined {
  const at = (i: number, ...sig: number[]) => sig.every((b, k) => bytes[i + k] === b);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (at(0, 0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'image/webp';
  return undefined;
}

/**
 * Checks images from the webview: at most `MAX_IMAGES`, each an allow-listed type whose bytes really are
 * that type, base64, at most `MAX_IMAGE_BYTES` decoded, its header's pixel size within `MAX_IMAGE_SIDE` and
 * `MAX_IMAGE_PIXELS`. Returns them typed (only the known fields), or why not.
 */
export function parseImageAttachments(raw: unknown): { ok: true; images: ImageAttachment[] } | { ok: false; reason: string } {
  if (!Array.isArray(raw)) return { ok: false, reason: 'images is not an array' };
  if (raw.length > MAX_IMAGES) return { ok: false, reason: `more than ${MAX_IMAGES} images` };
  const images: ImageAttachment[] = [];
  for (const [i, v] of raw.entries()) {
    if (typeof v !== 'object' || v === null) return { ok: false, reason: `images[${i}] is not an object` };
    const { mimeType, data, name } = v as Record<string, unknown>;
    if (!isImageMimeType(mimeType)) return { ok: false, reason: `images[${i}].mimeType is not one of ${IMAGE_MIME_TYPES.join(', ')}` };
    if (typeof data !== 'string' || data.length === 0) return { ok: false, reason: `images[${i}].data is not a string` };
    // Checked before the pattern: a huge string is refused without scanning it.
    if (data.length > Math.ceil(MAX_IMAGE_BYTES / 3) * 4) return { ok: false, reason: `images[${i}] is larger than ${formatBytes(MAX_IMAGE_BYTES)}` };
    if (!isBase64(data)) return { ok: false, reason: `images[${i}].data is not base64` };
    if (sniffImageType(headBytes(data, 12)) !== mimeType) return { ok: false, reason: `images[${i}].data is not a ${mimeType} image` };
    // Read from the header before anything decodes it: a small file can hold a huge image.
    const tooLarge = imageSizeProblem(`images[${i}]`, mimeType, base64Source(data));
    if (tooLarge) return { ok: false, reason: tooLarge };
    if (name !== undefined && (typeof name !== 'string' || name.length > 500)) return { ok: false, reason: `images[${i}].name is not a short string` };
    images.push({ mimeType, data, ...(typeof name === 'string' ? { name } : {}) });
  }
  return { ok: true, images };
}

/** The view of one image block from Pi (`{ type: 'image', data, mimeType }`); its bytes only when safe and small enough. */
export function imageView(part: { readonly data?: unknown; readonly mimeType?: unknown }): ImageView {
  const data = typeof part.data === 'string' ? part.data : '';
  const mimeType = typeof part.mimeType === 'string' ? part.mimeType.slice(0, 100) : 'unknown';
  const valid = data.length > 0 && isBase64(data);
  const bytes = valid ? base64Bytes(data) : Math.floor((data.length * 3) / 4);
  return valid && isImageMimeType(mimeType) && bytes <= MAX_VIEW_IMAGE_BYTES ? { mimeType, bytes, data } : { mimeType, bytes };
}

/** The `data:` URL the webview draws an image from, or undefined when it must show a placeholder. */
export function imageSrc(v: ImageView): string | undefined {
  if (!v.data || !isImageMimeType(v.mimeType) || !isBase64(v.data)) return undefined;
  return `data:${v.mimeType};base64,${v.data}`;
}

/** Checks an image view from the host (the webview trusts nothing unchecked). */
export function isImageView(v: unknown): v is ImageView {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return typeof r.mimeType === 'string' && typeof r.bytes === 'number' && (r.data === undefined || typeof r.data === 'string');
}
