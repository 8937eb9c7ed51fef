/** What the view's body shows: the chat, the Sessions list or the session's tree of branches; the header stays. */

import type { ViewMode, WebviewToHost } from '../shared/wire/webviewProtocol.ts';
import type { Composer } from './composer.ts';
import type { HostMessageHandlers } from './dispatcher.ts';
import { setHidden } from './dom.ts';
import type { Header } from './header.ts';
import { SessionsView } from './sessionsView.ts';
import { SessionTreeView } from './sessionTree.ts';

/** The host messages that switch or fill a mode. */
export type ModeMessages = Pick<HostMessageHandlers, 'showMode' | 'sessions' | 'sessionsOpenIn' | 'sessionTree'>;

/** Owns the Sessions list and the tree, and which of them (or the chat) the view shows. */
export class ViewModes {
  readonly sessionsView: SessionsView;
  readonly treeView: SessionTreeView;
  readonly handlers: ModeMessages;
  private readonly _chatArea: HTMLElement;
  private readonly _composer: Composer;
  private readonly _header: Header;
  private readonly _post: (msg: WebviewToHost) => void;
  private _mode: ViewMode = 'chat';

  /** `chatArea` and the composer show in chat mode only. */
  constructor(chatArea: HTMLElement, composer: Composer, header: Header, post: (msg: WebviewToHost) => void) {
    this._chatArea = chatArea;
    this._composer = composer;
    this._header = header;
    this._post = post;
    this.sessionsView = new SessionsView(post, () => this.set('chat'));
    this.treeView = new SessionTreeView(post, () => this.set('chat'));
    this.handlers = {
      showMode: (msg) => {
        if (msg.mode === 'chat' || msg.mode === 'sessions' || msg.mode === 'tree') this.set(msg.mode);
      },
      sessions: (msg) => {
        if (msg.page && Array.isArray(msg.page.sessions)) this.sessionsView.show(msg.page);
      },
      sessionsOpenIn: (msg) => {
        if (typeof msg.openIn === 'object' && msg.openIn !== null) this.sessionsView.markOpen(msg.openIn);
      },
      sessionTree: (msg) => {
        if (!Array.isArray(msg.nodes)) return;
        this.treeView.show(msg.nodes);
        if (this._mode === 'tree' && !this.treeView.el.contains(document.activeElement)) this.treeView.focus();
      },
    };
  }

  get mode(): ViewMode {
    return this._mode;
  }

  /** Shows the chat, the Sessions list or the tree in the view's body. */
  set(next: ViewMode): void {
    this._mode = next;
    setHidden(this._chatArea, next !== 'chat');
    setHidden(this.sessionsView.el, next !== 'sessions');
    setHidden(this.treeView.el, next !== 'tree');
    setHidden(this._composer.el, next !== 'chat');
    this._header.showMode(next);
    if (next === 'sessions') {
      this.sessionsView.reload();
      this.sessionsView.focus();
    } else if (next === 'tree') this._post({ type: 'showTree' });
    else this._composer.focus();
  }

  /** Another session, or another point of this one: the tree on screen is out of date. */
  transcriptReplaced(): void {
    if (this._mode === 'tree') this._post({ type: 'showTree' });
  }
}
