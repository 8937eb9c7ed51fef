/** Makes a hidden view's page again with what it should show first when it is shown (its latest saved picture). */

import type { IDisposable } from '../shared/disposable.ts';

/** What a chat is shown in, as far as its page goes: the sidebar's view or an editor tab's panel. */
export interface PageHost {
  readonly visible: boolean;
  readonly webview: { html: string };
  readonly onDidChangeVisibility: (listener: () => void) => IDisposable;
}

/**
 * VS Code drops a hidden view's page (the view does not keep its context) and makes it again, when the view is
 * shown, from the HTML last set, without asking the extension: so the HTML is set again while the view is hidden,
 * from `html()` (undefined: nothing new to draw, the page stays as it is). A visible page is left alone: setting its
 * HTML would load it again.
 */
export function pageWhenHidden(view: PageHost, html: () => string | undefined): IDisposable {
  return view.onDidChangeVisibility(() => {
    if (view.visible) return;
    const page = html();
    if (page !== undefined) view.webview.html = page;
  });
}
