/** What every part of a session's owner reads and writes of it: the transcript, the live session, whether a run is active. */

import type { TranscriptState } from '../shared/transcript/rows.ts';
import type { WireEvent } from '../shared/wire/events.ts';
import type { AgentSessionLike } from './agentSession.ts';

/** The session context `SessionController` gives its parts. */
export interface SessionContext {
  state(): TranscriptState;
  /** Applies wire events to the transcript and sends them on. */
  apply(events: readonly WireEvent[]): void;
  session(): AgentSessionLike | undefined;
  isActive(): boolean;
  /** Opens the session on first use; later calls share it. */
  ensureSession(): Promise<AgentSessionLike | undefined>;
}
