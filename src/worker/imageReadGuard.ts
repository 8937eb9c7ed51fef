/** The panel's Pi extension that stops `read` from opening an image whose header says it is too large to decode. */

import { open } from 'node:fs/promises';
import type { ExtensionFactory } from '@earendil-works/pi-coding-agent';
import { arrayBytes, imageSizeProblem } from '../shared/imageHeader.ts';
import { sniffImageType } from '../shared/images.ts';
import { resolveToolPath } from './toolPath.ts';

/** How much of a file's head is read for its size: a JPEG's frame header follows its metadata segments. */
const HEAD_BYTES = 1024 * 1024;

/**
 * A `tool_call` hook: Pi's `read` decodes an image to resize it, and a small file can hold a 16000² image
 * that takes gigabytes and a minute to decode. Such a read is blocked, with the reason, before it runs.
 */
export function imageReadGuard(cwd: () => string | undefined): ExtensionFactory {
  return (pi) => {
    pi.on('tool_call', async (event) => {
      if (event.toolName !== 'read') return undefined;
      const given = (event.input as { path?: unknown } | undefined)?.path;
      const base = cwd();
      if (typeof given !== 'string' || !base) return undefined;
      const problem = await imageFileProblem(resolveToolPath(given, base), given);
      return problem ? { block: true, reason: problem } : undefined;
    });
  };
}

/** Why the image file at `file` must not be decoded (`label` names it); undefined for a fine image, any other file or none. */
export async function imageFileProblem(file: string, label: string): Promise<string | undefined> {
  let head: Uint8Array;
  try {
    const fh = await open(file, 'r');
    try {
      const buf = Buffer.alloc(HEAD_BYTES);
      const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
      head = buf.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
  } catch {
    // Missing or unreadable: Pi's read says so itself.
    return undefined;
  }
  // "BM" and a known DIB header size: a text file that starts with "BM" is not a bitmap.
  const bmp = head[0] === 0x42 && head[1] === 0x4d && [12, 40, 52, 56, 108, 124].includes(head[14] ?? -1) && head[15] === 0;
  const mimeType = sniffImageType(head.subarray(0, 12)) ?? (bmp ? 'image/bmp' : undefined);
  return mimeType ? imageSizeProblem(label, mimeType, arrayBytes(head)) : undefined;
}
