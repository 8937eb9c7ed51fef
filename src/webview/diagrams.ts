/**
 * Mermaid diagrams in replies: a closed ```mermaid fence becomes a figure showing its source until the
 * diagram library (dist/webview/mermaid.js and the chunks it imports, loaded by a nonce'd module script only
 * when a diagram appears) has drawn it: once the figure is on screen, one diagram per idle period. The SVG is
 * sanitized with DOMPurify's SVG profile; Mermaid's `<style>` becomes an adopted stylesheet scoped to the
 * diagram's id, and inline `style` attributes go through the CSSOM, so the CSP needs no 'unsafe-inline'.
 */

import DOMPurify from 'dompurify';
import { ConversationAction } from './actions.ts';
import { button } from './components.ts';
import { h } from './dom.ts';
import { loadChunk } from './lazyChunk.ts';
import { t } from './l10n.ts';

/** The placeholder class markdown.ts writes for a closed ```mermaid fence. */
export const DIAGRAM = 'mermaid-diagram';

/** What dist/webview/mermaid.js puts on the window (see mermaidChunk.ts). */
export interface MermaidApi {
  /** Throws with the parser's message when the source is not a diagram. */
  parse(source: string, theme: Readonly<Record<string, string | boolean>>): Promise<void>;
  /** The diagram as an SVG string, laid out in `scratch`. */
  render(id: string, source: string, theme: Readonly<Record<string, string | boolean>>, scratch: HTMLElement): Promise<string>;
}

let loading: Promise<MermaidApi> | undefined;
// The library once loaded and warmed up.
let library: MermaidApi | undefined;
let warming = false;
let drawn = 0;
const queue: (() => Promise<void>)[] = [];
let pumping = false;
// Figures not drawn yet, until they come on screen: a reply's diagrams far above or below cost nothing until read.
const undrawn = new WeakMap<Element, () => Promise<void>>();
let onScreen: IntersectionObserver | undefined;
// A DOMPurify of its own: the markdown allow-list's class hook (markdown.ts) would strip the classes Mermaid's styles select by.
const purify = DOMPurify(window);

/** A figure for a diagram's `source`: the source (made by `codeBlock`) now, the drawing once the library has made it. */
export function diagramFigure(source: string, codeBlock: (code: string) => HTMLElement): HTMLElement {
  const code = codeBlock(source);
  const view = h('div', { class: 'diagram-view', role: 'img', 'aria-label': t('Diagram') });
  view.hidden = true;
  const toggle = button(t('Source'), ConversationAction.DiagramSource, 'link', { 'aria-pressed': 'true', disabled: '' });
  const actions = h(
    'div',
    { class: 'code-actions diagram-actions' },
    h('span', { class: 'code-lang' }, 'mermaid'),
    toggle,
    button(t('Copy'), ConversationAction.CopyDiagram, 'link', { 'aria-label': t('Copy diagram source') }),
    button(t('Open as SVG'), ConversationAction.OpenSvg, 'link', { disabled: '' }),
  );
  const figure = h('figure', { class: 'diagram', 'data-diagram-pending': '' }, actions, view, code);
  undrawn.set(figure, () => draw(figure, source));
  onScreen ??= new IntersectionObserver((entries) => {
    for (const entry of entries) {
      const job = entry.isIntersecting ? undrawn.get(entry.target) : undefined;
      if (!job) continue;
      undrawn.delete(entry.target);
      onScreen!.unobserve(entry.target);
      schedule(job);
    }
  });
  onScreen.observe(figure);
  return figure;
}

/**
 * Loads the diagram library in an idle period, once a ```mermaid fence starts streaming: its one-time load is
 * then over before the fence closes, instead of delaying the first diagram.
 */
export function prewarmDiagrams(): void {
  if (loading || warming) return;
  warming = true;
  // A failed load is remembered in `loading` and shown on the diagram that needed it.
  requestIdleCallback(() => void loadMermaid().catch(() => undefined), { timeout: 2000 });
}

/** Shows the source instead of the drawing, or the drawing again. */
export function toggleDiagramSource(figure: Element): void {
  const view = figure.querySelector<HTMLElement>('.diagram-view');
  const code = figure.querySelector<HTMLElement>('.code-block');
  if (!view || !code || !view.firstElementChild) return;
  const showSource = code.hidden;
  code.hidden = !showSource;
  view.hidden = showSource;
  figure.querySelector(`[data-action="${ConversationAction.DiagramSource}"]`)?.setAttribute('aria-pressed', String(showSource));
}

/** The diagram's source text. */
export function diagramSource(figure: Element): string {
  return figure.querySelector('.code-block code')?.textContent ?? '';
}

