/** What the worker's parts outside the session's owner read: the configuration, Pi's module, the live session. */

import type { PiModule } from '../pi/piEntry.ts';
import type { WorkerConfig } from '../shared/wire/workerProtocol.ts';
import type { AgentSessionLike } from './agentSession.ts';

/** The worker context `main.ts` gives the parts that register commands beside the session's owner. */
export interface WorkerContext {
  /** The configuration now; throws before the main thread configured the worker. */
  config(): WorkerConfig;
  /** Pi's agent directory for the configuration now (Pi's default when the setting is empty). */
  agentDir(): string;
  /** Pi's module, loaded on first use. */
  pi(): PiModule;
  /** The live session (opening it on first use), or a rejection saying why there is none. */
  session(): Promise<AgentSessionLike>;
}
