/** What the chat view is sent: a snapshot of the newest rows, or a frame's events; no `vscode`, so the bench runs it. */

import type { HostToWebview, SessionInfoView, WireEvent } from '../shared/protocol.ts';
import { recentPart, SNAPSHOT_ROWS, type TranscriptState } from '../shared/transcript.ts';

/** More events than this in one frame are a replayed history, not live streaming (deltas are coalesced per frame). */
const LARGE_BATCH_EVENTS = 500;

/** The newest rows of the host's transcript and how many precede them; the view pages those in with `loadEarlier`. */
export function snapshotMessage(state: TranscriptState, session: SessionInfoView): HostToWebview {
  const part = recentPart(state);
  return { type: 'snapshot', state: part.state, session, earlier: part.earlier };
}

/**
 * A frame's events, or, when they are a replayed history (a resumed session: a reset, or more events than
 * a frame of live streaming carries), a snapshot of the newest rows instead: the view then takes 200 rows,
 * not 20,000 messages' events. `state` already includes every event of the frame, so both sides agree.
 */
export function frameMessage(state: TranscriptState, session: SessionInfoView, events: readonly WireEvent[]): HostToWebview {
  const replayed = events.length > LARGE_BATCH_EVENTS || events.some((ev) => ev.type === 'reset');
  return replayed && state.messages.length > SNAPSHOT_ROWS ? snapshotMessage(state, session) : { type: 'batch', events };
}
