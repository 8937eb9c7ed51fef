/** `@folder`: a folder's file tree, without what `.gitignore` files and `files.exclude` leave out, to a bound, never following a symlink out of the workspace. */

import { FOLDER_MAX_ENTRIES } from './bounds.ts';
import { GitignoreRules } from './gitignore.ts';

/** What the tree needs from a file system, paths relative to the workspace root ('' is the root). */
export interface TreeFs {
  /** A folder's entries: names, whether each is a folder, and whether it is a symlink. */
  readDir(rel: string): Promise<readonly (readonly [name: string, isDir: boolean, isLink?: boolean])[]>;
  /** A file's text, or undefined when there is none. */
  readText(rel: string): Promise<string | undefined>;
  /**
   * Where `rel` really is, workspace-relative with every symlink followed; undefined when that is outside the
   * workspace. Without it no symlinked folder is followed.
   */
  realPath?(rel: string): Promise<string | undefined>;
}

export interface TreeOptions {
  /** `files.exclude` (and anything else the editor hides): true leaves the path out. */
  readonly excluded?: (rel: string, isDir: boolean) => boolean;
  readonly maxEntries?: number;
  readonly ignoreCase?: boolean;
}

export interface FolderTree {
  readonly text: string;
  readonly files: number;
  readonly folders: number;
  readonly clipped: boolean;
}

interface Node {
  readonly name: string;
  readonly rel: string;
  /** Where the folder really is (workspace-relative): its rel, unless a symlink was followed on the way. */
  readonly real: string;
  readonly parent?: Node;
  readonly isDir: boolean;
  /** Said after the name: where a symlinked folder leads, and why it was not followed. */
  readonly note?: string;
  readonly children: Node[];
  /** Entries of this folder left out by the bound. */
  unlisted: number;
  /** The bound was reached before this folder was read. */
  unread?: boolean;
}

const join = (dir: string, name: string): string => (dir ? `${dir}/${name}` : name);

/** Whether folder `outer` holds `inner` or is it ('' is the workspace root, which holds everything). */
const holds = (outer: string, inner: string): boolean => outer === '' || inner === outer || inner.startsWith(`${outer}/`);

/**
 * A symlinked folder `rel` in `dir`: its note, and whether to walk it. It is walked only to a real path inside the
 * workspace that holds none of the folders it is in (that would list them again, round and round).
 */
async function linkedFolder(fs: TreeFs, rel: string, dir: Node): Promise<{ note: string; real?: string }> {
  // l10n-ignore: sent to Pi, not shown
  if (!fs.realPath) return { note: ' (symlink: not followed)' };
  const real = await fs.realPath(rel);
  // l10n-ignore: sent to Pi, not shown
  if (real === undefined) return { note: ' (symlink out of the workspace: not followed)' };
  for (let at: Node | undefined = dir; at; at = at.parent) {
    // l10n-ignore: sent to Pi, not shown
    if (holds(real, at.real)) return { note: ` (symlink to ${real || '.'}: a folder it is in, not followed)` };
  }
  // l10n-ignore: sent to Pi, not shown
  return { note: ` (symlink to ${real || '.'})`, real };
}

/** Walks `folder` breadth first (so a bound keeps the top levels whole), then writes it as an indented tree. */
export async function folderTree(folder: string, fs: TreeFs, options: TreeOptions = {}): Promise<FolderTree> {
  const max = options.maxEntries ?? FOLDER_MAX_ENTRIES;
  const rules = new GitignoreRules({ ignoreCase: options.ignoreCase });
  const root = folder.replace(/^\/+|\/+$/g, '');
  // The rules of every folder above this one apply too.
  const above = root ? root.split('/') : [];
  for (let i = 0; i < above.length; i++) {
    const dir = above.slice(0, i).join('/');
    const text = await fs.readText(join(dir, '.gitignore'));
    if (text !== undefined) rules.add(dir, text);
  }
  const top: Node = { name: root || '.', rel: root, real: (await fs.realPath?.(root)) ?? root, isDir: true, children: [], unlisted: 0 };
  const queue: Node[] = [top];
  let listed = 0;
  let files = 0;
  let folders = 0;
  let clipped = false;
  while (queue.length) {
    const dir = queue.shift()!;
    if (listed >= max) {
      dir.unread = true;
      clipped = true;
      continue;
    }
    const entries = await fs.readDir(dir.rel);
    if (entries.some(([name, isDir]) => name === '.gitignore' && !isDir)) {
      const text = await fs.readText(join(dir.rel, '.gitignore'));
      if (text !== undefined) rules.add(dir.rel, text);
    }
    const kept = entries
      .filter(([name, isDir]) => {
        const rel = join(dir.rel, name);
        return !(isDir && name === '.git') && !rules.ignores(rel, isDir) && !options.excluded?.(rel, isDir);
      })
      .sort(([a, aDir], [b, bDir]) => Number(bDir) - Number(aDir) || (a < b ? -1 : a > b ? 1 : 0));
    for (const [name, isDir, isLink] of kept) {
      if (listed >= max) {
        dir.unlisted++;
        clipped = true;
        continue;
      }
      listed++;
      const rel = join(dir.rel, name);
      const link = isDir && isLink ? await linkedFolder(fs, rel, dir) : undefined;
      const real = link ? link.real : join(dir.real, name);
      const node: Node = { name, rel, real: real ?? rel, parent: dir, isDir, note: link?.note, children: [], unlisted: 0 };
      dir.children.push(node);
      if (isDir) {
        folders++;
        if (real !== undefined) queue.push(node);
      } else files++;
    }
  }
  const lines: string[] = [`${root || '.'}/`];
  const write = (node: Node, indent: string): void => {
    for (const child of node.children) {
      lines.push(`${indent}${child.name}${child.isDir ? '/' : ''}${child.note ?? ''}`);
      if (child.isDir) write(child, `${indent}  `);
    }
    // l10n-ignore: sent to Pi, not shown
    if (node.unread) lines.push(`${indent}[… clipped: not listed]`);
    // l10n-ignore: sent to Pi, not shown
    if (node.unlisted) lines.push(`${indent}[… clipped: ${node.unlisted} more ${node.unlisted === 1 ? 'entry' : 'entries'} not listed]`);
  };
  write(top, '  ');
  return { text: `${lines.join('\n')}\n`, files, folders, clipped };
}
