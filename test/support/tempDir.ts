/** Temporary folders for tests and benches, removed when the process exits (a test that fails keeps nothing behind either). */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];
let hooked = false;

/** A new folder under the OS temp folder whose name starts with `prefix`; removed at exit with all it holds. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  if (!hooked) {
    hooked = true;
    process.on('exit', () => {
      for (const d of made) rmSync(d, { recursive: true, force: true, maxRetries: 2 });
    });
  }
  return dir;
}
