/**
 * The chat webview's app shell: lays out the view's parts, keeps the transcript state the host's snapshots
 * and batches make, and renders once per animation frame (latest state wins). User intents go out through `post()`.
 * One file because it is where the view's parts are built and wired to each other (each part is a module of its
 * own), and the read-back window (`_reading`, the gap) shares its state with the render.
 */

import { Disposable } from '../shared/disposable.ts';
import type { SessionInfoView, WebviewToHost } from '../shared/wire/webviewProtocol.ts';
import { runCondition } from '../shared/run/runCondition.ts';
import { appendRows, headPart, MAX_PAGE_ROWS, prependRows, recentPart } from '../shared/transcript/paging.ts';
import { withRowUpdates } from '../shared/transcript/applyChanges.ts';
import { firstRowId, initialTranscript, rowAt, rowCount, rows, toolCard, withTool } from '../shared/transcript/rowStore.ts';
import { type MessageView, type TranscriptState } from '../shared/transcript/rows.ts';
import { Announcer, markFocus, restoreFocus } from './a11y.ts';
import { Announcements } from './announcements.ts';
import { ClickRouter } from './clickRouter.ts';
import { Composer } from './composer.ts';
import { QueueStrip } from './queueStrip.ts';
import { ComposerBridge } from './composerBridge.ts';
import { DialogList } from './dialogCards.ts';
import { FindBox, revealRow } from './findBox.ts';
import { AroundRequests, indexOfRow, type AroundReply } from './aroundPage.ts';
import { applyEvents, dispatchHostMessage, type HostMessageHandlers } from './dispatcher.ts';
import { setPending } from './reviewPending.ts';
import { h, setAttr, setHidden, setText } from './dom.ts';
import { Header } from './header.ts';
import { markDroppedCards } from './contextPanel.ts';
import { ImageViewer } from './images.ts';
import { markdownBody } from './markdownStream/markdownBody.ts';
import { Paging, type TranscriptHolder } from './paging.ts';
import { PlanStrip } from './planStrip.ts';
import { renameWorktreeBranch, worktreeStrip } from './worktreeStrip.ts';
import { captureRows, SavedPicture } from './savedRender.ts';
import { ComposerFocus } from './composerFocus.ts';
import { PromptNavigator } from './promptNavigator.ts';
import { ScrollAnchor } from './scroll.ts';
import { ShellLive } from './shellLive.ts';
import { StatusLine } from './statusLine.ts';
import { viewKeys } from './viewKeys.ts';
import { PAGE_ROWS, TranscriptView } from './transcriptView.ts';
import { ViewModes } from './viewModes.ts';
import type { UiState } from './vscodeApi.ts';
import { WidgetStrip } from './widgetStrip.ts';
import { Welcome } from './welcome.ts';
import { ModelPicker } from './modelPicker.ts';
import { t } from './l10n.ts';

/** Rows below those on screen, while the user reads back, past which the rows between go back to the host. */
const MAX_BELOW_ROWS = 4 * PAGE_ROWS;
/** The newest rows held while the user reads back (events land there); older ones join the rows between. */
const KEEP_LIVE_ROWS = 2 * PAGE_ROWS;

/** Where the app talks to the host and keeps its UI state. */
export interface AppHost {
  post(msg: WebviewToHost): void;
  saveUiState(state: UiState): void;
}

