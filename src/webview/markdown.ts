/**
 * Assistant text as markdown: markdown-it (raw HTML off) renders, DOMPurify sanitizes with an allow-list,
 * highlight.js colours finished code blocks. Links keep their target only in `data-href` (http(s) or a
 * relative path) and open through the host on click. While a block streams, finished top-level markdown
 * blocks stay rendered and only the open tail (the last paragraph, list or fence) is rendered again;
 * an open code fence only has its new characters appended.
 */

import DOMPurify, { type Config } from 'dompurify';
import hljs from 'highlight.js/lib/common';
import MarkdownIt from 'markdown-it';
import { showBidiControls } from '../shared/bidi.ts';
import { button } from './components.ts';
import { h, setText } from './dom.ts';
import type { TextBody } from './transcriptView.ts';

/** Code longer than this is shown without highlighting (highlighting is linear but not cheap). */
const HIGHLIGHT_MAX_CHARS = 100_000;

let highlighting = true;

const md = new MarkdownIt({
  html: false,
  linkify: true,
  typographer: false,
  highlight(code, lang) {
    if (!highlighting || !lang || code.length > HIGHLIGHT_MAX_CHARS || !hljs.getLanguage(lang)) return '';
    try {
      return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
    } catch {
      return '';
    }
  },
});

// Images never load: they become links to their source, which the host opens on click.
md.renderer.rules.image = (tokens, idx, _options, _env, self) => {
  const token = tokens[idx]!;
  const src = String(token.attrGet('src') ?? '');
  const alt = String(self.renderInlineAsText(token.children ?? [], md.options, {}) || src);
  return `<a href="${md.utils.escapeHtml(src)}" class="image-link">${md.utils.escapeHtml(alt)}</a>`;
};

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
  ],
  ALLOWED_ATTR: ['href', 'class', 'start', 'title'],
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  RETURN_DOM_FRAGMENT: true,
};

