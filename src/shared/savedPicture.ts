/**
 * The saved picture of a chat's rows (text and class names in a small tree, see webview/savedRender.ts) as the
 * allow-list both sides check it against, and as HTML the host puts into a re-created view's page so it paints
 * before the script loads: allow-listed tags, class names of word characters only, every text escaped.
 */

/** A text, or an element: `[tag, class names, ...children]`. */
export type SavedNode = string | readonly SavedNode[];

/** Tags a picture keeps; anything else is left out (the webview makes links and buttons spans first). */
export const PICTURE_TAGS: ReadonlySet<string> = new Set([
  'div',
  'span',
  'p',
  'pre',
  'code',
  'ul',
  'ol',
  'li',
  'strong',
  'em',
  'b',
  'i',
  's',
  'del',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'header',
  'section',
  'br',
  'hr',
]);
/** Class names a picture keeps: word characters, spaces and dashes (no quote, no `<`), not too long. */
export const PICTURE_CLASS = /^[\w -]{0,200}$/;
/** Rows a picture keeps, newest last. */
export const MAX_PICTURE_ROWS = 40;
/** Deepest nesting a picture keeps. */
export const PICTURE_DEPTH = 64;
/** Most characters of HTML a picture becomes: a larger one is not put into the page. */
const MAX_PICTURE_HTML = 400_000;
/** Tags that have no end tag. */
const VOID = new Set(['br', 'hr']);
/** The id of the picture the host puts into the page; the script takes it over. */
export const PICTURE_ID = 'pi-saved';

/** Text as HTML text: nothing in it can open a tag, an entity, an attribute or a template. */
function escapeText(text: string): string {
  return text.replace(/[&<>"'`{}]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The picture `saved` (checked here: it came from the webview) as HTML: an inert, hidden-from-assistive-technology
 * `div` holding its rows; empty when there is nothing to draw or it is too large.
 */
export function pictureHtml(saved: unknown): string {
  if (!Array.isArray(saved) || saved.length === 0) return '';
  let rows = '';
  for (const row of saved) rows += nodeHtml(row, 0);
  if (!rows || rows.length > MAX_PICTURE_HTML) return '';
  return `<div id="${PICTURE_ID}" class="saved-render transcript" aria-hidden="true" inert>${rows}</div>`;
}

function nodeHtml(node: unknown, depth: number): string {
  if (typeof node === 'string') return escapeText(node);
  if (!Array.isArray(node) || depth > PICTURE_DEPTH) return '';
  const [tag, cls, ...children] = node as unknown[];
  if (typeof tag !== 'string' || !PICTURE_TAGS.has(tag)) return '';
  const classAttr = typeof cls === 'string' && cls && PICTURE_CLASS.test(cls) ? ` class="${cls}"` : '';
  if (VOID.has(tag)) return `<${tag}${classAttr}>`;
  let inner = '';
  for (const child of children) inner += nodeHtml(child, depth + 1);
  return `<${tag}${classAttr}>${inner}</${tag}>`;
}
