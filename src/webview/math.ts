/**
 * Math in replies: `$…$`, `$$…$$` and ```math fences parse into placeholders (markdown-it rules here) that
 * `drawMath` turns into KaTeX's MathML, sanitized with DOMPurify's MathML profile. MathML needs no stylesheet,
 * font or inline style, so it works under the panel's CSP and reads well to screen readers.
 */

import DOMPurify, { type Config } from 'dompurify';
import type Katex from 'katex';
import type { MarkdownIt } from 'markdown-it';
import { h } from './dom.ts';

// The bundler's CommonJS `require`: KaTeX's module (a quarter of the view's script, thousands of symbol
// definitions run at load) is evaluated when the first formula is drawn, not in the view's first paint, and
// drawing stays synchronous.
declare const require: (id: 'katex') => typeof Katex;
let katexModule: typeof Katex | undefined;
const katex = (): typeof Katex => (katexModule ??= require('katex'));
// Once the view has painted and is idle, so the first formula of a streaming reply does not pay for it either.
if (typeof requestIdleCallback === 'function') requestIdleCallback(() => katex());

/** Placeholder classes the markdown renderer writes and the sanitizer keeps. */
export const MATH_INLINE = 'math-inline';
export const MATH_BLOCK = 'math-block';

/** Formulas longer than this stay source: KaTeX's time grows with them and no reply needs more. */
const MAX_TEX_CHARS = 20_000;

/** Adds the `$…$` inline and `$$…$$` block rules; fence rendering (```math) is the caller's. */
export function mathPlugin(md: MarkdownIt): void {
  md.inline.ruler.after('escape', 'math_inline', (state, silent) => {
    const src = state.src;
    const start = state.pos;
    if (src.charCodeAt(start) !== 0x24 /* $ */) return false;
    // `$$` inline is left as text; a space after the opener means a price ("$5 and $6"), not math.
    if (src[start + 1] === '$' || /\s/.test(src[start + 1] ?? ' ')) return false;
    let end = start + 1;
    for (;;) {
      end = src.indexOf('$', end);
      if (end === -1) return false;
      if (src[end - 1] === '\\') {
        end++;
        continue;
      }
      // A closer has no space before it and no digit after it.
      if (/\s/.test(src[end - 1]!) || /\d/.test(src[end + 1] ?? '')) return false;
      break;
    }
    if (!silent) {
      const token = state.push('math_inline', 'span', 0);
      token.content = src.slice(start + 1, end);
      token.markup = '$';
    }
    state.pos = end + 1;
    return true;
  });

  md.block.ruler.before(
    'fence',
    'math_block',
    (state, startLine, endLine, silent) => {
      const first = state.bMarks[startLine]! + state.tShift[startLine]!;
      if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
      const line = (n: number) => state.src.slice(state.bMarks[n]! + state.tShift[n]!, state.eMarks[n]);
      const opener = line(startLine);
      if (!opener.startsWith('$$')) return false;
      if (silent) return true;
      // One line: `$$ x $$`; otherwise up to a line ending in `$$`, or (still streaming) the end of the text.
      const rest = opener.slice(2);
      let closed = false;
      let last = startLine;
      const body: string[] = [];
      if (rest.trimEnd().endsWith('$$') && rest.trim().length >= 2) {
        body.push(rest.trimEnd().slice(0, -2));
        closed = true;
      } else {
        if (rest.trim()) body.push(rest);
        for (let n = startLine + 1; n < endLine; n++) {
          last = n;
          if (state.sCount[n]! < state.blkIndent && line(n) !== '') break;
          const text = line(n);
          if (text.trimEnd().endsWith('$$')) {
            body.push(text.trimEnd().slice(0, -2));
            closed = true;
            break;
          }
          body.push(text);
        }
      }
      state.line = last + 1;
      const token = state.push('math_block', 'div', 0);
      token.block = true;
      token.content = body.join('\n');
      token.meta = { closed, source: state.src.slice(first, state.eMarks[last]) };
      token.map = [startLine, state.line];
      token.markup = '$$';
      return true;
    },
    { alt: ['paragraph', 'reference', 'blockquote', 'list'] },
  );

  const escape = md.utils.escapeHtml;
  // l10n-ignore: markup, not text the user reads
  md.renderer.rules.math_inline = (tokens, idx) => `<span class="${MATH_INLINE}">${escape(tokens[idx]!.content)}</span>`;
  // An unclosed `$$` (the reply is still streaming it) shows what was written.
  md.renderer.rules.math_block = (tokens, idx) => {
    const token = tokens[idx]!;
    const meta = token.meta as { closed: boolean; source: string };
    // l10n-ignore: markup, not text the user reads
    return meta.closed ? `<div class="${MATH_BLOCK}">${escape(token.content)}</div>\n` : `<p>${escape(meta.source)}</p>\n`;
  };
}

/** The math placeholder for a closed ```math fence. */
export function mathFenceHtml(content: string, escape: (s: string) => string): string {
  // l10n-ignore: markup, not text the user reads
  return `<div class="${MATH_BLOCK}">${escape(content)}</div>\n`;
}

const MATHML: Config & { RETURN_DOM_FRAGMENT: true } = {
  USE_PROFILES: { mathMl: true },
  ADD_TAGS: ['semantics', 'annotation'],
  ADD_ATTR: ['encoding'],
  RETURN_DOM_FRAGMENT: true,
};

/** Replaces every math placeholder in `root` with its formula drawn, or its source where KaTeX fails. */
export function drawMath(root: DocumentFragment | Element): void {
  for (const el of Array.from(root.querySelectorAll(`.${MATH_INLINE}, .${MATH_BLOCK}`))) {
    const block = el.classList.contains(MATH_BLOCK);
    const tex = el.textContent ?? '';
    el.replaceWith(formula(tex, block));
  }
}

function formula(tex: string, block: boolean): HTMLElement {
  const kind = block ? 'block' : 'inline';
  try {
    if (tex.length > MAX_TEX_CHARS) throw new Error(`longer than ${MAX_TEX_CHARS} characters`);
    const html = katex().renderToString(tex, { output: 'mathml', displayMode: block, throwOnError: true, trust: false, strict: 'ignore', maxExpand: 500 });
    const drawn = DOMPurify.sanitize(html, MATHML) as unknown as DocumentFragment;
    const math = drawn.querySelector('math');
    if (!math) throw new Error('no MathML');
    return h(block ? 'div' : 'span', { class: `math math-${kind}`, 'data-math': kind }, math);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return h(block ? 'pre' : 'code', { class: `math math-${kind} math-error`, 'data-math': kind, 'data-math-error': '', title: message }, tex);
  }
}
