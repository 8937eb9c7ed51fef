/**
 * Math in replies: `$…$`, `$$…$$` and ```math fences parse into placeholders (markdown-it rules here) that
 * `drawMath` turns into KaTeX's MathML, sanitized with DOMPurify's MathML profile. MathML needs no stylesheet,
 * font or inline style, so it works under the panel's CSP and reads well to screen readers. KaTeX is a chunk of its
 * own (dist/webview/katex.js), loaded when a reply first starts a formula; one drawn before it arrives shows its
 * source and is drawn in place once it has.
 */

import DOMPurify, { type Config } from 'dompurify';
import type Katex from 'katex';
import type { MarkdownIt } from 'markdown-it';
import { h } from './dom.ts';
import { t } from './l10n.ts';
import { loadChunk } from './lazyChunk.ts';

// KaTeX (more than the rest of the view's script together, thousands of symbol definitions run at load) is neither
// parsed nor run in the view's first paint, nor at all in a chat without math.
let katex: typeof Katex | undefined;
let loading: 'no' | 'yes' | 'failed' = 'no';
// Formulas showing their source while KaTeX loads.
let waiting: HTMLElement[] = [];

/** Starts loading KaTeX if nothing has yet: called as soon as a reply starts a formula, so it is usually here when it closes. */
export function needMath(): void {
  if (loading !== 'no') return;
  loading = 'yes';
  loadChunk<typeof Katex>('katex.js', '__piKatex').then(
    (loaded) => {
      katex = loaded;
      drawWaiting();
    },
    // Every formula stays its source, with the reason in its tooltip.
    () => {
      loading = 'failed';
      drawWaiting();
    },
  );
}

function drawWaiting(): void {
  const all = waiting;
  waiting = [];
  for (const el of all) drawInto(el, el.textContent ?? '', el.classList.contains(MATH_BLOCK));
}

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
    // A formula may have started: KaTeX loads while it streams. Not for a price ("$5"): a formula that starts with a
    // digit still loads it once drawn.
    if (!/\d/.test(src[start + 1]!)) needMath();
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
      needMath();
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

/**
 * Replaces every math placeholder in `root` with its formula drawn, or its source where KaTeX fails. Before KaTeX is
 * here the formula shows its source (`data-math-pending`) and is drawn into the same element once it has: the
 * streaming renderer keeps the nodes it put on the page, so the element must stay.
 */
export function drawMath(root: DocumentFragment | Element): void {
  for (const el of Array.from(root.querySelectorAll(`.${MATH_INLINE}, .${MATH_BLOCK}`))) {
    const block = el.classList.contains(MATH_BLOCK);
    const tex = el.textContent ?? '';
    const formula = h(block ? 'div' : 'span');
    if (katex || loading === 'failed') drawInto(formula, tex, block);
    else {
      // l10n-ignore: class names
      formula.className = `math ${block ? MATH_BLOCK : MATH_INLINE}`;
      formula.setAttribute('data-math-pending', '');
      formula.textContent = tex;
      waiting.push(formula);
      needMath();
    }
    el.replaceWith(formula);
  }
}

/** Makes `el` the formula `tex` drawn, or its source with the reason where KaTeX fails. */
function drawInto(el: HTMLElement, tex: string, block: boolean): void {
  const kind = block ? 'block' : 'inline';
  el.removeAttribute('data-math-pending');
  try {
    if (!katex) throw new Error(t('The math library is not available.'));
    if (tex.length > MAX_TEX_CHARS) throw new Error(`longer than ${MAX_TEX_CHARS} characters`);
    const html = katex.renderToString(tex, { output: 'mathml', displayMode: block, throwOnError: true, trust: false, strict: 'ignore', maxExpand: 500 });
    const drawn = DOMPurify.sanitize(html, MATHML) as unknown as DocumentFragment;
    const math = drawn.querySelector('math');
    if (!math) throw new Error('no MathML');
    // l10n-ignore: class names
    el.className = `math math-${kind}`;
    el.setAttribute('data-math', kind);
    el.replaceChildren(math);
  } catch (e) {
    // l10n-ignore: class names
    el.className = `math math-${kind} math-error`;
    el.setAttribute('data-math', kind);
    el.setAttribute('data-math-error', '');
    el.title = e instanceof Error ? e.message : String(e);
    el.textContent = tex;
  }
}
