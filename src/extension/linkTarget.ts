/** Decides where a link clicked in the chat may go: the browser for http(s), an editor for workspace files, else nowhere. */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { t } from '../shared/l10n.ts';

export type LinkTarget =
  | { readonly kind: 'external'; readonly url: string }
  | { readonly kind: 'file'; readonly path: string; readonly line?: number }
  | { readonly kind: 'refused'; readonly reason: string };

/**
 * `p` with every symlink resolved, as the file system will open it. A missing tail (a file not written yet)
 * is kept as written below its deepest existing ancestor, whose real path is taken.
 */
export function realPath(p: string, realpath: (p: string) => string = fs.realpathSync.native): string {
  let head = path.resolve(p);
  const tail: string[] = [];
  for (;;) {
    try {
      return path.join(realpath(head), ...tail);
    } catch {
      const parent = path.dirname(head);
      if (parent === head) return path.join(head, ...tail);
      tail.unshift(path.basename(head));
      head = parent;
    }
  }
}

/**
 * The real path of `p` when it lies inside one of `roots` (each compared by its real path too), else undefined: a
 * symlink in a workspace folder that points out of it is outside. Links, drops and chips all go through this.
 */
export function realPathInside(p: string, roots: readonly string[], realpath: (p: string) => string = fs.realpathSync.native): string | undefined {
  const target = realPath(p, realpath);
  const inside = (root: string) => {
    const rel = path.relative(realPath(root, realpath), target);
    return !(rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel));
  };
  return roots.some(inside) ? target : undefined;
}

/**
 * `root` is the workspace folder; a file link must resolve inside it. Both sides are compared as real paths,
 * so a symlink in the workspace that points outside it is refused, and the path returned is the real one.
 */
export function linkTarget(href: string, root: string | undefined): LinkTarget {
  let url: URL | undefined;
  try {
    url = new URL(href);
  } catch {
    url = undefined;
  }
  if (url && (url.protocol === 'http:' || url.protocol === 'https:')) return { kind: 'external', url: url.href };
  // A one-letter "scheme" is a Windows drive (C:\…), not a URL.
  if (url && url.protocol !== 'file:' && url.protocol.length > 2) return { kind: 'refused', reason: t('{0} links do not open from the chat', url.protocol) };
  if (!root) return { kind: 'refused', reason: t('no workspace folder is open') };
  let raw: string;
  try {
    raw = url?.protocol === 'file:' ? decodeURIComponent(url.pathname) + url.hash : href;
  } catch {
    return { kind: 'refused', reason: t('the file link is malformed') };
  }
  const [file = '', fragment] = raw.split('#');
  const target = realPathInside(path.resolve(root, file), [root]);
  if (target === undefined) return { kind: 'refused', reason: t('{0} is outside the workspace', realPath(path.resolve(root, file))) };
  const line = /^L(\d+)/.exec(fragment ?? '')?.[1];
  return { kind: 'file', path: target, ...(line ? { line: Number(line) } : {}) };
}