// Only classes markdown-it and highlight.js produce survive.
DOMPurify.addHook('uponSanitizeAttribute', (_node, data) => {
  if (data.attrName === 'class') {
    const kept = data.attrValue.split(/\s+/).filter((c) => /^(hljs[\w-]*|language-[\w+#.-]+|image-link|[\w]+_)$/.test(c));
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

/** Renders markdown source to a sanitized fragment with links neutralized and code blocks decorated. */
export function renderMarkdown(src: string, highlight = true): DocumentFragment {
  return fragmentFrom(renderHtml(src, highlight));
}

function renderHtml(src: string, highlight: boolean): string {
  highlighting = highlight;
  try {
    return md.render(src);
  } finally {
    highlighting = true;
  }
}

function fragmentFrom(html: string): DocumentFragment {
  const frag = DOMPurify.sanitize(html, PURIFY) as unknown as DocumentFragment;
  for (const a of Array.from(frag.querySelectorAll('a'))) {
    const href = safeHref(a.getAttribute('href') ?? '');
    a.removeAttribute('href');
    if (href) {
      a.setAttribute('data-href', href);
      a.setAttribute('title', href);
      a.setAttribute('tabindex', '0');
    } else {
      a.classList.add('link-refused');
    }
  }
  // A tooltip is read as the truth about a link: bidi overrides in any title show instead of reordering it.
  for (const el of Array.from(frag.querySelectorAll('[title]'))) el.setAttribute('title', showBidiControls(el.getAttribute('title') ?? ''));
  for (const pre of Array.from(frag.querySelectorAll('pre'))) {
    const code = pre.querySelector('code');
    const lang = /(?:^|\s)language-([\w+#.-]+)/.exec(code?.className ?? '')?.[1] ?? '';
    const block = codeBlock(lang);
    pre.replaceWith(block);
    block.append(pre);
  }
  return frag;
}

/** A code block with its Copy and Insert-at-cursor actions (handled by delegation in main.ts). */
function codeBlock(lang: string, pre?: HTMLElement): HTMLElement {
  return h(
    'div',
    { class: 'code-block' },
    h(
      'div',
      { class: 'code-actions' },
      h('span', { class: 'code-lang' }, lang),
      button('Copy', 'copy-code', 'link', { 'aria-label': 'Copy code' }),
      button('Insert', 'insert-code', 'link', { 'aria-label': 'Insert code at cursor', title: 'Insert at the cursor in the active editor' }),
    ),
    ...(pre ? [pre] : []),
  );
}

interface OpenFence {
  readonly opener: string;
  readonly code: HTMLElement;
  content: string;
}

/** Index just past the end of line `line` (0-based lines) in `text`. */
function lineOffset(text: string, line: number): number {
  let at = 0;
  for (let n = 0; n < line; n++) {
    const i = text.indexOf('\n', at);
    if (i === -1) return text.length;
    at = i + 1;
  }
  return at;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})([^\n]*)\n/;

class MarkdownBody implements TextBody {
  readonly el: HTMLElement;
  private _text = '';
  private _final = false;
  /** Characters of `_text` rendered into nodes that are never touched again while streaming. */
  private _committed = 0;
  private _tail: ChildNode[] = [];
  private _fence: OpenFence | undefined;

  constructor() {
    this.el = h('div', { class: 'md' });
  }

  update(text: string, final: boolean): void {
    if (final) {
      if (this._final && text === this._text) return;
      // Once, when the block ends: the whole source, with highlighting, exactly as a finished reply renders.
      this._final = true;
      this._text = text;
      this._fence = undefined;
      this._tail = [];
      this._committed = text.length;
      this.el.replaceChildren(renderMarkdown(text));
      return;
    }
    if (text === this._text && !this._final) return;
    if (this._final || !text.startsWith(this._text)) {
      this._final = false;
      this._committed = 0;
      this._tail = [];
      this._fence = undefined;
      this.el.replaceChildren();
    }
    this._text = text;
    this._renderTail();
  }

  private _renderTail(): void {
    let tail = this._text.slice(this._committed);
    let tokens = md.parse(tail, {});
    // Top-level blocks in the tail: all but the last are finished, because a later block has begun.
    let lastStart = -1;
    let blocks = 0;
    for (const t of tokens) {
      if (t.level === 0 && t.nesting !== -1 && t.map) {
        blocks++;
        lastStart = t.map[0];
      }
    }
    if (blocks >= 2 && lastStart > 0) {
      const cut = lineOffset(tail, lastStart);
      const done = tail.slice(0, cut);
      this._removeTail();
      this.el.append(renderMarkdown(done));
      this._committed += cut;
      tail = tail.slice(cut);
      tokens = md.parse(tail, {});
    }
    // An open code fence as the only block: append its new characters in place.
    const only = tokens.length === 1 ? tokens[0] : undefined;
    const opener = only?.type === 'fence' ? FENCE_OPEN.exec(tail) : null;
    if (only && opener) {
      const f = this._fence;
      if (f && f.opener === opener[0] && only.content.startsWith(f.content)) {
        f.content = only.content;
        setText(f.code, only.content);
        return;
      }
      this._removeTail();
      const code = h('code', only.info ? { class: `language-${only.info.trim().split(/\s+/)[0]}` } : {});
      code.textContent = only.content;
      const block = codeBlock(only.info.trim().split(/\s+/)[0] ?? '', h('pre', {}, code));
      this.el.append(block);
      this._tail = [block];
      this._fence = { opener: opener[0], code, content: only.content };
      return;
    }
    this._fence = undefined;
    const frag = fragmentFrom(md.renderer.render(tokens, md.options, {}));
    // Highlighting waits until the block is finished.
    this._removeTail();
    this._tail = Array.from(frag.childNodes);
    this.el.append(frag);
  }

  private _removeTail(): void {
    for (const n of this._tail) n.remove();
    this._tail = [];
  }
}

export function markdownBody(): TextBody {
  return new MarkdownBody();
}