/** The whole view: owns its parts and the state they render; lives as long as the page. */
export class ChatApp extends Disposable {
  /** The reduced transcript, as the last snapshot, batch or page left it (while the user reads back, its newest rows). */
  state: TranscriptState = initialTranscript;
  /**
   * While the user reads back far above the newest rows: the rows around those on screen, held apart from
   * `state`; the rows between (`_gap` of them) went back to the host and come again,
   * a page at a time, as the user scrolls down to them. So what the view holds does not grow while Pi works.
   */
  private _reading: TranscriptState | undefined;
  private _gap = 0;
  /** The `before` of the `loadEarlier` that fills the gap, while its reply is awaited (0: none). */
  private _gapAsked = 0;
  private _gapWide = false;
  /** Show the rows a gap page brought once it is rendered (the user is at the bottom of what they read). */
  private _showLaterAfterRender = false;
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
  private readonly _queue: QueueStrip;
  private readonly _composer: Composer;
  private readonly _bridge: ComposerBridge;
  private readonly _modes: ViewModes;
  private readonly _paging: Paging;
  private readonly _handlers: HostMessageHandlers;
  private readonly _picture: SavedPicture;
  private readonly _find: FindBox;
  private readonly _around: AroundRequests;
  /** The picture last sent to the host (as JSON): an unchanged one is not sent again, nor a first empty one. */
  private _pictureSent = '[]';
  private readonly _prompts: PromptNavigator;
  private readonly _welcome: Welcome;
  private readonly _picker: ModelPicker;
  private readonly _composerFocus: ComposerFocus;

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
        home: () => this._composer.focus(),
      }),
    );
    // The last picture of the rows on screen, shown until the host's snapshot is drawn (a view shown again).
    this._picture = new SavedPicture(
      saved.render,
      () => captureRows(scroller, this._transcript.el),
      (rows) => {
        this._persist();
        // The host draws it into the page of this view created again, so it paints before this script loads.
        const json = JSON.stringify(rows);
        if (json === this._pictureSent) return;
        this._pictureSent = json;
        post({ type: 'savedPicture', rows });
      },
    );
    const picture = this._picture.el ? [this._picture.el] : [];
    this._welcome = new Welcome(post);
    this._picker = new ModelPicker(post);
    this._content = h(
      'div',
      { class: 'scroll-content' },
      this._welcome.el,
      this._transcript.earlier,
      ...picture,
      this._transcript.el,
      this._shell.el,
      this._dialogs.el,
      this._working,
    );
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
    this._composerFocus = new ComposerFocus(this._composer.textarea, saved.composerFocus === true, () => this._persist());
    this._queue = new QueueStrip({
      edit: (queue, index, text) =>
        this._composer.editQueued(
          text,
          queue === 'steering' ? t('Editing a queued steer: Enter saves it') : t('Editing a queued follow-up: Enter saves it'),
          (newText) => post({ type: 'editQueue', queue, index, text, op: 'edit', newText }),
        ),
      act: (edit) => post({ type: 'editQueue', ...edit }),
    });
    this._plan = new PlanStrip(post);
    this._composer.addToBar(this._plan.toggle);
    this._around = new AroundRequests(post);
    this._find = new FindBox({
      conversation: this._transcript.el,
      reveal: (id, wanted) => this._reveal(id, wanted),
      post,
    });
    this._prompts = new PromptNavigator({
      conversation: this._transcript.el,
      scroller,
      state: () => this._reading ?? this.state,
      pageEarlier: () => {
        this._anchor.release();
        return this._paging.pageEarlier();
      },
    });
    const chatArea = h('div', { class: 'scroll-area' }, this._find.el, scroller, this._anchor.jump, this._prompts.button, this._prompts.el);
    this._modes = new ViewModes(chatArea, this._composer, this._header, post);
    this._bridge = this._register(
      new ComposerBridge(this._composer, post, () => {
        if (this._modes.mode !== 'chat') this._modes.set('chat');
      }),
    );
    // A worktree chat's page says its branch in the body (`data-worktree`, set by the host).
    const worktree = worktreeStrip(root.ownerDocument.body.dataset.worktree, post);
    root.replaceChildren(
      this._header.el,
      this._header.context.el,
      ...(worktree ? [worktree] : []),
      this._picker.el,
      // Outside the scroller: the welcome stays in sight above the conversation until a model is usable.
      this._welcome.el,
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
    // Paging and row actions see the rows on screen: the part read while the user reads back, else the whole.
    const read = (): TranscriptState => this._reading ?? this.state;
    const write = (s: TranscriptState): void => {
      if (this._reading) this._reading = s;
      else this.state = s;
    };
    const shown: TranscriptHolder = {
      get state(): TranscriptState {
        return read();
      },
      set state(s: TranscriptState) {
        write(s);
      },
    };
    this._paging = new Paging(shown, this._transcript, scroller, this._anchor, post, () => this._fillGap());
    new ClickRouter(
      {
        holder: shown,
        transcript: this._transcript,
        toggled: this._toggled,
        persist: () => this._persist(),
        paging: this._paging,
        composer: this._bridge,
        imageViewer,
        announcer: statusAnnouncer,
        post,
        provider: () => this._session.modelId?.split('/')[0],
      },
      this._content,
      this._statusLine.el,
    );
    this._handlers = {
      snapshot: (msg) => {
        this._around.drop();
        this._leaveReading();
        this._paging.reset(typeof msg.earlier === 'number' ? msg.earlier : 0);
        this.state = msg.state;
        this._session = msg.session ?? this._session;
        this._announcements.skip(this.state);
        this._picture.goLive();
        this._schedule();
      },
      batch: (msg) => {
        // A new session, or another point of this one: nothing earlier to page in, and the tree is out of date.
        const reset = Array.isArray(msg.events) && msg.events.some((ev) => ev?.type === 'reset');
        if (reset) {
          this._around.drop();
          this._leaveReading();
          this._paging.reset(0);
        }
        if (Array.isArray(msg.events)) {
          this.state = applyEvents(this.state, msg.events);
          // An update of a row read back (Undo on its Changes row) names it: that part shows it too.
          if (this._reading) this._reading = withRowUpdates(this._reading, msg.events);
        }
        if (reset) this._modes.transcriptReplaced();
        this._schedule();
      },
      earlier: (msg) => {
        if (!this._onGapPage(msg)) this._paging.onEarlier(msg);
        this._schedule();
      },
      session: (msg) => {
        this._session = msg.session;
        this._schedule();
      },
      openFind: (msg) => this._find.open(typeof msg.text === 'string' ? msg.text : undefined),
      found: (msg) => this._find.onFound(msg),
      around: (msg) => this._around.onAround(msg),
      reviewPending: (msg) => setPending(msg.pending, root),
      worktreeBranch: (msg) => renameWorktreeBranch(root, msg.branch),
      ...this._bridge.handlers,
      ...this._modes.handlers,
      models: (msg) => {
        if (msg.catalog && Array.isArray(msg.catalog.models)) this._picker.show(msg.catalog);
      },
    };
    this._register(
      viewKeys(document, {
        find: () => this._find.open(),
        step: (direction) => {
          if (direction === 1) this._anchor.release();
          void this._prompts.step(direction);
        },
        cancel: () => {
          if (runCondition(this.state.run).phase === 'idle') return false;
          post({ type: 'cancel' });
          return true;
        },
      }),
    );
    if (saved.follow === false) requestAnimationFrame(() => this._anchor.restore(false, saved.fromBottom));
    (globalThis as { __piPanelHeld?: () => { rows: number; cards: number } }).__piPanelHeld = () => this.held();
  }

  /** What the view holds: its rows and tool cards (tests and benches read it as `__piPanelHeld()`, to see memory stay flat). */
  held(): { rows: number; cards: number } {
    const parts = this._reading ? [this._reading, this.state] : [this.state];
    return { rows: parts.reduce((n, p) => n + rowCount(p), 0), cards: parts.reduce((n, p) => n + Object.keys(p.tools).length, 0) };
  }

  /** The page got the focus (VS Code focuses a view's page when it is shown or clicked). */
  pageFocused(): void {
    this._composerFocus.pageFocused();
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
      render: this._picture.rows,
      composerFocus: this._composerFocus.had,
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
    this._holdApart();
    restoreFocus(this._content, focus);
    if (this._showLaterAfterRender) {
      this._showLaterAfterRender = false;
      this._paging.showLater();
    }
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
    markDroppedCards(this._content, session.context?.dropped);
    this._welcome.render(session);
    this._statusLine.render(state.run);
    this._announcements.finished(this.state);
    this._picture.rendered();
  }

  /**
   * What to render: `state` (or, while the user reads back, the part read) without the rows far above those
   * rendered, which go back to the host (`loadEarlier` pages them in again, as for a resumed session): the
   * view's memory stays flat however long the session runs.
   */
  private _window(state: TranscriptState): TranscriptState {
    if (this._reading) {
      if (!this._anchor.following) {
        this._trimLive();
        const reading = this._withoutSpare(this._followCards(this._reading));
        this._reading = reading;
        return reading;
      }
      // "Jump to latest": the newest rows, from the end; the part read and the rows between are on the host.
      this._transcript.remote += rowCount(this._reading) + this._gap;
      this._leaveReading();
    }
    const kept = this._withoutSpare(state);
    this.state = kept;
    return kept;
  }

  /** `state` without the rows far above those rendered (`remote` counts them). */
  private _withoutSpare(state: TranscriptState): TranscriptState {
    const spare = this._transcript.spareRows;
    if (!spare) return state;
    const { state: kept, earlier } = recentPart(state, rowCount(state) - spare);
    if (!earlier) return state;
    this._transcript.dropped(kept, earlier);
    return kept;
  }

  /**
   * Reading back while many rows arrive below: the rows on screen and a page below them are held apart, the
   * newest rows stay in `state`, and those between go back to the host.
   */
  private _holdApart(): void {
    if (this._reading || this._anchor.following || this._transcript.laterRows <= MAX_BELOW_ROWS) return;
    const state = this.state;
    const n = this._transcript.last + PAGE_ROWS;
    const reading = headPart(state, n);
    const live = recentPart(state, KEEP_LIVE_ROWS);
    if (!reading || live.earlier <= n) return;
    this._gap = live.earlier - n;
    this._reading = reading;
    this.state = live.state;
    this._transcript.cut(reading);
    this._transcript.gapBelow = true;
  }

  /**
   * A tool card still running in the part read takes the copy the newest rows hold: events land there (every
   * running card stays with the newest rows), so without this it would show "running" until the parts join.
   */
  private _followCards(reading: TranscriptState): TranscriptState {
    let s = reading;
    for (const [id, card] of rows(reading).tools.live) {
      const now = toolCard(this.state, id);
      if (now && now !== card) s = withTool(s, now);
    }
    return s;
  }

  /** While the user reads back, the newest rows stay few: older ones join the rows between. */
  private _trimLive(): void {
    if (rowCount(this.state) <= 2 * KEEP_LIVE_ROWS) return;
    const live = recentPart(this.state, KEEP_LIVE_ROWS);
    if (!live.earlier) return;
    this._gap += live.earlier;
    this.state = live.state;
  }

  /**
   * Asks the host for the rows just after the part read: those with ids below one a page past its last. `wide`:
   * as many as a page may hold, when a narrower one did not reach back to the part read (many rows of the host's own).
   */
  private _fillGap(wide = false): void {
    const reading = this._reading;
    const last = reading && rowAt(reading, rowCount(reading) - 1)?.id;
    if (last === undefined || this._gapAsked) return;
    // Ids go up by one per row (the host's own rows sit between, ids in between): the rows after `last` have ids below this.
    this._gapAsked = Math.floor(last) + PAGE_ROWS + 1;
    this._gapWide = wide;
    this._host.post({ type: 'loadEarlier', before: this._gapAsked, count: wide ? MAX_PAGE_ROWS : 2 * PAGE_ROWS });
  }

  /** A reply to `_fillGap`: its rows after the part read join it; once they reach the newest rows, all are one again. */
  private _onGapPage(msg: {
    readonly before: number;
    readonly messages: readonly MessageView[];
    readonly tools?: TranscriptState['tools'];
    readonly earlier?: number;
  }): boolean {
    if (!this._gapAsked || msg.before !== this._gapAsked) return false;
    this._gapAsked = 0;
    const reading = this._reading;
    const liveFirst = firstRowId(this.state);
    if (!reading || liveFirst === undefined || !Array.isArray(msg.messages)) return true;
    const last = rowAt(reading, rowCount(reading) - 1)!.id;
    // The page must reach back to the part read, or rows between might be missed.
    if (!msg.messages.some((m) => m.id <= last) && (msg.earlier ?? 0) > 0 && !this._gapWide) {
      this._fillGap(true);
      return true;
    }
    const between = msg.messages.filter((m) => m.id > last && m.id < liveFirst);
    const reached = msg.messages.some((m) => m.id >= liveFirst) || between.length >= this._gap;
    const grown = between.length ? appendRows(reading, between, msg.tools ?? {}) : reading;
    if (grown !== reading) {
      this._gap -= between.length;
    }
    if (reached || this._gap <= 0) {
      // The part read and the newest rows are one transcript again.
      const whole = prependRows(this.state, grown.messages, grown.tools);
      if (whole !== this.state) {
        this._leaveReading();
        this.state = whole;
        this._showLaterAfterRender = true;
        return true;
      }
    }
    if (!between.length) {
      // Nothing where the rows between should be (not expected: ids go up by one per row): show the newest.
      this._transcript.remote += rowCount(reading) + this._gap;
      this._leaveReading();
      return true;
    }
    this._reading = grown;
    this._showLaterAfterRender = true;
    return true;
  }

  /**
   * Row `id` on screen (find in chat moves to it), or undefined: a row held is drawn, one just above those held
   * is paged in, and one far from them comes as the page around it, read apart from the newest rows (as when
   * reading back), so any row costs one page. `wanted`: false once a newer move started.
   */
  private async _reveal(id: number, wanted: () => boolean): Promise<Element | undefined> {
    // Rows brought in for a match stay: a view that follows the newest rows would draw only those.
    this._anchor.release();
    const onScreen = (): Element | undefined => this._transcript.el.querySelector(`[data-msg-id="${id}"]`) ?? undefined;
    if (onScreen()) return onScreen();
    if (this._reading && indexOfRow(this.state, id) >= 0) {
      // Among the newest rows, while a part far above is read: back to one transcript.
      this._transcript.remote += rowCount(this._reading) + this._gap;
      this._leaveReading();
      this._transcript.render(this.state, false);
    }
    const shown = this._reading ?? this.state;
    const first = firstRowId(shown);
    if (indexOfRow(shown, id) < 0 && first !== undefined && (id > first || first - id > PAGE_ROWS)) {
      const reply = await this._around.ask(id, PAGE_ROWS);
      if (!reply || !wanted()) return undefined;
      this._readAround(reply);
    }
    const at = indexOfRow(this._reading ?? this.state, id);
    if (at >= 0) {
      if (at < this._transcript.first) this._anchor.keepPosition(() => this._transcript.showEarlier(this._transcript.first - at), this._transcript.el);
      if (at >= this._transcript.last) this._transcript.showLater(at - this._transcript.last + 1);
      return onScreen();
    }
    // Within a page above the rows held: that page.
    return revealRow(this._transcript.el, id, () => (wanted() ? this._paging.pageEarlier() : Promise.resolve(false)));
  }

  /** Shows the page around a row apart from the newest rows: the rows between go back to the host, and come again as the user scrolls down. */
  private _readAround(reply: AroundReply): void {
    const liveFirst = firstRowId(this.state) ?? Infinity;
    const messages = reply.messages.filter((m) => m.id < liveFirst);
    const page = messages.length ? appendRows(headPart(this.state, 0)!, messages, reply.tools ?? {}) : undefined;
    if (!page || rowCount(page) !== messages.length) return;
    // A part read before, and the rows between, go back to the host: the page's own count of rows before it holds them.
    this._leaveReading();
    this._reading = page;
    // The host's rows after the page: those the newest rows hold are not between.
    this._gap = Math.max(0, (typeof reply.later === 'number' ? reply.later : 0) + reply.messages.length - messages.length - rowCount(this.state));
    this._transcript.remote = typeof reply.earlier === 'number' ? reply.earlier : 0;
    this._transcript.gapBelow = true;
    this._transcript.render(page, false);
  }

  /** Back to one transcript (a snapshot, a reset, "jump to latest", the gap filled). */
  private _leaveReading(): void {
    this._reading = undefined;
    this._gap = 0;
    this._gapAsked = 0;
    this._transcript.gapBelow = false;
  }
}
