/** The wire between the extension host and the chat webview: small events in, user intents out. */

import type { ExtensionUiEvent } from './extensionUi.ts';
import type { CodeChip } from './chips.ts';
import { parseImageAttachments, type ImageAttachment, type ImageView } from './images.ts';
import { isBuiltin, type BuiltinName, type SlashCommand } from './slashCommands.ts';
import type { SessionPage, SessionStatsView, TreeNodeView } from './sessions.ts';
import { MAX_PAGE_ROWS, type MessageView, type ToolCardView, type TranscriptState } from './transcript.ts';

/** What kind of content a block of an assistant message holds. */
export type BlockKind = 'text' | 'thinking' | 'toolCall';

/** Why an assistant message stopped, as Pi reports it. */
export type StopReason = 'stop' | 'length' | 'toolUse' | 'aborted' | 'error' | 'deferred' | 'pending';

export type CompactionReason = 'manual' | 'threshold' | 'overflow';

/** What a summary Pi writes is for: compacting the conversation, or the branch left by a tree navigation. */
export type SummarySource = 'compaction' | 'branchSummary';

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
  /** `images` counts the message's image blocks; `media` shows them (absent when there are none). */
  | { readonly type: 'userMessage'; readonly text: string; readonly images: number; readonly media?: readonly ImageView[] }
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
  /** `text` and `media` are left out when the tool's card already shows the same. */
  | {
      readonly type: 'toolResult';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly isError: boolean;
      readonly text?: string;
      readonly media?: readonly ImageView[];
    }
  /**
   * `args` is left out when it equals the arguments the model's call streamed (the reducer takes them from that
   * block). `parentToolCallId` names the call that made this one (a codemode script calling an MCP tool).
   */
  | {
      readonly type: 'toolStart';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly args?: string;
      readonly parentToolCallId?: string;
      readonly at: number;
    }
  | { readonly type: 'toolUpdate'; readonly toolCallId: string; readonly output: string }
  | {
      readonly type: 'toolEnd';
      readonly toolCallId: string;
      readonly isError: boolean;
      readonly output: string;
      readonly durationMs?: number;
      /** The result's image blocks (a screenshot, an image file read). */
      readonly media?: readonly ImageView[];
    }
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
  /**
   * Pi retries a summary that failed (a compaction's or a branch summary's): `scheduled` waits `delayMs`
   * before attempt `attempt`, `attempt` starts it, `finished` ends the retries, whatever their result.
   */
  | {
      readonly type: 'summaryRetry';
      readonly phase: 'scheduled';
      readonly attempt: number;
      readonly maxAttempts: number;
      readonly delayMs: number;
      readonly errorMessage: string;
      readonly at: number;
    }
  | { readonly type: 'summaryRetry'; readonly phase: 'attempt'; readonly source: SummarySource; readonly at: number }
  | { readonly type: 'summaryRetry'; readonly phase: 'finished'; readonly at: number }
  | { readonly type: 'thinkingLevel'; readonly level: string }
  | { readonly type: 'sessionInfo'; readonly name?: string }
  | { readonly type: 'cancelRequested'; readonly at: number }
  /** A prompt waits for Pi to load and the session to open (`on`), or no longer does. */
  | { readonly type: 'starting'; readonly on: boolean; readonly at: number }
  /** Nothing from Pi since `since` (epoch ms) while a run is active. */
  | { readonly type: 'stalled'; readonly at: number; readonly since: number }
  | { readonly type: 'reset' }
  /** The files a run changed (sent when it settles, again after an Undo, and after a reload for the last run). */
  | { readonly type: 'changes'; readonly runId: string; readonly files: readonly FileChangeView[] }
  /** Pi's extensions: dialogs (the run waits for the user), widgets, the working message. */
  | ExtensionUiEvent
  /** `!command` / `!!command` from the composer (`excluded`: kept out of the model's context). */
  | { readonly type: 'bashStart'; readonly id: string; readonly command: string; readonly excluded: boolean; readonly at: number }
  | { readonly type: 'bashOutput'; readonly id: string; readonly delta: string }
  /** A shell command ended (live, with its `id`) or was restored from the session file (no `id`): a finished row. */
  | {
      readonly type: 'bashEnd';
      readonly id?: string;
      readonly command: string;
      readonly output: string;
      readonly exitCode?: number;
      readonly cancelled: boolean;
      readonly excluded: boolean;
    };

