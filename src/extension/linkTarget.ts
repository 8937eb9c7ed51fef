/** Decides where a link clicked in the chat may go: the browser for http(s), an editor for workspace files, else nowhere. */

import * as path from 'node:path';

export type LinkTarget =
  | { readonly kind: 'external'; readonly url: string }
  | { readonly kind: 'file'; readonly path: string; readonly line?: number }
  | { readonly kind: 'refused'; readonly reason: string };

/** `root` is the workspace folder; a file link must resolve inside it. */
export function linkTarget(href: string, root: string | undefined): LinkTarget {
  let url: URL | undefined;
  try {
    url = new URL(href);
  } catch {
    url = undefined;
  }
  if (url && (url.protocol === 'http:' || url.protocol === 'https:')) return { kind: 'external', url: url.href };
  // A one-letter "scheme" is a Windows drive (C:\…), not a URL.
  if (url && url.protocol !== 'file:' && url.protocol.length > 2) return { kind: 'refused', reason: `${url.protocol} links do not open from the chat` };
  if (!root) return { kind: 'refused', reason: 'no workspace folder is open' };
  const [raw = '', fragment] = (url?.protocol === 'file:' ? decodeURIComponent(url.pathname) + url.hash : href).split('#');
  const target = path.resolve(root, raw);
  const rel = path.relative(root, target);
  if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return { kind: 'refused', reason: `${target} is outside the workspace` };
  const line = /^L(\d+)/.exec(fragment ?? '')?.[1];
  return { kind: 'file', path: target, ...(line ? { line: Number(line) } : {}) };
}
