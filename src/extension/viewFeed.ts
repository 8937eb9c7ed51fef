/** What the chat view is sent: a snapshot of the newest rows, then a frame's events at a time; no `vscode`, so the bench runs it. */

import { Batcher, type Scheduler } from '../shared/batcher.ts';
import { Disposable, type IDisposable } from '../shared/disposable.ts';
import type { HostToWebview, SessionInfoView } from '../shared/wire/webviewProtocol.ts';
import type { WireEvent } from '../shared/wire/events.ts';
import { aroundBefore, recentPart, SNAPSHOT_ROWS, type EarlierPage } from '../shared/transcript/paging.ts';
import { rowCount } from '../shared/transcript/rowStore.ts';
import type { TranscriptState } from '../shared/transcript/rows.ts';

/** More events than this in one frame are a burst, not live streaming (deltas are coalesced per frame). */
const LARGE_BATCH_EVENTS = 500;

/**
 * The newest rows of the host's transcript and how many precede them (`pending` of those still in the
 * worker); the view pages them in with `loadEarlier`.
 */
export function snapshotMessage(state: TranscriptState, session: SessionInfoView, pending = 0): HostToWebview {
  const part = recentPart(state);
  return { type: 'snapshot', state: part.state, session, earlier: part.earlier + pending };
}

/**
 * A frame's events, or, when there are more than a frame of live streaming carries, a snapshot of the
 * newest rows instead: the view then takes 200 rows, not thousands of events. `state` already includes every
 * event of the frame, so both sides agree.
 */
export function frameMessage(state: TranscriptState, session: SessionInfoView, events: readonly WireEvent[], pending = 0): HostToWebview {
  return events.length > LARGE_BATCH_EVENTS && rowCount(state) > SNAPSHOT_ROWS ? snapshotMessage(state, session, pending) : { type: 'batch', events };
}

/** What the view is fed from: the host's side of the Pi worker (`PiClient`). */
export interface FeedSource {
  readonly state: TranscriptState;
  readonly sessionInfo: SessionInfoView;
  /** Rows before the first one `state` holds that the worker holds (paged in on request). */
  readonly pendingEarlier: number;
  readonly onDidEmit: (listener: (events: readonly WireEvent[]) => void) => IDisposable;
  /** The transcript was replaced (a replayed history): the view starts again from a snapshot. */
  readonly onDidReplace: (listener: () => void) => IDisposable;
  earlierPage(before: number, count: number): Promise<EarlierPage | undefined>;
}

/**
 * Feeds one chat view: a snapshot when it says `ready` or when the transcript is replaced, live events
 * batched per frame in between, and the older rows it asks for.
 */
export class ViewFeed extends Disposable {
  private _open = false;
  private readonly _batcher: Batcher;
  private readonly _source: FeedSource;
  private readonly _post: (msg: HostToWebview) => void;

  constructor(source: FeedSource, post: (msg: HostToWebview) => void, scheduler: Scheduler) {
    super();
    this._source = source;
    this._post = post;
    this._batcher = this._register(new Batcher((events) => post(frameMessage(source.state, source.sessionInfo, events, source.pendingEarlier)), scheduler));
    this._register(
      source.onDidEmit((events) => {
        if (!this._open) return;
        this._batcher.pushBatch(events);
      }),
    );
    this._register(
      source.onDidReplace(() => {
        if (!this._open) return;
        // What is queued (the reset before a replay, say) goes first, so the view sees it happen.
        this._batcher.flush();
        this._post(snapshotMessage(source.state, source.sessionInfo, source.pendingEarlier));
      }),
    );
  }

  /** The view said `ready`: a snapshot now (everything queued is in it), live batches from here. */
  open(): void {
    this._batcher.discard();
    this._post(snapshotMessage(this._source.state, this._source.sessionInfo, this._source.pendingEarlier));
    this._open = true;
  }

  /** The view went away; a new one starts with `open`. */
  close(): void {
    this._open = false;
    this._batcher.discard();
  }

  /** Answers the view's `loadEarlier` (nothing when the row is gone: the view has the new transcript already). */
  async loadEarlier(before: number, count: number): Promise<void> {
    const page = await this._source.earlierPage(before, count);
    if (page && this._open) this._post({ type: 'earlier', before, ...page });
  }

  /**
   * Answers the view's `loadAround` (find in chat moving to a row far from those it holds): one page of the
   * rows around it, from the window or the worker as `loadEarlier`'s pages, and how many rows follow it.
   */
  async loadAround(id: number, count: number): Promise<void> {
    const page = await this._source.earlierPage(aroundBefore(id, count), count);
    if (!page || !this._open) return;
    const total = this._source.pendingEarlier + rowCount(this._source.state);
    this._post({ type: 'around', id, ...page, later: Math.max(0, total - page.earlier - page.messages.length) });
  }
}
