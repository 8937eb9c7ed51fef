/** The wire between the extension host and the chat webview: small events in, user intents out. */

import type { SessionPage, SessionStatsView, TreeNodeView } from './sessions.ts';
import type { TranscriptState } from './transcript.ts';

/** What kind of content a block of an assistant message holds. */
export type BlockKind = 'text' | 'thinking' | 'toolCall';

/** Why an assistant message stopped, as Pi reports it. */
export type StopReason = 'stop' | 'length' | 'toolUse' | 'aborted' | 'error' | 'deferred' | 'pending';

export type CompactionReason = 'manual' | 'threshold' | 'overflow';

/** Token and cost figures of one assistant message, flattened from Pi's `Usage`. */
export interface UsageView {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly cost: number;
}

/** A block's final content, sent at `blockEnd` / `assistantEnd` only where it differs from what streamed. */
export interface BlockFinal {
  readonly index: number;
  readonly kind: BlockKind;
  readonly text: string;
  readonly toolCallId?: string;
  readonly toolName?: string;
}

/**
 * One thing that happened in the session, in the wire's own vocabulary. Deltas carry only the new
 * characters; `*End` events carry only what differs from what the receiver already reduced.
 */
export type WireEvent =
  | { readonly type: 'runStart' }
  | { readonly type: 'turnStart' }
  | { readonly type: 'userMessage'; readonly text: string; readonly images: number }
  | { readonly type: 'noticeMessage'; readonly level: NoticeLevel; readonly text: string; readonly code?: NoticeCode }
  | { readonly type: 'assistantStart'; readonly at: number }
  | {
      readonly type: 'blockStart';
      readonly index: number;
      readonly kind: BlockKind;
      readonly at: number;
      readonly toolCallId?: string;
      readonly toolName?: string;
    }
  | { readonly type: 'delta'; readonly index: number; readonly text: string }
  | { readonly type: 'blockEnd'; readonly index: number; readonly at: number; readonly final?: BlockFinal }
  | {
      readonly type: 'assistantEnd';
      readonly stopReason: StopReason;
      readonly errorMessage?: string;
      readonly usage?: UsageView;
      /** Blocks whose final content differs from the streamed one. */
      readonly blocks?: readonly BlockFinal[];
      /** Number of blocks in the final message, when it differs from what streamed. */
      readonly blockCount?: number;
      readonly at: number;
    }
  | { readonly type: 'toolResult'; readonly toolCallId: string; readonly toolName: string; readonly isError: boolean; readonly text?: string }
  | { readonly type: 'toolStart'; readonly toolCallId: string; readonly toolName: string; readonly args: string; readonly at: number }
  | { readonly type: 'toolUpdate'; readonly toolCallId: string; readonly output: string }
  | { readonly type: 'toolEnd'; readonly toolCallId: string; readonly isError: boolean; readonly output: string; readonly durationMs?: number }
  | { readonly type: 'turnEnd' }
  | { readonly type: 'runEnd'; readonly willRetry: boolean }
  /** The run is over; `error` says why it failed when Pi could not say so itself (its worker stopped). */
  | { readonly type: 'settled'; readonly aborted: boolean; readonly at: number; readonly error?: string }
  | { readonly type: 'queue'; readonly steering: readonly string[]; readonly followUp: readonly string[] }
  | {
      readonly type: 'retryStart';
      readonly attempt: number;
      readonly maxAttempts: number;
      readonly delayMs: number;
      readonly errorMessage: string;
      readonly at: number;
    }
  | { readonly type: 'retryEnd'; readonly success: boolean; readonly attempt: number; readonly finalError?: string; readonly at: number }
  | { readonly type: 'compactionStart'; readonly reason: CompactionReason; readonly at: number }
  | {
      readonly type: 'compactionEnd';
      readonly reason: CompactionReason;
      readonly aborted: boolean;
      readonly willRetry: boolean;
      readonly errorMessage?: string;
      readonly tokensBefore?: number;
      readonly tokensAfter?: number;
      readonly at: number;
    }
  | { readonly type: 'thinkingLevel'; readonly level: string }
  | { readonly type: 'sessionInfo'; readonly name?: string }
  | { readonly type: 'cancelRequested'; readonly at: number }
  /** A prompt waits for Pi to load and the session to open (`on`), or no longer does. */
  | { readonly type: 'starting'; readonly on: boolean; readonly at: number }
  /** Nothing from Pi since `since` (epoch ms) while a run is active. */
  | { readonly type: 'stalled'; readonly at: number; readonly since: number }
  | { readonly type: 'reset' };

