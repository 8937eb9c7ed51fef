/**
 * The hide/show bench's clocks in the page: a script every frame of the workbench runs first (Playwright's init
 * script) that writes the moments of one show into `globalThis.__hsMarks`, so the bench can split the time from the
 * click to the text on screen into what VS Code does and what the view's page does.
 */

/** One moment: its name and the wall clock (`Date.now()`, the same clock in every frame and process). */
export interface Mark {
  readonly name: MarkName;
  readonly t: number;
}

/**
 * - `click`: the pointer went down on an activity-bar icon (the workbench);
 * - `iframe`: the workbench added the view's `iframe.webview`;
 * - `contentFrame`: VS Code's webview page created the frame the view's HTML is written into (the HTML arrived);
 * - `html`: the view's HTML is in that frame's document; `dcl` / `load`: its DOMContentLoaded and load events;
 * - `text` / `textPaint`: a marker text (the last reply's last line) is in the document / the frame after it;
 * - `shown` / `shownPaint`: VS Code made the frame visible (it keeps a new frame `visibility: hidden` until its load
 *   event, or 200 ms after the HTML was written) / the frame after it;
 * - `script`: the view's main script has run (it has said `ready`; the host answers with the rows);
 * - `live` / `livePaint`: the live transcript (`[data-testid="transcript"]`) holds the marker / the frame after it.
 */
export type MarkName =
  | 'click'
  | 'iframe'
  | 'contentFrame'
  | 'html'
  | 'dcl'
  | 'load'
  | 'text'
  | 'textPaint'
  | 'shown'
  | 'shownPaint'
  | 'script'
  | 'live'
  | 'livePaint';

/** The script (a string: it runs in the browser, which this project's bench types do not describe) for `addInitScript`. */
export function marksScript(markers: readonly string[]): string {
  return `(() => {
  const markers = ${JSON.stringify(markers)};
  const marks = (globalThis.__hsMarks = []);
  const mark = (name) => marks.push({ name, t: Date.now() });
  const path = location.pathname;
  if (window === window.top) {
    addEventListener('pointerdown', (e) => { if (e.target.closest && e.target.closest('.activitybar')) mark('click'); }, true);
    new MutationObserver((records) => {
      for (const r of records) for (const n of r.addedNodes) {
        if (n.nodeType === 1 && (n.matches('iframe.webview') || n.querySelector('iframe.webview'))) mark('iframe');
      }
    }).observe(document, { childList: true, subtree: true });
  } else if (path.endsWith('/pre/index.html')) {
    // VS Code's webview page: it creates a frame on fake.html for each new content, writes the view's HTML into it
    // (document.open, write, close) and makes it visible once it has loaded. The written document is watched from
    // here, by wrapping that frame's document.write (a script of the frame's own would not outlive the write).
    const has = (el) => { const s = el ? el.textContent : ''; return markers.some((m) => s.includes(m)); };
    const written = (f, doc) => {
      const w = f.contentWindow;
      // The frame after a change: requestAnimationFrame runs just before the frame that paints it is drawn.
      const paint = (name) => w.requestAnimationFrame(() => mark(name));
      let text = false, live = false, script = false;
      const check = () => {
        // The page's script element: its load event comes once it has run (it then says ready to the host).
        const main = !script && doc.querySelector('script[src*="main.js"]');
        if (main) { script = true; main.addEventListener('load', () => mark('script')); }
        if (!text && has(doc.body)) { text = true; mark('text'); paint('textPaint'); }
        if (!live && has(doc.querySelector('[data-testid="transcript"]'))) { live = true; mark('live'); paint('livePaint'); }
      };
      if (doc.readyState === 'loading') doc.addEventListener('DOMContentLoaded', () => mark('dcl'));
      else mark('dcl');
      w.addEventListener('load', () => mark('load'));
      check();
      new MutationObserver(check).observe(doc, { childList: true, subtree: true, characterData: true });
    };
    const watch = (f) => {
      f.contentWindow.addEventListener('DOMContentLoaded', () => {
        const proto = f.contentWindow.Document.prototype;
        const write = proto.write;
        proto.write = function (...args) {
          mark('html');
          const r = write.apply(this, args);
          written(f, this);
          return r;
        };
      });
    };
    let shown = false;
    new MutationObserver((records) => {
      for (const r of records) {
        for (const n of r.addedNodes) if (n.nodeName === 'IFRAME') { mark('contentFrame'); watch(n); }
        const f = r.target;
        if (!shown && r.type === 'attributes' && f.nodeName === 'IFRAME' && f.id === 'active-frame' && f.style.visibility === 'visible') {
          shown = true;
          mark('shown');
          requestAnimationFrame(() => mark('shownPaint'));
        }
      }
    }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['id', 'style'] });
  }
})();`;
}
