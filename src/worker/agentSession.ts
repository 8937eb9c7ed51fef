/** The part of Pi's session the worker uses, and how sessions are made: the types every worker module shares. */

import type { AgentSession } from '@earendil-works/pi-coding-agent';
import type { SessionOps, SessionRuntimeLike } from './sessionRuntime.ts';

/** What a move in the session tree may ask for besides its target (Pi's `navigateTree` options). */
export type NavigateTreeOptions = NonNullable<Parameters<AgentSession['navigateTree']>[1]>;

/** The part of Pi's `AgentSession` the worker uses; `FakeSession` implements the same. */
export type AgentSessionLike = Pick<
  AgentSession,
  | 'subscribe'
  | 'prompt'
  | 'steer'
  | 'followUp'
  | 'clearQueue'
  | 'abort'
  | 'dispose'
  | 'compact'
  | 'abortCompaction'
  | 'setModel'
  | 'setThinkingLevel'
  | 'getAvailableThinkingLevels'
  | 'exportToHtml'
  | 'modelRuntime'
  | 'getContextUsage'
> & {
  readonly sessionFile?: string | undefined;
  readonly isStreaming: boolean;
  readonly isCompacting: boolean;
  readonly model: { readonly provider: string; readonly id: string; readonly name?: string } | undefined;
  readonly thinkingLevel: string;
  readonly messages: readonly unknown[];
} & Partial<SessionOps> &
  Partial<ShellOps> &
  Partial<
    Pick<
      AgentSession,
      'extensionRunner' | 'promptTemplates' | 'resourceLoader' | 'sessionManager' | 'settingsManager' | 'waitForIdle' | 'getActiveToolNames' | 'getAllTools'
    >
  >;

/** A `!` command in Pi's shell (a test's plain session has none). */
export type ShellOps = Pick<AgentSession, 'executeBash' | 'abortBash' | 'isBashRunning' | 'recordBashResult'>;

/** Pi's thinking levels (`off` … `max`). */
export type ThinkingLevel = Parameters<AgentSession['setThinkingLevel']>[0];

/** A session a `SessionFactory` made, with what the controller needs to know about it. */
export interface CreatedSession {
  readonly session: AgentSessionLike;
  /** Pi's runtime that owns `session`: new, resume, fork and import replace the session through it. */
  readonly runtime?: SessionRuntimeLike<AgentSessionLike>;
  /** Something the user should know (a model fallback, a missing workspace). */
  readonly warning?: string;
  readonly cwd: string;
  /** Pi found no model with credentials; prompting would fail with "No API key found". */
  readonly noModel?: boolean;
  /** Binds Pi's extensions to the panel's UI (fires `session_start`); called once the controller listens. */
  readonly bind?: (session: AgentSessionLike) => Promise<void>;
}

/**
 * Makes sessions. `fresh` starts an empty one; `open` opens a saved session file; otherwise the most recent
 * one for the workspace continues.
 */
export type SessionFactory = (options: { fresh: boolean; open?: string }) => Promise<CreatedSession>;

/** The controller's timings and view options; read at each use, so a reconfigured worker's apply at once. */
export interface ControllerOptions {
  /** How long to wait for `agent_settled` after a cancel before offering "Force idle". */
  readonly settleTimeoutMs: number;
  /** How long a run may go without any event before the user is told (0 = never). */
  readonly noResponseMs: number;
  readonly collapseThinking?: boolean;
  /** The extension's workspace storage: the last run's file changes and the checkpoints are kept there. */
  readonly storageDir?: string;
  /** Checkpoints before each user message (the setting, and only in a trusted workspace). */
  readonly checkpoints?: boolean;
}

/** An error's message, for logs and notices. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