export type NoticeLevel = 'info' | 'warning' | 'error';

/** Notices the webview offers an action for. */
export type NoticeCode = 'noModel' | 'noKey' | 'promptFailed' | 'settleTimeout' | 'sessionFailed' | 'providerError' | 'workerStopped';

/** Facts about the session the webview shows around the transcript. */
export interface SessionInfoView {
  /** What to call the model: its display name, or provider/id. */
  readonly model?: string;
  /** provider/id of the model. */
  readonly modelId?: string;
  readonly thinkingLevel?: string;
  readonly cwd?: string;
  readonly ready: boolean;
  /** Fold a thinking block once the answer starts (setting `piPanel.collapseThinking`). */
  readonly collapseThinking?: boolean;
  /** How full the model's context window is, 0–100, when Pi knows. */
  readonly contextPercent?: number;
  /** The session's name (`/name`), when it has one. */
  readonly name?: string;
  /** The session's token and cost totals. */
  readonly stats?: SessionStatsView;
}

/** Palette commands the view may ask for (each is `piPanel.<name>`). */
export const VIEW_COMMANDS = [
  'selectModel',
  'setThinkingLevel',
  'compact',
  'resumeSession',
  'exportTranscript',
  'exportJsonl',
  'importSession',
  'copyLastAnswer',
  'renameSession',
] as const;
export type ViewCommand = (typeof VIEW_COMMANDS)[number];

export type HostToWebview =
  | { readonly type: 'snapshot'; readonly state: TranscriptState; readonly session: SessionInfoView }
  | { readonly type: 'batch'; readonly events: readonly WireEvent[] }
  | { readonly type: 'session'; readonly session: SessionInfoView }
  /** Texts taken back from the queue on cancel: the composer gets them so nothing typed is lost. */
  | { readonly type: 'restoreInput'; readonly texts: readonly string[] }
  | { readonly type: 'focusComposer' }
  /** The composer's text becomes `text` ("Edit and resend"). */
  | { readonly type: 'setInput'; readonly text: string }
  /** Switches what the view shows: the chat, the Sessions list or the session's tree. */
  | { readonly type: 'showMode'; readonly mode: ViewMode }
  | { readonly type: 'sessions'; readonly page: SessionPage }
  | { readonly type: 'sessionTree'; readonly nodes: readonly TreeNodeView[] };

/** What the view shows. */
export type ViewMode = 'chat' | 'sessions' | 'tree';

export type SendMode = 'prompt' | 'steer' | 'followUp';

export type WebviewToHost =
  | { readonly type: 'ready' }
  | { readonly type: 'send'; readonly text: string; readonly mode: SendMode }
  | { readonly type: 'cancel' }
  | { readonly type: 'newSession' }
  | { readonly type: 'forceIdle' }
  | { readonly type: 'openLink'; readonly href: string }
  /** A code block's text, to insert at the cursor of the active editor. */
  | { readonly type: 'insertCode'; readonly text: string }
  | { readonly type: 'showLog' }
  /** Sends the last prompt again (after a provider error or a stalled run). */
  | { readonly type: 'retryLast' }
  /** Runs one of the allow-listed palette commands (the header's model and thinking pickers). */
  | { readonly type: 'runCommand'; readonly command: ViewCommand }
  /** A page of the Sessions list (`offset` 0 starts over, for a new search). */
  | { readonly type: 'listSessions'; readonly query: string; readonly offset: number }
  | { readonly type: 'openSession'; readonly file: string }
  | { readonly type: 'renameSession'; readonly file: string; readonly name: string }
  | { readonly type: 'deleteSession'; readonly file: string }
  /** A user row, named by how many user rows follow it and by its text. */
  | { readonly type: 'editResend'; readonly fromEnd: number; readonly text: string }
  | { readonly type: 'forkHere'; readonly fromEnd: number; readonly text: string }
  | { readonly type: 'showTree' }
  | { readonly type: 'navigateTree'; readonly entryId: string };

/** Longest session name the host accepts. */
export const MAX_SESSION_NAME = 200;

