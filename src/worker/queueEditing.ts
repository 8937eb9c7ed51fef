/**
 * Edits of Pi's queue. Pi can only clear its whole queue, so an edit clears it and queues the rest again, all
 * in one synchronous step: Pi takes a queued message on its own event-loop turn, so it sees the queue before
 * the edit or after it, never half of it, and nothing is sent twice or lost.
 */

import type { Queues } from '../shared/queueEdit.ts';
import type { AgentSessionLike } from './agentSession.ts';

/**
 * Pi's own enqueue (`AgentSession`'s `_queueSteer` / `_queueFollowUp`): it pushes onto both of Pi's queues before
 * any await. The public `steer()` / `followUp()` first await the extensions' input hooks and expand templates,
 * so queueing again through them would let Pi take the next message, or end the run, between the clear and the
 * re-queue, and would run the input hooks twice on one message.
 */
/** An image as Pi queues it with a message (its `ImageContent`). */
export interface QueuedPicture {
  readonly type: 'image';
  readonly data: string;
  readonly mimeType: string;
}

interface PiEnqueue {
  _queueSteer(text: string, images?: QueuedPicture[]): Promise<void>;
  _queueFollowUp(text: string, images?: QueuedPicture[]): Promise<void>;
  getSteeringMessages(): readonly string[];
  getFollowUpMessages(): readonly string[];
}

export type RequeueSession = AgentSessionLike & PiEnqueue;

/** Whether this Pi lets the queue be edited (a Pi without its internal enqueue gets no edits rather than unsafe ones). */
export function canRequeue(session: AgentSessionLike): session is RequeueSession {
  const s = session as Partial<PiEnqueue>;
  return (
    typeof s._queueSteer === 'function' &&
    typeof s._queueFollowUp === 'function' &&
    typeof s.getSteeringMessages === 'function' &&
    typeof s.getFollowUpMessages === 'function'
  );
}

/** Pi's queues now. */
export function queuesOf(session: RequeueSession): Queues {
  return { steering: [...session.getSteeringMessages()], followUp: [...session.getFollowUpMessages()] };
}

/**
 * Replaces Pi's queues with `next`, synchronously from the clear to the last push. `images[i]` go with the
 * i-th message of steering then follow-up. A rejection of Pi's enqueue (none is expected: it awaits nothing)
 * goes to `failed`.
 */
export function replaceQueues(
  session: RequeueSession,
  next: Queues,
  images: readonly (readonly QueuedPicture[] | undefined)[],
  failed: (err: unknown) => void,
): void {
  session.clearQueue();
  let i = 0;
  for (const text of next.steering) session._queueSteer(text, images[i++]?.slice()).catch(failed);
  for (const text of next.followUp) session._queueFollowUp(text, images[i++]?.slice()).catch(failed);
}
