/**
 * The chat webview's app shell: lays out the view's parts, keeps the transcript state the host's snapshots
 * and batches make, and renders once per animation frame (latest state wins). User intents go out through `post()`.
 */

import { Disposable, toDisposable } from '../shared/disposable.ts';
import type { SessionInfoView, WebviewToHost } from '../shared/wire/webviewProtocol.ts';
import { runCondition } from '../shared/run/runCondition.ts';
import { recentPart } from '../shared/transcript/paging.ts';
import { initialTranscript } from '../shared/transcript/reduce.ts';
import { rowCount } from '../shared/transcript/rowStore.ts';
import { type TranscriptState } from '../shared/transcript/rows.ts';
import { Announcer, markFocus, restoreFocus } from './a11y.ts';
import { Announcements } from './announcements.ts';
import { ClickRouter } from './clickRouter.ts';
import { Composer, QueueStrip } from './composer.ts';
import { ComposerBridge } from './composerBridge.ts';
import { DialogList } from './dialogCards.ts';
import { applyEvents, dispatchHostMessage, type HostMessageHandlers } from './dispatcher.ts';
import { h, setAttr, setHidden, setText } from './dom.ts';
import { Header } from './header.ts';
import { ImageViewer } from './images.ts';
import { markdownBody } from './markdownStream/markdownBody.ts';
import { Paging } from './paging.ts';
import { PlanStrip } from './planStrip.ts';
import { ScrollAnchor } from './scroll.ts';
import { ShellLive } from './shellLive.ts';
import { StatusLine } from './statusLine.ts';
import { TranscriptView } from './transcriptView.ts';
import { ViewModes } from './viewModes.ts';
import type { UiState } from './vscodeApi.ts';
import { WidgetStrip } from './widgetStrip.ts';
import { t } from './l10n.ts';

/** Where the app talks to the host and keeps its UI state. */
export interface AppHost {
  post(msg: WebviewToHost): void;
  saveUiState(state: UiState): void;
}

/** The whole view: owns its parts and the state they render; lives as long as the page. */
export class ChatApp extends Disposable {
  /** The reduced transcript, as the last snapshot, batch or page left it. */
  state: TranscriptState = initialTranscript;
  private _session: SessionInfoView = { ready: false };
  private _frame = 0;
  private readonly _host: AppHost;
  /** Blocks the user opened or closed. Keys embed tool-call ids, which the endpoint chooses: no prototype to find members on. */
  private readonly _toggled: Record<string, boolean>;
  private readonly _header: Header;
  private readonly _transcript: TranscriptView;
  private readonly _content: HTMLElement;
  private readonly _workingText: HTMLElement;
  private readonly _working: HTMLElement;
  private readonly _dialogs: DialogList;
  private readonly _widgets = new WidgetStrip();
  private readonly _plan: PlanStrip;
  private readonly _shell = new ShellLive();
  private readonly _anchor: ScrollAnchor;
  private readonly _statusLine: StatusLine;
  private readonly _announcements = new Announcements();
  private readonly _queue = new QueueStrip();
  private readonly _composer: Composer;
  private readonly _bridge: ComposerBridge;
  private readonly _modes: ViewModes;
  private readonly _paging: Paging;
  private readonly _handlers: HostMessageHandlers;