/** One file a run changed, as the Changes row shows it. */
export interface FileChangeView {
  /** Workspace-relative, '/'-separated (absolute when outside the workspace). */
  readonly path: string;
  readonly added: number;
  readonly removed: number;
  /** Pi created it: Undo deletes it. */
  readonly created: boolean;
  readonly undone?: boolean;
  /** Why there is no diff or undo for it (binary, too large). */
  readonly note?: string;
}

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
  /** Texts (and their images) taken back from the queue on cancel: the composer gets them so nothing typed is lost. */
  | { readonly type: 'restoreInput'; readonly texts: readonly string[]; readonly images?: readonly ImageAttachment[] }
  | { readonly type: 'focusComposer' }
  /** Code the user handed Pi (Add Selection / Add File / the `@` picker): a chip in the composer. */
  | { readonly type: 'addChip'; readonly chip: CodeChip }
  /** An extension sets the composer's text (`setEditorText`) or pastes into it at the cursor (`pasteToEditor`). */
  | { readonly type: 'editorText'; readonly text: string; readonly paste: boolean }
  /** Whether to report the composer's text (`composerText`): only while an extension could read it. */
  | { readonly type: 'trackComposer'; readonly on: boolean }
  /** The commands the slash menu offers: the panel's built-ins, then Pi's (extensions, prompt templates, skills). */
  | { readonly type: 'commands'; readonly commands: readonly SlashCommand[] }
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
  /** `images` go with the text (Pi's `ImageContent`); with images the text may be empty. */
  | { readonly type: 'send'; readonly text: string; readonly mode: SendMode; readonly images?: readonly ImageAttachment[] }
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
  /** Opens a workspace file; `line` (1-based) or, with `firstChange`, the first line the last run changed. */
  | { readonly type: 'openFile'; readonly path: string; readonly line?: number; readonly firstChange?: boolean }
  /** Opens the diff editor: the file before the run's first change to it ↔ now. */
  | { readonly type: 'openDiff'; readonly path: string }
  /** Undoes the last run's change to one file, or (no path) to all its files. */
  | { readonly type: 'undo'; readonly path?: string; readonly runId?: string }
  /** `@` in the composer: open the workspace file picker. */
  | { readonly type: 'pickFile' }
  /** The user's answer to an extension dialog; no `value` dismisses it (confirm answers `Yes` or `No`). */
  /** `reason`: what the user typed into an approval card before Deny. */
  | { readonly type: 'answerDialog'; readonly id: string; readonly value?: string; readonly reason?: string }
  /** The composer's text, so an extension's `getEditorText()` reads what the user has typed. */
  | { readonly type: 'composerText'; readonly text: string }
  /** The images attached in the composer, whenever they change: the host keeps them for a re-created view. */
  | { readonly type: 'composerImages'; readonly images: readonly ImageAttachment[] }
  /** The slash menu opened: the host answers with `commands`. */
  | { readonly type: 'listCommands' }
  /** `!command` (or `!!command`, `excluded` from the model's context) run by Pi's shell. */
  | { readonly type: 'bash'; readonly command: string; readonly excluded: boolean }
  /** One of the panel's built-in slash commands, with what followed its name. */
  | { readonly type: 'slash'; readonly name: BuiltinName; readonly args: string }
  /** A page of the Sessions list (`offset` 0 starts over, for a new search). */
  | { readonly type: 'listSessions'; readonly query: string; readonly offset: number }
  | { readonly type: 'openSession'; readonly file: string }
  | { readonly type: 'renameSession'; readonly file: string; readonly name: string }
  | { readonly type: 'deleteSession'; readonly file: string }
  /** A user row, named by how many user rows follow it and by its text. */
  | { readonly type: 'editResend'; readonly fromEnd: number; readonly text: string }
  | { readonly type: 'forkHere'; readonly fromEnd: number; readonly text: string }
  | { readonly type: 'showTree' }
  | { readonly type: 'navigateTree'; readonly entryId: string }
  /** Asks for up to `count` rows before the row with id `before` (the first the view holds). */
  | { readonly type: 'loadEarlier'; readonly before: number; readonly count: number };

/** Longest session name the host accepts. */
export const MAX_SESSION_NAME = 200;

/** Longest prompt the host accepts from the webview (characters); a larger paste gets a clear message. */
export const MAX_PROMPT_CHARS = 1_000_000;
/** Longest reason the user may send with an approval's Deny. */
export const MAX_DENY_REASON_CHARS = 2000;

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < 1e7;
const isSessionFile = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length < 4096 && v.endsWith('.jsonl');
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const isPath = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 4096 && !v.includes('\0');

/**
 * Checks a message from the webview. Returns it typed, or a reason it was rejected; the webview is
 * a separate, less trusted context and its messages are never used unchecked.
 */
