/** Older rows on demand: those the state holds but the DOM does not, else the host's previous page (`loadEarlier`), kept in place on screen. */

import type { HostToWebview, WebviewToHost } from '../shared/wire/webviewProtocol.ts';
import { prependRows } from '../shared/transcript/paging.ts';
import { firstRowId } from '../shared/transcript/rowStore.ts';
import { type TranscriptState } from '../shared/transcript/rows.ts';
import type { ScrollAnchor } from './scroll.ts';
import { PAGE_ROWS, type TranscriptView } from './transcriptView.ts';

/** How close to the top (px) a scroll counts as reaching it. */
const TOP_SLACK_PX = 4;
/** How close to the bottom (px) a scroll counts as reaching it, while newer rows wait below. */
const BOTTOM_SLACK_PX = 32;

/** The view's transcript state, which paging reads and extends at the top. */
export interface TranscriptHolder {
  state: TranscriptState;
}

/** Pages rows in, one `loadEarlier` at a time; reaching the top does what "show earlier" does. */
export class Paging {
  private readonly _holder: TranscriptHolder;
  private readonly _transcript: TranscriptView;
  private readonly _anchor: ScrollAnchor;
  private readonly _post: (msg: WebviewToHost) => void;
  /** Id of the row a `loadEarlier` asked for rows before, while its reply is awaited (0: none). */
  private _loadingBefore = 0;
  /** Who waits for the reply to the `loadEarlier` under way (find in chat paging a match in). */
  private _waiting: (() => void)[] = [];

  private readonly _fillGap: () => void;

  /** `fillGap`: brings in the rows between those read and the newest (scrolling down reached the end of the first). */
  constructor(
    holder: TranscriptHolder,
    transcript: TranscriptView,
    scroller: HTMLElement,
    anchor: ScrollAnchor,
    post: (msg: WebviewToHost) => void,
    fillGap: () => void = () => {},
  ) {
    this._fillGap = fillGap;
    this._holder = holder;
    this._transcript = transcript;
    this._anchor = anchor;
    this._post = post;
    scroller.addEventListener(
      'scroll',
      () => {
        if (scroller.scrollTop <= TOP_SLACK_PX && !transcript.earlier.hidden) this.showEarlier();
        else if (transcript.hasLater && scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight <= BOTTOM_SLACK_PX) this.showLater();
      },
      { passive: true },
    );
  }

  /** A new transcript (a snapshot, a new session): `remote` rows precede it on the host, and no reply is awaited. */
  reset(remote: number): void {
    this._loadingBefore = 0;
    this._wake();
    this._transcript.remote = remote;
  }

  /** Shows older rows: those the state holds but the DOM does not, else the host's previous page. */
  showEarlier(): void {
    if (this._transcript.first > 0) this._anchor.keepPosition(() => this._transcript.showEarlier(), this._transcript.el);
    else this._requestEarlier();
  }

  /** Shows newer rows the state holds but the DOM does not (the user scrolled down while reading back). */
  showLater(): void {
    if (this._transcript.laterRows > 0) this._anchor.keepPosition(() => this._transcript.showLater(), this._transcript.el);
    else if (this._transcript.gapBelow) this._fillGap();
  }

  /** Puts a `loadEarlier` reply above the rows on screen, keeping what the user sees in place. */
  onEarlier(msg: Extract<HostToWebview, { type: 'earlier' }>): void {
    const asked = this._loadingBefore;
    this._loadingBefore = 0;
    try {
      this._putEarlier(asked, msg);
    } finally {
      this._wake();
    }
  }

  /**
   * Shows the next older rows and resolves once they are on screen: true, or false when there are none (the
   * session's first row is shown) or they did not come. `count`: rows at a time (find in chat goes far up in
   * fewer, larger steps).
   */
  async pageEarlier(count = PAGE_ROWS): Promise<boolean> {
    if (this._transcript.first > 0) {
      this._anchor.keepPosition(() => this._transcript.showEarlier(count), this._transcript.el);
      return true;
    }
    if (this._transcript.remote <= 0) return false;
    const before = firstRowId(this._holder.state);
    const arrived = new Promise<void>((resolve) => this._waiting.push(resolve));
    this._requestEarlier(count);
    if (!this._loadingBefore) return false;
    await arrived;
    return firstRowId(this._holder.state) !== before;
  }

  private _wake(): void {
    const waiting = this._waiting;
    this._waiting = [];
    for (const resolve of waiting) resolve();
  }

  private _putEarlier(asked: number, msg: Extract<HostToWebview, { type: 'earlier' }>): void {
    const state = this._holder.state;
    // A reply to an older question, or for a transcript replaced since (a reset, a snapshot), is dropped.
    if (msg.before !== asked || firstRowId(state) !== msg.before || !Array.isArray(msg.messages)) return;
    const next = prependRows(state, msg.messages, msg.tools ?? {});
    if (next === state) return;
    this._holder.state = next;
    this._transcript.remote = typeof msg.earlier === 'number' ? msg.earlier : 0;
    this._anchor.keepPosition(() => {
      this._transcript.expectPrepend();
      this._transcript.render(next, false);
    }, this._transcript.el);
  }

  /** Asks the host for the page before the first row held, once at a time. */
  private _requestEarlier(count = PAGE_ROWS): void {
    const first = firstRowId(this._holder.state);
    if (this._loadingBefore || this._transcript.remote <= 0 || first === undefined) return;
    this._loadingBefore = first;
    this._post({ type: 'loadEarlier', before: first, count });
  }
}
