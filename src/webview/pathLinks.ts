/** Workspace paths the model writes as inline code (`src/a.ts:12`) become links that open the file at that line. */

/** A relative path with an extension, optionally `:line` or `:line:col`; no scheme, no `..` segments. */
const PATH = /^(?!\/)(?!.*(?:^|\/)\.\.(?:\/|$))([\w.@+-]+(?:\/[\w.@+-]+)*\.[\w]+)(?::(\d+)(?::\d+)?)?$/;

/** The link target (`path#Lline`) for inline code that names a workspace file, else undefined. */
export function pathHref(text: string): string | undefined {
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
    // A real link (the relative target is one safeHref keeps): main.ts's link handler asks the host to open it.
    a.setAttribute('href', href);
    a.setAttribute('title', `Open ${href.replace('#L', ' at line ')}`);
    code.replaceWith(a);
    a.append(code);
  }
}
