/**
 * The filesystem side of a restore: deletes the files a checkpoint did not have, writes back the ones it did
 * (byte for byte, through a temporary file renamed over the old one, so a file is never left half-written),
 * and never writes outside the workspace (through a symlinked folder, say). A file that cannot be done is
 * reported as skipped; the others go on.
 */

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { BlobReader } from './blobReader.ts';
import { workspacePath, type SkippedFile } from './shadowRepo.ts';

/** A file to put back: its raw path (see `displayPath`), blob and git mode (`100644`, `100755`, `120000` for a symlink). */
export interface FileWrite {
  readonly path: string;
  readonly sha: string;
  readonly mode: string;
}

/** What to change in the workspace (raw paths): `deletes` run first, so a folder can become a file and back. */
export interface RestorePlan {
  readonly deletes: readonly string[];
  readonly writes: readonly FileWrite[];
}

/**
 * Applies `plan` under `workspace`, reading contents from `blobs`; says which (raw) paths were restored and
 * which were skipped. Paths are worked on as raw strings and reach the filesystem as bytes (`fsPath`), so a
 * name that is not UTF-8 is restored as it was.
 */
export async function applyRestore(workspace: string, plan: RestorePlan, blobs: BlobReader): Promise<{ restored: string[]; skipped: SkippedFile[] }> {
  const root = (await fs.realpath(workspacePath(workspace, ''), { encoding: 'buffer' })).toString('latin1');
  const restored: string[] = [];
  const skipped: SkippedFile[] = [];
  const emptied = new Set<string>();
  for (const rel of plan.deletes) {
    const abs = path.join(root, rel);
    try {
      await assertInside(root, path.dirname(abs));
      const st = await fs.lstat(fsPath(abs));
      // Only files the checkpoint taken before restoring holds are deleted: Undo restore can bring them back.
      if (st.isDirectory()) throw new Error('it is a folder now');
      await fs.rm(fsPath(abs));
      restored.push(rel);
      emptied.add(path.dirname(abs));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') restored.push(rel);
      else skipped.push({ path: rel, reason: reasonOf(err) });
    }
  }
  await removeEmptyFolders(root, emptied);
  for (const w of plan.writes) {
    const abs = path.join(root, w.path);
    try {
      await assertInside(root, path.dirname(abs));
      await fs.mkdir(fsPath(path.dirname(abs)), { recursive: true });
      await assertInside(root, path.dirname(abs));
      await writeAtomically(abs, await blobs.read(w.sha), w.mode);
      restored.push(w.path);
    } catch (err) {
      skipped.push({ path: w.path, reason: reasonOf(err) });
    }
  }
  return { restored, skipped };
}

/** Writes `content` to a temporary file beside `abs` and renames it over `abs`: readers see the old file or the new one, never a part. */
async function writeAtomically(abs: string, content: Buffer, mode: string): Promise<void> {
  const tmp = path.join(path.dirname(abs), `.${path.basename(abs)}.pi-restore-${randomBytes(4).toString('hex')}`);
  try {
    if (mode === '120000') {
      // A link's target is bytes too.
      await fs.symlink(content, fsPath(tmp));
    } else {
      const exec = mode === '100755';
      // The kernel applies the umask to a new file's mode; an existing file keeps its permissions, only the exec bits follow git's.
      await fs.writeFile(fsPath(tmp), content, { mode: exec ? 0o777 : 0o666 });
      const old = await fs.lstat(fsPath(abs)).catch(() => undefined);
      if (old?.isFile()) await fs.chmod(fsPath(tmp), exec ? (old.mode & 0o777) | 0o111 : old.mode & 0o666);
    }
    await fs.rename(fsPath(tmp), fsPath(abs));
  } catch (err) {
    await fs.rm(fsPath(tmp), { force: true }).catch(() => undefined);
    throw err;
  }
}

/** Throws unless `dir`'s nearest existing ancestor, symlinks resolved, is inside `root`. */
async function assertInside(root: string, dir: string): Promise<void> {
  let probe = dir;
  for (;;) {
    const real = await fs.realpath(fsPath(probe), { encoding: 'buffer' }).then(
      (b) => b.toString('latin1'),
      () => undefined,
    );
    if (real !== undefined) {
      if (real !== root && !real.startsWith(root + path.sep)) throw new Error('its folder leads outside the workspace');
      return;
    }
    const up = path.dirname(probe);
    if (up === probe) throw new Error('its folder does not exist');
    probe = up;
  }
}

/** Removes folders the deletes left empty, deepest first, up to (not including) the workspace root. */
async function removeEmptyFolders(root: string, dirs: Set<string>): Promise<void> {
  const all = new Set<string>();
  for (const d of dirs) for (let p = d; p.startsWith(root + path.sep); p = path.dirname(p)) all.add(p);
  for (const d of [...all].sort((a, b) => b.length - a.length)) await fs.rmdir(fsPath(d)).catch(() => undefined);
}

/** A raw path (one character per byte) as the bytes the filesystem knows it by. */
function fsPath(raw: string): Buffer {
  return Buffer.from(raw, 'latin1');
}

function reasonOf(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e.code) {
    case 'EACCES':
    case 'EPERM':
      return 'it could not be written (permission denied)';
    case 'EISDIR':
    case 'ENOTEMPTY':
    case 'EEXIST':
      return 'a folder is in its place';
    case 'ENOTDIR':
      return 'a file is in the place of its folder';
    case 'EBUSY':
      return 'it is in use';
    default:
      return e.message ?? String(err);
  }
}
