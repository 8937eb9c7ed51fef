/**
 * Assistant text as markdown: markdown-it (raw HTML off) renders, DOMPurify sanitizes with an allow-list,
 * highlight.js colours finished code blocks (highlighter.ts: loaded with the first code block). Links keep a
 * real `href` only when it is http(s) or a relative path (so assistive technology sees a link) and open through the
 * host on click (clickRouter.ts).
 * Streaming (incremental) rendering is in markdownStream/; every HTML string it produces goes through
 * `sanitize` here.
 */

import DOMPurify, { type Config } from 'dompurify';
import type { HLJSApi } from 'highlight.js';
import MarkdownIt, { type Env, type Token as MdToken } from 'markdown-it';
import { showInvisibles } from '../shared/visibleText.ts';
import { ConversationAction } from './actions.ts';
import { button, scrollRegion } from './components.ts';
import { DIAGRAM, diagramFigure, prewarmDiagrams } from './diagrams.ts';
import { h } from './dom.ts';
import { highlighter, highlightWhenLoaded, needHighlighter } from './highlighter.ts';
import { t } from './l10n.ts';
import { drawMath, MATH_BLOCK, MATH_INLINE, mathFenceHtml, mathPlugin, needMath } from './math.ts';

/** Code longer than this is shown without highlighting (highlighting is linear but not cheap). */
const HIGHLIGHT_MAX_CHARS = 100_000;

let highlighting = true;

/** Marks a finished code block drawn as plain text because the highlighter was not loaded yet (`sanitize` takes it off). */
const HIGHLIGHT_LATER = 'highlight-later';

const md = new MarkdownIt({
  html: false,
  linkify: true,
  typographer: false,
  highlight(code, lang): string {
    if (!highlighting || !lang || code.length > HIGHLIGHT_MAX_CHARS) return '';
    const hljs = highlighter();
    // l10n-ignore: markup, not text the user reads
    if (!hljs) return `<pre><code class="language-${md.utils.escapeHtml(lang)} ${HIGHLIGHT_LATER}">${md.utils.escapeHtml(code)}</code></pre>`;
    return coloured(hljs, code, lang);
  },
});

/** `code` as highlight.js's HTML in `lang`; '' for a language it does not know or code it cannot colour (shown plain). */
function coloured(hljs: HLJSApi, code: string, lang: string): string {
  if (!hljs.getLanguage(lang)) return '';
  try {
    return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
  } catch {
    return '';
  }
}

md.use(mathPlugin);

// A closed ```math or ```mermaid fence (rendered with highlighting: finished) becomes a placeholder that
// `sanitize` draws; while it streams it stays a code block showing its source.
const defaultFence = md.renderer.rules.fence!;
md.renderer.rules.fence = (tokens, idx, options, env, self) => {
  const token = tokens[idx]!;
  const lang = fenceLang(token.info);
  if (highlighting && lang === 'math') return mathFenceHtml(token.content, md.utils.escapeHtml);
  // l10n-ignore: markup, not text the user reads
  if (highlighting && lang === 'mermaid') return `<div class="${DIAGRAM}">${md.utils.escapeHtml(token.content)}</div>\n`;
  return defaultFence(tokens, idx, options, env, self);
};

function fenceLang(info: string): string {
  return md.utils.unescapeAll(info).trim().split(/\s+/)[0] ?? '';
}

// Images never load: they become links to their source, which the host opens on click. Inside a link
// (a README badge) the image is only its alt text, so the link around it keeps its own target and no
// empty, invisible link is left behind (the HTML parser splits nested anchors).
md.renderer.rules.image = (tokens, idx, _options, _env, self) => {
  const token = tokens[idx]!;
  const src = String(token.attrGet('src') ?? '');
  const alt = String(self.renderInlineAsText(token.children ?? [], md.options, {}) || src);
  if (insideLink(tokens, idx)) return md.utils.escapeHtml(alt);
  // l10n-ignore: not text the user reads
  return `<a href="${md.utils.escapeHtml(src)}" class="image-link">${md.utils.escapeHtml(alt)}</a>`;
};

// Table column alignment becomes a class: the inline `style` markdown-it writes is blocked by the CSP.
md.core.ruler.push('align_classes', (state) => {
  for (const token of state.tokens) {
    if (token.type !== 'th_open' && token.type !== 'td_open') continue;
    const align = /^text-align:(left|center|right)$/.exec(String(token.attrGet('style') ?? ''))?.[1];
    if (!align || !token.attrs) continue;
    token.attrs = token.attrs.filter(([name]) => name !== 'style');
    token.attrJoin('class', `align-${align}`);
  }
});