export function parseWebviewMessage(raw: unknown): { ok: true; msg: WebviewToHost } | { ok: false; reason: string } {
  if (!isObject(raw) || typeof raw.type !== 'string') return { ok: false, reason: 'not an object with a string "type"' };
  switch (raw.type) {
    case 'ready':
    case 'listCommands':
    case 'cancel':
    case 'newSession':
    case 'forceIdle':
    case 'showLog':
    case 'retryLast':
    case 'pickFile':
      return { ok: true, msg: { type: raw.type } };
    case 'send': {
      if (typeof raw.text !== 'string') return { ok: false, reason: 'send.text is not a string' };
      if (raw.mode !== 'prompt' && raw.mode !== 'steer' && raw.mode !== 'followUp') return { ok: false, reason: 'send.mode is not prompt, steer or followUp' };
      if (raw.text.length > MAX_PROMPT_CHARS) return { ok: false, reason: `send.text is longer than ${MAX_PROMPT_CHARS} characters` };
      if (raw.images === undefined) return { ok: true, msg: { type: 'send', text: raw.text, mode: raw.mode } };
      const images = parseImageAttachments(raw.images);
      if (!images.ok) return { ok: false, reason: `send.${images.reason}` };
      return { ok: true, msg: { type: 'send', text: raw.text, mode: raw.mode, ...(images.images.length ? { images: images.images } : {}) } };
    }
    case 'showTree':
      return { ok: true, msg: { type: raw.type } };
    case 'listSessions':
      if (typeof raw.query !== 'string' || raw.query.length > 500) return { ok: false, reason: 'listSessions.query is not a string of sensible length' };
      if (!isCount(raw.offset)) return { ok: false, reason: 'listSessions.offset is not a count' };
      return { ok: true, msg: { type: 'listSessions', query: raw.query, offset: raw.offset } };
    case 'openSession':
    case 'deleteSession':
      if (!isSessionFile(raw.file)) return { ok: false, reason: `${raw.type}.file is not a session file path` };
      return { ok: true, msg: { type: raw.type, file: raw.file } };
    case 'renameSession':
      if (!isSessionFile(raw.file)) return { ok: false, reason: 'renameSession.file is not a session file path' };
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
    case 'answerDialog':
      if (typeof raw.id !== 'string' || raw.id.length > 200) return { ok: false, reason: 'answerDialog.id is not a short string' };
      if (raw.value !== undefined && (typeof raw.value !== 'string' || raw.value.length > MAX_PROMPT_CHARS))
        return { ok: false, reason: 'answerDialog.value is not a string of sensible length' };
      if (raw.reason !== undefined && (typeof raw.reason !== 'string' || raw.reason.length > MAX_DENY_REASON_CHARS))
        return { ok: false, reason: 'answerDialog.reason is not a string of sensible length' };
      return {
        ok: true,
        msg: {
          type: 'answerDialog',
          id: raw.id,
          ...(raw.value === undefined ? {} : { value: raw.value }),
          ...(raw.reason === undefined || raw.value === undefined ? {} : { reason: raw.reason }),
        },
      };
    case 'bash':
      if (typeof raw.command !== 'string' || !raw.command.trim() || raw.command.length > MAX_PROMPT_CHARS)
        return { ok: false, reason: 'bash.command is not a non-empty string of sensible length' };
      return { ok: true, msg: { type: 'bash', command: raw.command, excluded: raw.excluded === true } };
    case 'slash':
      if (typeof raw.name !== 'string' || !isBuiltin(raw.name)) return { ok: false, reason: 'slash.name is not a built-in command' };
      if (typeof raw.args !== 'string' || raw.args.length > MAX_PROMPT_CHARS) return { ok: false, reason: 'slash.args is not a string of sensible length' };
      // `/name` is a rename: the same cap as the Sessions list's.
      if (raw.name === 'name' && raw.args.trim().length > MAX_SESSION_NAME)
        return { ok: false, reason: `slash /name takes a title of at most ${MAX_SESSION_NAME} characters` };
      return { ok: true, msg: { type: 'slash', name: raw.name, args: raw.args } };
    case 'composerText':
      if (typeof raw.text !== 'string' || raw.text.length > MAX_PROMPT_CHARS)
        return { ok: false, reason: 'composerText.text is not a string of sensible length' };
      return { ok: true, msg: { type: 'composerText', text: raw.text } };
    case 'composerImages': {
      const images = parseImageAttachments(raw.images);
      if (!images.ok) return { ok: false, reason: `composerImages.${images.reason}` };
      return { ok: true, msg: { type: 'composerImages', images: images.images } };
    }
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
    case 'openFile': {
      if (!isPath(raw.path)) return { ok: false, reason: 'openFile.path is not a path' };
      const line = raw.line;
      if (line !== undefined && !(typeof line === 'number' && Number.isInteger(line) && line > 0))
        return { ok: false, reason: 'openFile.line is not a line number' };
      return {
        ok: true,
        msg: { type: 'openFile', path: raw.path, ...(line !== undefined ? { line } : {}), ...(raw.firstChange === true ? { firstChange: true } : {}) },
      };
    }
    case 'openDiff':
      if (!isPath(raw.path)) return { ok: false, reason: 'openDiff.path is not a path' };
      return { ok: true, msg: { type: 'openDiff', path: raw.path } };
    case 'undo':
      if (raw.path !== undefined && !isPath(raw.path)) return { ok: false, reason: 'undo.path is not a path' };
      if (raw.runId !== undefined && (typeof raw.runId !== 'string' || raw.runId.length > 100)) return { ok: false, reason: 'undo.runId is not a run id' };
      return {
        ok: true,
        msg: { type: 'undo', ...(raw.path !== undefined ? { path: raw.path } : {}), ...(raw.runId !== undefined ? { runId: raw.runId } : {}) },
      };
    default:
      return { ok: false, reason: `unknown message type ${JSON.stringify(raw.type).slice(0, 40)}` };
  }
}

/** Compile-time proof that a `switch` handled every case. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
