/**
 * How the chat's page loads its script: after the page's load event. VS Code keeps a new webview page hidden until
 * it has loaded, so a page that waited for its 700 kB script kept the saved picture off screen until the script was
 * fetched and run; loaded after, the picture shows first. What comes before the script (the host's messages, focus)
 * is kept for it in `globalThis.__piEarly`.
 */

/** What the page kept for its script: the host's messages in order, and whether the page got focus. */
export interface EarlyPage {
  readonly messages: unknown[];
  focused: boolean;
  /** Stops keeping them: the script listens itself from now on. */
  stop(): void;
}

/** The global the page keeps them in. */
export const EARLY_PAGE = '__piEarly';

/** JSON for inside a `<script>`: `<` escaped, so no value can close the tag. */
function scriptJson(value: string): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** The page's last element: an inline script (allowed by `nonce`) that keeps what comes early and, once the page has loaded, adds the script `src`. */
export function lateScriptHtml(src: string, nonce: string): string {
  return `<script nonce="${nonce}">(() => {
  const early = { messages: [], focused: false };
  const keep = (e) => early.messages.push(e.data);
  const focus = () => { early.focused = true; };
  addEventListener('message', keep);
  addEventListener('focus', focus);
  early.stop = () => { removeEventListener('message', keep); removeEventListener('focus', focus); };
  globalThis.${EARLY_PAGE} = early;
  addEventListener('load', () => {
    const s = document.createElement('script');
    s.nonce = ${scriptJson(nonce)};
    s.src = ${scriptJson(src)};
    document.body.append(s);
  }, { once: true });
})();</script>`;
}