function insideLink(tokens: readonly { type: string }[], idx: number): boolean {
  let depth = 0;
  for (let i = idx - 1; i >= 0; i--) {
    const t = tokens[i]!.type;
    if (t === 'link_close') depth--;
    else if (t === 'link_open' && ++depth > 0) return true;
  }
  return false;
}

/** Set while probing a chunk of inline text: whether an emphasis or strikethrough opener stayed unmatched. */
let probe: { open: boolean } | undefined;
md.inline.ruler2.push('open_delimiters', (state) => {
  if (probe && state.delimiters.some((d) => d.open && d.end < 0)) probe.open = true;
  return false;
});

const PURIFY: Config & { RETURN_DOM_FRAGMENT: true } = {
  ALLOWED_TAGS: [
    'p',
    'br',
    'hr',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'strong',
    'em',
    's',
    'del',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'a',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
    'span',
    'div',
  ],
  ALLOWED_ATTR: ['href', 'class', 'start', 'title'],
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  RETURN_DOM_FRAGMENT: true,
};

// Only classes markdown-it and highlight.js produce survive, and the math and diagram placeholders.
const KEPT_CLASS = new RegExp(
  `^(hljs[\\w-]*|language-[\\w+#.-]+|image-link|${HIGHLIGHT_LATER}|align-(?:left|center|right)|${MATH_INLINE}|${MATH_BLOCK}|${DIAGRAM}|[\\w]+_)$`,
);
DOMPurify.addHook('uponSanitizeAttribute', (_node, data) => {
  if (data.attrName === 'class') {
    const kept = data.attrValue.split(/\s+/).filter((c) => KEPT_CLASS.test(c));
    data.attrValue = kept.join(' ');
    if (!kept.length) data.keepAttr = false;
  }
});

/** The link target the host may open: http(s) URLs and relative (workspace) paths; nothing else. */
export function safeHref(raw: string): string | undefined {
  const href = raw.trim();
  if (/^https?:\/\/[^\s]+$/i.test(href)) return href;
  // Any other scheme (javascript:, data:, file:, command:, vscode:, …), protocol-relative URLs and anchors.
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//') || href.startsWith('#') || href === '' || /[\u0000-\u001f]/.test(href)) return undefined;
  try {
    return decodeURI(href);
  } catch {
    return href;
  }
}

/** Renders markdown source to a sanitized fragment with links checked and code blocks decorated. */
export function renderMarkdown(src: string, highlight = true): DocumentFragment {
  return sanitize(renderHtml(src, {}, highlight));
}

/** markdown-it's environment: link reference definitions collected while parsing. */
export type MdEnv = Env;

export type Token = MdToken;

/** Block and inline tokens of `src`; `env` gathers its link reference definitions. */
export function parse(src: string, env: MdEnv): Token[] {
  return md.parse(src, env);
}

/** Block tokens only (no inline pass): enough to see a text's block structure and its definitions. */
export function parseBlocks(src: string, env: MdEnv): Token[] {
  const tokens: Token[] = [];
  md.block.parse(src, md, env, tokens);
  return tokens;
}

/** HTML of `tokens` (a whole token list or a balanced slice of one); fences are highlighted if `highlight`. */
export function renderTokens(tokens: Token[], env: MdEnv, highlight: boolean): string {
  return withHighlighting(highlight, () => md.renderer.render(tokens, md.options, env));
}

export function renderHtml(src: string, env: MdEnv, highlight: boolean): string {
  return withHighlighting(highlight, () => md.render(src, env));
}

/** Inline HTML of `src` (a paragraph's text or a piece of it). */
export function renderInline(src: string, env: MdEnv): string {
  return md.renderInline(src, env);
}

/**
 * Inline HTML of a piece of a paragraph, or undefined when the piece is not closed: an emphasis opener, a
 * bracket or a backtick in it is still unmatched, so later text could change how it renders.
 */