  /** Builds the view into `root` from the UI state `saved` kept. */
  constructor(root: HTMLElement, host: AppHost, saved: UiState) {
    super();
    this._host = host;
    const post = (msg: WebviewToHost): void => host.post(msg);
    this._toggled = Object.assign(Object.create(null) as Record<string, boolean>, saved.toggled);
    this._header = new Header(post, (mode) => this._modes.set(mode));
    this._transcript = new TranscriptView(
      {
        isOpen: (key) => this._toggled[key],
        cwd: () => this._session.cwd,
        setOpen: (key, open) => {
          this._toggled[key] = open;
          this._persist();
        },
      },
      markdownBody,
    );
    this._workingText = h('span', { class: 'working-text' }, t('Working…'));
    this._working = h('div', { class: 'working', hidden: true, 'aria-hidden': 'true' }, h('span', { class: 'spinner' }), this._workingText);
    this._dialogs = this._register(
      new DialogList({
        answer: (id, value, reason) =>
          post(value === undefined ? { type: 'answerDialog', id } : { type: 'answerDialog', id, value, ...(reason ? { reason } : {}) }),
      }),
    );
    this._content = h('div', { class: 'scroll-content' }, this._transcript.earlier, this._transcript.el, this._shell.el, this._dialogs.el, this._working);
    const scroller = h('main', { class: 'scroller', tabindex: '0', 'aria-label': t('Conversation') }, this._content);
    this._anchor = new ScrollAnchor(scroller, this._content, saved.follow);
    const statusAnnouncer = new Announcer('announce-status');
    this._statusLine = this._register(new StatusLine(statusAnnouncer, () => this._composer.focus()));
    const imageViewer = new ImageViewer();
    this._composer = new Composer(
      {
        send: (text, mode, images) => {
          post({ type: 'send', text, mode, ...(images?.length ? { images } : {}) });
          this._anchor.toBottom();
        },
        cancel: () => post({ type: 'cancel' }),
        pickFile: () => post({ type: 'pickFile' }),
        dropUris: (uris) => post({ type: 'dropUris', uris }),
        changed: () => {
          this._persist();
          this._bridge.draftChanged();
        },
        slash: (name, args) => post({ type: 'slash', name, args }),
        bash: (command, excluded) => {
          post({ type: 'bash', command, excluded });
          this._anchor.toBottom();
        },
        requestCommands: () => post({ type: 'listCommands' }),
        imagesChanged: (images) => post({ type: 'composerImages', images }),
      },
      saved.draft,
      saved.history,
    );
    this._plan = new PlanStrip(post);
    this._composer.addToBar(this._plan.toggle);
    const chatArea = h('div', { class: 'scroll-area' }, scroller, this._anchor.jump);
    this._modes = new ViewModes(chatArea, this._composer, this._header, post);
    this._bridge = this._register(
      new ComposerBridge(this._composer, post, () => {
        if (this._modes.mode !== 'chat') this._modes.set('chat');
      }),
    );
    root.replaceChildren(
      this._header.el,
      chatArea,
      this._modes.sessionsView.el,
      this._modes.treeView.el,
      this._statusLine.el,
      this._widgets.el,
      this._plan.el,
      this._queue.el,
      this._composer.el,
      this._announcements.el,
      statusAnnouncer.el,
      this._plan.announcer.el,
      imageViewer.el,
    );
    this._anchor.onChange = () => {
      this._persist();
      // Back at the bottom (or "jump to latest") with newer rows waiting below: draw the newest again.
      if (this._anchor.following && this._transcript.hasLater) this._schedule();
    };
    this._anchor.canFollow = () => !this._transcript.hasLater;
    this._paging = new Paging(this, this._transcript, scroller, this._anchor, post);
    new ClickRouter(
      {
        holder: this,
        transcript: this._transcript,
        toggled: this._toggled,
        persist: () => this._persist(),
        paging: this._paging,
        composer: this._bridge,
        imageViewer,
        announcer: statusAnnouncer,
        post,
      },
      this._content,
      this._statusLine.el,
    );
    this._handlers = {
      snapshot: (msg) => {
        this._paging.reset(typeof msg.earlier === 'number' ? msg.earlier : 0);
        this.state = msg.state;
        this._session = msg.session ?? this._session;
        this._announcements.skip(this.state);
        this._schedule();
      },
      batch: (msg) => {
        // A new session, or another point of this one: nothing earlier to page in, and the tree is out of date.
        const reset = Array.isArray(msg.events) && msg.events.some((ev) => ev?.type === 'reset');
        if (reset) this._paging.reset(0);
        if (Array.isArray(msg.events)) this.state = applyEvents(this.state, msg.events);
        if (reset) this._modes.transcriptReplaced();
        this._schedule();
      },
      earlier: (msg) => {
        this._paging.onEarlier(msg);
        this._schedule();
      },
      session: (msg) => {
        this._session = msg.session;
        this._schedule();
      },
      ...this._bridge.handlers,
      ...this._modes.handlers,
    };
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape' && !e.defaultPrevented && runCondition(this.state.run).phase !== 'idle') {
        e.preventDefault();
        post({ type: 'cancel' });
      }
    };
    document.addEventListener('keydown', onKey);
    this._register(toDisposable(() => document.removeEventListener('keydown', onKey)));
    if (saved.follow === false) requestAnimationFrame(() => this._anchor.restore(false, saved.fromBottom));
  }

  /** A message from the host (validated here: the host is trusted, but a newer one may send what this version does not know). */
  receive(raw: unknown): void {
    dispatchHostMessage(raw, this._handlers);
  }

  private _persist(): void {
    const a = this._anchor;
    this._host.saveUiState({
      draft: this._composer.draft,
      history: this._composer.history,
      toggled: this._toggled,
      follow: a.following,
      fromBottom: a.fromBottom,
    });
  }

  private _schedule(): void {
    if (!this._frame && !this.isDisposed) this._frame = requestAnimationFrame(() => this._render());
  }

  private _render(): void {
    this._frame = 0;
    const state = this.state;
    const session = this._session;
    const phase = runCondition(state.run).phase;
    setAttr(document.body, 'data-run-state', phase);
    // A streaming block re-renders its tail: a focused link or Copy button there is replaced by its twin.
    const focus = markFocus(this._content);
    this._transcript.render(this._window(state), this._anchor.following);
    restoreFocus(this._content, focus);
    this._composer.setRunning(phase !== 'idle');
    this._queue.update(state.queue);
    setHidden(
      this._working,
      !(state.run.active && state.openIndex < 0 && phase === 'running') || state.ui?.workingHidden === true || state.ui?.shell !== undefined,
    );
    setText(this._workingText, state.ui?.workingMessage ?? t('Working…'));
    this._dialogs.render(state.ui);
    this._widgets.render(state.ui);
    this._plan.render(state.plan, phase !== 'idle');
    this._shell.render(state.ui);
    this._announcements.dialogs(state.ui);
    this._transcript.collapseThinking = session.collapseThinking ?? true;
    this._header.render(state, session);
    this._statusLine.render(state.run);
    this._announcements.finished(this.state);
  }

  /**
   * `state` without the rows far above those rendered, which go back to the host (`loadEarlier` pages them
   * in again, as for a resumed session): the view's memory stays flat however long the session runs.
   */
  private _window(state: TranscriptState): TranscriptState {
    const spare = this._transcript.spareRows;
    if (!spare) return state;
    const { state: kept, earlier } = recentPart(state, rowCount(state) - spare);
    if (!earlier) return state;
    this.state = kept;
    this._transcript.dropped(kept, earlier);
    return kept;
  }
}
