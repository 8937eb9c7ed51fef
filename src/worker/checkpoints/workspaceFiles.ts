/** Reads of files the workspace controls (its `.git/info/exclude`, say) that can neither block nor take unbounded memory. */

import { constants } from 'node:fs';
import * as fs from 'node:fs/promises';

// Absent on Windows, where opening a file never waits for a writer.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

/**
 * The bytes of `file` when it is a regular file of at most `maxBytes`; undefined when it is missing, is
 * anything else (a FIFO, a device, a symlink, a folder) or is larger. A FIFO opened for reading waits for a
 * writer, holding one of libuv's four pool threads: four such reads stall every file operation of the process.
 * So it is opened non-blocking and checked again on the open handle, which a swap after the lstat cannot fool.
 */
export async function readRegularFile(file: string | Buffer, maxBytes: number): Promise<Buffer | undefined> {
  const before = await fs.lstat(file).catch(() => undefined);
  if (!before?.isFile() || before.size > maxBytes) return undefined;
  const handle = await fs.open(file, OPEN_FLAGS).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const st = await handle.stat();
    if (!st.isFile() || st.size > maxBytes) return undefined;
    const buf = Buffer.alloc(st.size);
    let n = 0;
    while (n < buf.length) {
      const { bytesRead } = await handle.read(buf, n, buf.length - n, n);
      if (!bytesRead) break;
      n += bytesRead;
    }
    return buf.subarray(0, n);
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => undefined);
  }
}