/** The drawn diagram as an SVG document's text, or undefined before it is drawn. */
export function diagramSvg(figure: Element): string | undefined {
  const svg = figure.querySelector('.diagram-view svg');
  if (!svg) return undefined;
  const copy = svg.cloneNode(true) as SVGElement;
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  // The adopted stylesheet goes with it, so the file looks as the diagram does.
  const css = sheets.get(svg.id);
  if (css) copy.prepend(Object.assign(document.createElementNS('http://www.w3.org/2000/svg', 'style'), { textContent: css }));
  return new XMLSerializer().serializeToString(copy);
}

function schedule(job: () => Promise<void>): void {
  queue.push(job);
  if (!pumping) void pump();
}

/**
 * One diagram per idle period: drawing one is Mermaid's costly part, so it waits until a frame has been painted
 * with time to spare, and streaming or scrolling frames go on between diagrams.
 */
async function pump(): Promise<void> {
  pumping = true;
  try {
    while (queue.length) {
      await idle();
      await queue.shift()!();
    }
  } finally {
    pumping = false;
  }
}

function idle(): Promise<void> {
  return new Promise((resolve) => requestIdleCallback(() => resolve(), { timeout: 1000 }));
}

let scratch: HTMLElement | undefined;

/**
 * Where Mermaid draws before the SVG is copied out: off screen and contained (media/chat.css), so measuring a
 * label lays out this box alone, not the whole transcript around it.
 */
function scratchBox(): HTMLElement {
  if (!scratch?.isConnected) {
    scratch = h('div', { class: 'diagram-scratch', 'aria-hidden': 'true' });
    document.body.append(scratch);
  }
  return scratch;
}

/**
 * Draws one diagram in three tasks, each an idle period of its own so that none is as long as a frame may be:
 * Mermaid's parse (a source that is not a diagram stops here), its layout and SVG, then the SVG sanitized
 * and put on the page. Each is named in the page's performance timeline (`pi-diagram-draw`, its step as the
 * detail), so the bench can tell a diagram's tasks from the rest.
 */
async function draw(figure: HTMLElement, source: string): Promise<void> {
  const id = `pi-diagram-${++drawn}`;
  let svg: string;
  try {
    // A library that was still loading finished in a task of its own (its warm-up's layout): not this one's parse.
    const mermaid: MermaidApi = library ?? (await loadMermaid().then(async (m) => (await idle(), m)));
    const theme = themeVariables();
    await step('parse', () => mermaid.parse(source, theme));
    await idle();
    svg = await step('layout', () => mermaid.render(id, source, theme, scratchBox()));
    await idle();
  } catch (e) {
    failed(figure, e instanceof Error ? e.message : String(e));
    return;
  } finally {
    // Mermaid leaves its scratch element behind when a source fails.
    document.getElementById(`d${id}`)?.remove();
  }
  const start = performance.now();
  insert(figure, id, svg);
  performance.measure('pi-diagram-draw', { start, detail: 'insert' });
}

async function step<T>(name: 'parse' | 'layout', run: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const result = await run();
  performance.measure('pi-diagram-draw', { start, detail: name });
  return result;
}

