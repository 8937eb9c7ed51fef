/** The wire between the extension host and the chat webview: small events in, user intents out. */

import { MAX_PAGE_ROWS, type MessageView, type ToolCardView, type TranscriptState } from './transcript.ts';

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
}

/** Palette commands the view may ask for (each is `piPanel.<name>`). */
export const VIEW_COMMANDS = ['selectModel', 'setThinkingLevel', 'compact', 'resumeSession', 'exportTranscript'] as const;
export type ViewCommand = (typeof VIEW_COMMANDS)[number];

export type HostToWebview =
  /** `state` holds the newest rows; `earlier` rows precede them on the host (`loadEarlier` pages them in). */
  | { readonly type: 'snapshot'; readonly state: TranscriptState; readonly session: SessionInfoView; readonly earlier?: number }
  /** The reply to `loadEarlier`: the rows just before the row `before`, and how many rows remain before those. */
  | {
      readonly type: 'earlier';
      readonly before: number;
      readonly messages: readonly MessageView[];
      readonly tools: Readonly<Record<string, ToolCardView>>;
      readonly earlier: number;
    }
  | { readonly type: 'batch'; readonly events: readonly WireEvent[] }
  | { readonly type: 'session'; readonly session: SessionInfoView }
  /** Texts taken back from the queue on cancel: the composer gets them so nothing typed is lost. */
  | { readonly type: 'restoreInput'; readonly texts: readonly string[] }
  | { readonly type: 'focusComposer' };

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
  /** Asks for up to `count` rows before the row with id `before` (the first the view holds). */
  | { readonly type: 'loadEarlier'; readonly before: number; readonly count: number };

/** Longest prompt the host accepts from the webview (characters); a larger paste gets a clear message. */
export const MAX_PROMPT_CHARS = 1_000_000;

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
    case 'runCommand':
      if (!VIEW_COMMANDS.includes(raw.command as ViewCommand)) return { ok: false, reason: 'runCommand.command is not one the view may run' };
      return { ok: true, msg: { type: 'runCommand', command: raw.command as ViewCommand } };
    case 'loadEarlier':
      if (!Number.isSafeInteger(raw.before) || (raw.before as number) < 1) return { ok: false, reason: 'loadEarlier.before is not a message id' };
      if (!Number.isSafeInteger(raw.count) || (raw.count as number) < 1 || (raw.count as number) > MAX_PAGE_ROWS)
        return { ok: false, reason: `loadEarlier.count is not a whole number from 1 to ${MAX_PAGE_ROWS}` };
      return { ok: true, msg: { type: 'loadEarlier', before: raw.before as number, count: raw.count as number } };
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