/** Longest prompt the host accepts from the webview (characters); a larger paste gets a clear message. */
export const MAX_PROMPT_CHARS = 1_000_000;

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < 1e7;
const isPath = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length < 4096 && v.endsWith('.jsonl');
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a message from the webview. Returns it typed, or a reason it was rejected; the webview is
 * a separate, less trusted context and its messages are never used unchecked.
 */
export function parseWebviewMessage(raw: unknown): { ok: true; msg: WebviewToHost } | { ok: false; reason: string } {
  if (!isObject(raw) || typeof raw.type !== 'string') return { ok: false, reason: 'not an object with a string "type"' };
  switch (raw.type) {
    case 'ready':
    case 'cancel':
    case 'newSession':
    case 'forceIdle':
    case 'showLog':
    case 'retryLast':
      return { ok: true, msg: { type: raw.type } };
    case 'send': {
      if (typeof raw.text !== 'string') return { ok: false, reason: 'send.text is not a string' };
      if (raw.mode !== 'prompt' && raw.mode !== 'steer' && raw.mode !== 'followUp') return { ok: false, reason: 'send.mode is not prompt, steer or followUp' };
      if (raw.text.length > MAX_PROMPT_CHARS) return { ok: false, reason: `send.text is longer than ${MAX_PROMPT_CHARS} characters` };
      return { ok: true, msg: { type: 'send', text: raw.text, mode: raw.mode } };
    }
    case 'showTree':
      return { ok: true, msg: { type: raw.type } };
    case 'listSessions':
      if (typeof raw.query !== 'string' || raw.query.length > 500) return { ok: false, reason: 'listSessions.query is not a string of sensible length' };
      if (!isCount(raw.offset)) return { ok: false, reason: 'listSessions.offset is not a count' };
      return { ok: true, msg: { type: 'listSessions', query: raw.query, offset: raw.offset } };
    case 'openSession':
    case 'deleteSession':
      if (!isPath(raw.file)) return { ok: false, reason: `${raw.type}.file is not a session file path` };
      return { ok: true, msg: { type: raw.type, file: raw.file } };
    case 'renameSession':
      if (!isPath(raw.file)) return { ok: false, reason: 'renameSession.file is not a session file path' };
      if (typeof raw.name !== 'string' || !raw.name.trim() || raw.name.length > MAX_SESSION_NAME)
        return { ok: false, reason: `renameSession.name is not a non-empty string of at most ${MAX_SESSION_NAME} characters` };
      return { ok: true, msg: { type: 'renameSession', file: raw.file, name: raw.name } };
    case 'editResend':
    case 'forkHere':
      if (!isCount(raw.fromEnd)) return { ok: false, reason: `${raw.type}.fromEnd is not a count` };
      if (typeof raw.text !== 'string' || raw.text.length > MAX_PROMPT_CHARS)
        return { ok: false, reason: `${raw.type}.text is not a string of sensible length` };
      return { ok: true, msg: { type: raw.type, fromEnd: raw.fromEnd, text: raw.text } };
    case 'navigateTree':
      if (typeof raw.entryId !== 'string' || !/^[\w-]{1,100}$/.test(raw.entryId)) return { ok: false, reason: 'navigateTree.entryId is not an entry id' };
      return { ok: true, msg: { type: 'navigateTree', entryId: raw.entryId } };
    case 'runCommand':
      if (!VIEW_COMMANDS.includes(raw.command as ViewCommand)) return { ok: false, reason: 'runCommand.command is not one the view may run' };
      return { ok: true, msg: { type: 'runCommand', command: raw.command as ViewCommand } };
    case 'openLink':
      if (typeof raw.href !== 'string' || raw.href.length > 8192) return { ok: false, reason: 'openLink.href is not a string of sensible length' };
      return { ok: true, msg: { type: 'openLink', href: raw.href } };
    case 'insertCode':
      if (typeof raw.text !== 'string' || raw.text.length > MAX_PROMPT_CHARS)
        return { ok: false, reason: 'insertCode.text is not a string of sensible length' };
      return { ok: true, msg: { type: 'insertCode', text: raw.text } };
    default:
      return { ok: false, reason: `unknown message type ${JSON.stringify(raw.type).slice(0, 40)}` };
  }
}

/** Compile-time proof that a `switch` handled every case. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
