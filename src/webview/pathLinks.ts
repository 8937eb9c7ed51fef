/** Workspace paths the model writes as inline code (`src/a.ts:12`) become links that open the file at that line. */

import { t } from './l10n.ts';

/** A relative path with an extension, optionally `:line` or `:line:col`; no scheme, no `..` segments. */
const PATH = /^(?!\/)(?!.*(?:^|\/)\.\.(?:\/|$))([\w.@+-]+(?:\/[\w.@+-]+)*\.[\w]+)(?::(\d+)(?::\d+)?)?$/;

/** The link target (`path#Lline`) for inline code that names a workspace file, else undefined. */
function pathHref(text: string): string | undefined {
  const m = PATH.exec(text.trim());
  if (!m) return undefined;
  return m[2] ? `${m[1]}#L${m[2]}` : m[1];
}

/**
 * Wraps inline code (not code blocks) that names a file in a link the chat's link handler opens; the host
 * still decides: only files inside the workspace open.
 */
export function linkifyPaths(root: Element): void {
  for (const code of Array.from(root.querySelectorAll('code'))) {
    if (code.closest('pre, a, .code-block')) continue;
    const href = pathHref(code.textContent ?? '');
    if (!href) continue;
    const a = document.createElement('a');
    a.className = 'path-link';
    // A real link (the relative target is one safeHref keeps): the click router (clickRouter.ts) asks the host to open it.
    a.setAttribute('href', href);
    a.setAttribute('title', openTitle(href.replace(/#L(\d+)$/, ''), /#L(\d+)$/.exec(href)?.[1]));
    code.replaceWith(a);
    a.append(code);
  }
}

/**
 * A workspace path in plain text: one with a folder (`src/a.ts`, `./lib/b.js:3`) or a bare file name
 * followed by `:line`. Not inside a URL or a longer word, never with `..` segments or a scheme.
 */
const TEXT_PATH = /(?<![\w/.:@+-])((?:\.\/)?(?:[\w@+-][\w.@+-]*\/)+[\w@+-][\w.@+-]*\.[A-Za-z0-9]+|[\w@+-][\w.@+-]*\.[A-Za-z0-9]+(?=:\d))(?::(\d+)(?::\d+)?)?/g;

/** Text longer than this is not scanned for paths (the output is shown as it is). */
const TEXT_PATH_MAX_CHARS = 200_000;
const TEXT_PATH_MAX_LINKS = 500;

/**
 * Turns workspace paths in a finished tool output's text (`src/a.ts:12: error …`, `grep` and compiler
 * output) into links to that line; the chat's link handler asks the host, which opens only files inside
 * the workspace.
 */
export function linkifyTextPaths(root: Element): void {
  if ((root.textContent?.length ?? 0) > TEXT_PATH_MAX_CHARS) return;
  let links = 0;
  const texts: Text[] = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) if (!n.parentElement?.closest('a')) texts.push(n as Text);
  for (const node of texts) {
    const text = node.data;
    TEXT_PATH.lastIndex = 0;
    const parts: (string | Node)[] = [];
    let at = 0;
    for (let m = TEXT_PATH.exec(text); m && links < TEXT_PATH_MAX_LINKS; m = TEXT_PATH.exec(text)) {
      const file = m[1]!.replace(/^\.\//, '');
      if (/(^|\/)\.\.(\/|$)/.test(file)) continue;
      const a = document.createElement('a');
      a.className = 'path-link';
      a.setAttribute('href', m[2] ? `${file}#L${m[2]}` : file);
      a.setAttribute('title', openTitle(file, m[2]));
      a.textContent = m[0];
      parts.push(text.slice(at, m.index), a);
      at = m.index + m[0].length;
      links++;
    }
    if (!parts.length) continue;
    parts.push(text.slice(at));
    node.replaceWith(...parts);
  }
}

/** A link's tooltip: which file it opens, and at which line. */
function openTitle(file: string, line: string | undefined): string {
  return line ? t('Open {0} at line {1}', file, line) : t('Open {0}', file);
}