/** Puts Mermaid's SVG into the figure, sanitized, its styles applied without inline style attributes. */
function insert(figure: HTMLElement, id: string, svg: string): void {
  const css = /<style[^>]*>([\s\S]*?)<\/style>/i.exec(svg)?.[1] ?? '';
  // Parsed in this page, each `style` attribute and element would be a CSP violation report (the policy has no
  // 'unsafe-inline'; some 40 a diagram, each a console message and a hash): the style element goes (its rules
  // are adopted below) and the attributes are renamed, within tags only, to be applied through the CSSOM below.
  const quiet = svg.replace(/<style[^>]*>[\s\S]*?<\/style>/gi, '').replace(/<[a-zA-Z][^<>]*>/g, (tag) => tag.replace(/(\s)style="/g, '$1data-pi-style="'));
  const frag = purify.sanitize(quiet, {
    USE_PROFILES: { svg: true, svgFilters: true },
    // Nothing in a diagram may link, embed or style the page: links and HTML labels are dropped, the style goes below.
    FORBID_TAGS: ['a', 'foreignObject', 'style', 'image', 'use', 'script'],
    FORBID_ATTR: ['href', 'xlink:href', 'onclick'],
    RETURN_DOM_FRAGMENT: true,
  }) as unknown as DocumentFragment;
  const el = frag.querySelector('svg');
  if (!el) {
    failed(figure, t('The diagram could not be drawn.'));
    return;
  }
  for (const styled of [el, ...Array.from(el.querySelectorAll<SVGElement>('[style], [data-pi-style]'))]) {
    const inline = [styled.getAttribute('style'), styled.getAttribute('data-pi-style')].filter((v) => v !== null).join(';');
    styled.removeAttribute('style');
    styled.removeAttribute('data-pi-style');
    if (!inline) continue;
    // Through the CSSOM: the CSP has no 'unsafe-inline' for style attributes.
    styled.style.cssText = inline;
  }
  el.id = id;
  if (css) adoptScoped(id, css);
  const view = figure.querySelector<HTMLElement>('.diagram-view')!;
  view.replaceChildren(el);
  view.hidden = false;
  figure.querySelector<HTMLElement>('.code-block')!.hidden = true;
  for (const b of Array.from(figure.querySelectorAll('button[disabled]'))) b.removeAttribute('disabled');
  figure.querySelector(`[data-action="${ConversationAction.DiagramSource}"]`)?.setAttribute('aria-pressed', 'false');
  figure.removeAttribute('data-diagram-pending');
  figure.setAttribute('data-diagram', 'mermaid');
}

function failed(figure: HTMLElement, message: string): void {
  figure.removeAttribute('data-diagram-pending');
  figure.setAttribute('data-diagram-error', '');
  figure.append(h('p', { class: 'diagram-error', role: 'note' }, t('Diagram not drawn: {0}', message)));
}

/** Mermaid's styles for one diagram; every rule it writes starts with the diagram's `#id`. */
const sheets = new Map<string, string>();

function adoptScoped(id: string, css: string): void {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  // Only rules for this diagram stay: a rule that reaches outside it (a hostile `themeCSS`) is dropped.
  for (let i = sheet.cssRules.length - 1; i >= 0; i--) {
    const rule = sheet.cssRules[i]!;
    if (!(rule instanceof CSSStyleRule) || !rule.selectorText.split(',').every((s) => s.trim().startsWith(`#${id}`))) sheet.deleteRule(i);
  }
  sheets.set(id, Array.from(sheet.cssRules, (r) => r.cssText).join('\n'));
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}

function loadMermaid(): Promise<MermaidApi> {
  // A module (lazyChunk.ts): it imports only the parts of Mermaid a diagram needs (a flowchart's layout, not every
  // diagram type), in chunks that share the page's nonce, so the one-time load is smaller.
  if (loading) return loading;
  const start = performance.now();
  loading = loadChunk<MermaidApi>('mermaid.js', '__piMermaid').then(
    (loaded) => {
      performance.measure('pi-diagram-library', { start });
      return warm(loaded)
        .catch(() => undefined)
        .then(() => (library = loaded));
    },
    () => {
      throw new Error(t('The diagram library is not available.'));
    },
  );
  return loading;
}

/** A small flowchart with the commonest parts: a box, a decision, a labelled edge. */
// l10n-ignore: drawn off screen and thrown away, nobody reads it.
const WARM_SOURCE = 'graph TD\n  A[Start] -->|yes| B{Check}';

/**
 * Draws a small flowchart nobody sees, in two idle periods of their own (its parse, then its layout), once the
 * library has loaded: the first drawing of each kind pays for Mermaid's theme, its flowchart's chunks and the
 * first run of its layout and drawing code (the first layout took twice as long as the rest), and this way
 * that is not the first diagram someone waits for, nor one long task.
 */
async function warm(mermaid: MermaidApi): Promise<void> {
  await idle();
  let start = performance.now();
  await mermaid.parse(WARM_SOURCE, themeVariables());
  performance.measure('pi-diagram-warm', { start, detail: 'parse' });
  await idle();
  start = performance.now();
  try {
    await mermaid.render('pi-diagram-warm', WARM_SOURCE, themeVariables(), scratchBox());
  } finally {
    document.getElementById('dpi-diagram-warm')?.remove();
  }
  performance.measure('pi-diagram-warm', { start, detail: 'layout' });
}

/** Mermaid's `base` theme in VS Code's colours and font, read when each diagram is drawn. */
function themeVariables(): Record<string, string | boolean> {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  const classes = document.body.classList;
  const dark = classes.contains('vscode-dark') || (classes.contains('vscode-high-contrast') && !classes.contains('vscode-high-contrast-light'));
  const fg = v('--vscode-editor-foreground', dark ? '#cccccc' : '#333333');
  const bg = v('--vscode-editor-background', dark ? '#1e1e1e' : '#ffffff');
  const node = v('--vscode-editorWidget-background', bg);
  const border = v('--vscode-editorWidget-border', v('--vscode-contrastBorder', fg));
  return {
    darkMode: dark,
    background: bg,
    mainBkg: node,
    primaryColor: node,
    secondaryColor: v('--vscode-editor-inactiveSelectionBackground', node),
    tertiaryColor: bg,
    primaryTextColor: fg,
    secondaryTextColor: fg,
    tertiaryTextColor: fg,
    textColor: fg,
    nodeTextColor: fg,
    primaryBorderColor: border,
    nodeBorder: border,
    lineColor: fg,
    fontFamily: v('--vscode-font-family', 'sans-serif'),
    fontSize: v('--vscode-font-size', '13px'),
  };
}
