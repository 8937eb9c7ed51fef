/** The chat webview's entry: starts the app shell on the page, feeds it the host's messages, and tells the host it is ready. */

// First: the display language's strings must be in place before any module below builds one.
import './l10nBoot.ts';
import { ChatApp } from './app.ts';
import { EARLY_PAGE, type EarlyPage } from '../shared/lateScript.ts';
import { h } from './dom.ts';
import { loadUiState, post, saveUiState } from './vscodeApi.ts';

const root = document.getElementById('app') ?? document.body.appendChild(h('div', { id: 'app' }));
// The app lives as long as the page: the host drops the whole webview to end it.
const app = new ChatApp(root, { post, saveUiState }, loadUiState());
// The page loads this script after itself (shared/lateScript.ts) and kept what came before: taken over here.
const early = (globalThis as unknown as Record<string, EarlyPage | undefined>)[EARLY_PAGE];
early?.stop();
window.addEventListener('message', (e: MessageEvent) => app.receive(e.data));
post({ type: 'ready' });
for (const data of early?.messages ?? []) app.receive(data);
// With several chats open, the palette's commands act on the one the user was last in. A page made again (the view
// was hidden) gives the focus back to the composer if it had it.
const focused = (): void => {
  post({ type: 'focused' });
  app.pageFocused();
};
window.addEventListener('focus', focused);
if (early?.focused) focused();
