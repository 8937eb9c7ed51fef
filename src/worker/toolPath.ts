/** Where Pi's file tools (`read`, `edit`, `write`) put a path, and what real file that is, for the approval card and the Changes row. */

import * as fs from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The spaces Pi's `normalizePath` turns into plain spaces (its `UNICODE_SPACES`). */
const UNICODE_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;

/**
 * The absolute path Pi's `edit` and `write` tools write for `input`, relative to `cwd`. Mirrors Pi's
 * `resolveToCwd` (core/tools/path-utils, over utils/paths `normalizePath` + `resolvePath` with
 * `normalizeUnicodeSpaces` and `stripAtPrefix`), which the package does not export: Unicode spaces become
 * spaces, one leading `@` goes, `~` and `~/` mean the home folder, a `file://` URL is a path.
 */
export function resolveToolPath(input: string, cwd: string): string {
  let p = input.replace(UNICODE_SPACES, ' ');
  if (p.startsWith('@')) p = p.slice(1);
  if (process.platform === 'win32') p = windowsShellPath(p);
  const home = homedir();
  if (p === '~') p = home;
  else if (p.startsWith('~/') || (process.platform === 'win32' && p.startsWith('~\\'))) p = path.join(home, p.slice(2));
  else if (/^file:\/\//.test(p)) p = fileURLToPath(p);
  return path.isAbsolute(p) ? path.resolve(p) : path.resolve(cwd, p);
}

/** Pi's `normalizeWindowsShellPath`: `/c/x`, `/mnt/c/x`, `/cygdrive/c/x` as `C:\x`. */
function windowsShellPath(p: string): string {
  if (!p.startsWith('/') || p.startsWith('//') || p.includes('\\')) return p;
  const m = /^\/(?:mnt\/|cygdrive\/)?([a-z])(?:\/(.*))?$/i.exec(p);
  if (!m) return p;
  return `${m[1]!.toUpperCase()}:\\${m[2]?.replaceAll('/', '\\') ?? ''}`;
}

/** The path with symlinks resolved; a missing file keeps its name under its real folder. */
export function realPath(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    const dir = path.dirname(p);
    return dir === p ? p : path.join(realPath(dir), path.basename(p));
  }
}

/** Whether `file` is `dir` or below it (both absolute). */
export function isWithin(dir: string, file: string): boolean {
  const rel = path.relative(dir, file);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}
