/**
 * highlight.js with its common languages as a chunk of its own (dist/webview/highlight.js): loaded by highlighter.ts the
 * first time a code block is drawn, not in the view's first paint, and reached through `window.__piHighlight`.
 */

import hljs from 'highlight.js/lib/common';

(window as unknown as { __piHighlight: typeof hljs }).__piHighlight = hljs;