export function renderClosedInline(src: string, env: MdEnv): string | undefined {
  const p = { open: false };
  probe = p;
  let tokens: Token[];
  try {
    tokens = md.parseInline(src, env);
  } finally {
    probe = undefined;
  }
  if (p.open) return undefined;
  for (const t of tokens[0]?.children ?? []) if (t.type === 'text' && /[[`$]/.test(t.content)) return undefined;
  return md.renderer.renderInline(tokens[0]?.children ?? [], md.options, env);
}

/** Whether closing a fence with this info string and content highlights it (otherwise it stays as streamed). */
export function highlights(info: string, content: string): boolean {
  const lang = fenceLang(info);
  if (lang === 'math' || lang === 'mermaid') return true;
  // Before the highlighter is here a language cannot be checked: the block is drawn again, to be coloured once it is.
  const hljs = highlighter();
  return lang !== '' && content.length <= HIGHLIGHT_MAX_CHARS && (!hljs || hljs.getLanguage(lang) !== undefined);
}

function withHighlighting<T>(on: boolean, f: () => T): T {
  highlighting = on;
  try {
    return f();
  } finally {
    highlighting = true;
  }
}

/** The only way HTML reaches the DOM: DOMPurify with the allow-list, then links and code blocks finished. */
export function sanitize(html: string): DocumentFragment {
  const frag = DOMPurify.sanitize(html, PURIFY) as unknown as DocumentFragment;
  for (const a of Array.from(frag.querySelectorAll('a'))) neutralizeLink(a);
  // A tooltip is read as the truth about a link: bidi overrides in any title show instead of reordering it, tag and
  // zero-width characters instead of hiding in it. The body text is the model's words, shown as they are.
  for (const el of Array.from(frag.querySelectorAll('[title]'))) el.setAttribute('title', showInvisibles(el.getAttribute('title') ?? ''));
  // A wide table scrolls sideways in a narrow view: the keyboard can scroll it once it takes focus.
  for (const table of Array.from(frag.querySelectorAll('table'))) table.setAttribute('tabindex', '0');
  drawMath(frag);
  for (const el of Array.from(frag.querySelectorAll(`div.${DIAGRAM}`))) el.replaceWith(diagramFigure(el.textContent ?? '', codeBlockOf));
  for (const pre of Array.from(frag.querySelectorAll('pre'))) {
    const code = pre.querySelector('code');
    const lang = /(?:^|\s)language-([\w+#.-]+)/.exec(code?.className ?? '')?.[1] ?? '';
    // A diagram is on its way: its library loads while the fence streams.
    if (lang === 'mermaid') prewarmDiagrams();
    // A formula is on its way: KaTeX loads while the fence streams.
    if (lang === 'math') needMath();
    const block = codeBlock(lang);
    if (code?.classList.contains(HIGHLIGHT_LATER)) {
      code.classList.remove(HIGHLIGHT_LATER);
      highlightWhenLoaded(block, (hljs) => highlightInPlace(code, lang, hljs));
    } else if (lang && lang !== 'math' && lang !== 'mermaid') {
      // The first code block with a language draws the highlighter in (a fence still streaming included), so it is
      // usually here before the fence closes.
      needHighlighter();
    }
    pre.replaceWith(block);
    block.append(scrollRegion(pre, lang ? t('{0} code', lang) : t('Code')));
  }
  return frag;
}

/** Colours a code block drawn before the highlighter came: its text stays, in the same element, so nothing moves. */
function highlightInPlace(code: HTMLElement, lang: string, hljs: HLJSApi): void {
  const html = coloured(hljs, code.textContent ?? '', lang);
  if (!html) return;
  // l10n-ignore: markup, not text the user reads
  const colored = (DOMPurify.sanitize(`<code>${html}</code>`, PURIFY) as unknown as DocumentFragment).firstElementChild;
  if (colored) code.replaceChildren(...Array.from(colored.childNodes));
}

/**
 * A link keeps a real `href` only where the host may open it (http(s) or relative), so assistive technology
 * and the keyboard see a link; the click and Enter are handled in clickRouter.ts, which asks the host to open it.
 */
function neutralizeLink(a: HTMLAnchorElement): void {
  const href = safeHref(a.getAttribute('href') ?? '');
  if (href) {
    a.setAttribute('href', href);
    a.setAttribute('title', href);
  } else {
    a.removeAttribute('href');
    a.classList.add('link-refused');
  }
}

/** A code block showing `code` as plain text, with the actions of one (a diagram's source). */
function codeBlockOf(code: string): HTMLElement {
  const pre = h('pre', {}, h('code', { class: 'language-mermaid' }, code));
  const block = codeBlock('mermaid');
  block.append(scrollRegion(pre, t('{0} code', 'mermaid')));
  return block;
}

/** A code block with its Copy and Insert-at-cursor actions (handled by delegation in clickRouter.ts). */
function codeBlock(lang: string): HTMLElement {
  return h(
    'div',
    { class: 'code-block' },
    h(
      'div',
      { class: 'code-actions' },
      h('span', { class: 'code-lang' }, lang),
      button(t('Copy'), ConversationAction.CopyCode, 'link', { 'aria-label': t('Copy code') }),
      button(t('Insert'), ConversationAction.InsertCode, 'link', {
        'aria-label': t('Insert code at cursor'),
        title: t('Insert at the cursor in the active editor'),
      }),
    ),
  );
}
