/** Moving to a row far from those the view holds (find in chat): one `loadAround` for the page around it, awaited, and where a held row is. */

import type { HostToWebview, WebviewToHost } from '../shared/wire/webviewProtocol.ts';
import { rowAt, rowCount } from '../shared/transcript/rowStore.ts';
import type { TranscriptState } from '../shared/transcript/rows.ts';

/** A `loadAround` reply. */
export type AroundReply = Extract<HostToWebview, { type: 'around' }>;

/** Index of row `id` in `state` (-1: not held); rows ascend by id. */
export function indexOfRow(state: TranscriptState, id: number): number {
  let lo = 0;
  let hi = rowCount(state) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = rowAt(state, mid)!.id;
    if (at === id) return mid;
    if (at < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** One `loadAround` at a time: a newer ask, or a transcript replaced (`drop`), leaves the older one unanswered (undefined). */
export class AroundRequests {
  private readonly _post: (msg: WebviewToHost) => void;
  private _asked: { readonly id: number; readonly done: (reply: AroundReply | undefined) => void } | undefined;

  constructor(post: (msg: WebviewToHost) => void) {
    this._post = post;
  }

  /** Asks for the `count` rows around row `id`; resolves with the reply, or undefined if it will not come. */
  ask(id: number, count: number): Promise<AroundReply | undefined> {
    this.drop();
    return new Promise((done) => {
      this._asked = { id, done };
      this._post({ type: 'loadAround', id, count });
    });
  }

  /** The host's reply: the ask it answers is settled (a reply to an ask given up is dropped). */
  onAround(msg: AroundReply): void {
    const asked = this._asked;
    if (!asked || msg.id !== asked.id || !Array.isArray(msg.messages)) return;
    this._asked = undefined;
    asked.done(msg);
  }

  /** The ask under way, if any, gets no reply (a snapshot or reset replaced the transcript). */
  drop(): void {
    const asked = this._asked;
    this._asked = undefined;
    asked?.done(undefined);
  }
}
