/**
 * What the runner sees of the chat's pages as VS Code handles them, from the webview frames themselves (an init
 * script every frame runs first): each page VS Code writes into a webview's content frame (the HTML as the extension
 * set it, before any script of the page ran) with the saved picture it holds, and each picture a page saves (sends
 * its host). The runner writes them to `pages.jsonl`; its `waitForPicture` and `showTab` actions wait on them.
 */

/** One record of `pages.jsonl`. */
export type PageRecord =
  /** VS Code wrote a chat's page into a new content frame: `picture` is the text of the saved picture in its HTML (`#pi-saved`), null without one. */
  | { readonly kind: 'page'; readonly chat: string; readonly picture: string | null }
  /** A chat's page sent its host a saved picture of its rows (`savedPicture`): `text` is the picture's text. */
  | { readonly kind: 'picture'; readonly chat: string; readonly text: string };

/** The page function the init script reports through (`page.exposeFunction`, so every frame has it). */
export const PAGE_BINDING = '__piChatPage';

/**
 * In every frame, first; acts in VS Code's webview page (`…/pre/index.html`). That page writes each new content into
 * a frame it loads on `fake.html` (document.open, write, close, once the frame's DOMContentLoaded has come): the
 * written HTML passes that frame's `Document.prototype.write`, which this wraps for each new frame (a script of the
 * frame's own would not run: the frame keeps the window of its first, blank document). Messages from a page go
 * through the webview page's `__vscode_post_message__`, which this wraps as VS Code sets it.
 */
function installPageWatcher(binding: string): void {
  // The tests' tsconfig has no DOM: the browser's globals, typed as far as used here.
  type Body = { getAttribute(n: string): string | null } | null;
  type Doc = { body: Body; getElementById(id: string): { textContent: string | null } | null };
  type FrameWindow = {
    addEventListener(type: string, f: () => void): void;
    Document: { prototype: { write(...text: string[]): void } };
    DOMParser: new () => { parseFromString(html: string, type: string): Doc };
  };
  type Frame = { nodeName: string; contentWindow: FrameWindow | null; contentDocument: { body: Body } | null };
  const g = globalThis as unknown as Record<string, unknown> & {
    location: { pathname: string };
    document: { getElementById(id: string): Frame | null };
    MutationObserver: new (f: (records: { addedNodes: ArrayLike<Frame> }[]) => void) => { observe(target: unknown, options: object): void };
  };
  if (!g.location.pathname.endsWith('/pre/index.html')) return;
  const report = (record: object): void => {
    const f = g[binding];
    if (typeof f === 'function') void (f as (json: string) => Promise<void>)(JSON.stringify(record));
  };
  // Each new content frame: its written page, parsed (no script of it runs), reported before it is written.
  const watch = (frame: Frame): void => {
    frame.contentWindow?.addEventListener('DOMContentLoaded', () => {
      const w = frame.contentWindow;
      if (!w) return;
      const proto = w.Document.prototype;
      const write = proto.write;
      proto.write = function (this: unknown, ...text: string[]) {
        try {
          const doc = new w.DOMParser().parseFromString(text.join(''), 'text/html');
          const chat = doc.body?.getAttribute('data-chat-id');
          if (chat) report({ kind: 'page', chat, picture: doc.getElementById('pi-saved')?.textContent ?? null });
        } catch {
          // Only a watcher: the page is written whatever happens here.
        }
        write.apply(this, text);
      };
    });
  };
  new g.MutationObserver((records) => {
    for (const r of records) for (const n of Array.from(r.addedNodes)) if (n.nodeName === 'IFRAME') watch(n);
  }).observe(g.document, { childList: true, subtree: true });

  const name = '__vscode_post_message__';
  let wrapped: unknown;
  const chatOf = (): string | null | undefined =>
    (g.document.getElementById('active-frame') ?? g.document.getElementById('pending-frame'))?.contentDocument?.body?.getAttribute('data-chat-id');
  const textOf = (node: unknown): string => (typeof node === 'string' ? node : Array.isArray(node) ? node.slice(2).map(textOf).join('') : '');
  Object.defineProperty(g, name, {
    configurable: true,
    get: () => wrapped,
    set: (post: unknown) => {
      if (typeof post !== 'function') {
        wrapped = post;
        return;
      }
      wrapped = (command: string, data: unknown, ...rest: unknown[]) => {
        try {
          const message = (data as { message?: { type?: unknown; rows?: unknown } } | undefined)?.message;
          const chat = chatOf();
          if (command === 'onmessage' && message?.type === 'savedPicture' && Array.isArray(message.rows) && chat)
            report({ kind: 'picture', chat, text: message.rows.map(textOf).join('\n') });
        } catch {
          // Only a watcher: the message goes on whatever happens here.
        }
        return (post as (...args: unknown[]) => unknown)(command, data, ...rest);
      };
    },
  });
}

/** The init script for `addInitScript`. */
export function pageWatcherScript(): string {
  return `(${installPageWatcher.toString()})(${JSON.stringify(PAGE_BINDING)})`;
}
