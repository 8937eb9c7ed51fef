/**
 * KaTeX as a chunk of its own (dist/webview/katex.js): loaded by math.ts when a reply first starts a formula, not in
 * the view's first paint, and reached through `window.__piKatex`.
 */

import katex from 'katex';

(window as unknown as { __piKatex: typeof katex }).__piKatex = katex;
