/** The chat's stylesheet as text for its page (a `<style>` rather than a `<link>`: no fetch before the page paints). */

import { readFileSync } from 'node:fs';

/** `css` (media/chat.css) with its urls relative to media/ resolved by `resolve` (a path from the extension's root); undefined when it could end its element. */
export function inlineStyle(css: string, resolve: (path: string) => string): string | undefined {
  if (/<\/style/i.test(css)) return undefined;
  return css.replace(/url\((['"]?)\.\.\/([^'")]+)\1\)/g, (_m, quote: string, path: string) => `url(${quote}${resolve(path)}${quote})`);
}

/** media/chat.css as read once (the host makes a page each time a hidden view is shown again); null when it could not be read. */
let read: string | null | undefined;

/** The stylesheet at `file` for a page whose resources `resolve` names; undefined when it cannot be inlined (the page links it then). */
export function pageStyle(file: string, resolve: (path: string) => string): string | undefined {
  if (read === undefined) {
    try {
      read = readFileSync(file, 'utf8');
    } catch {
      read = null;
    }
  }
  return read === null ? undefined : inlineStyle(read, resolve);
}
