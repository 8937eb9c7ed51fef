/**
 * The wire between the extension host's main thread and the Pi worker thread: requests with replies one
 * way, notifications both ways, declared once and imported by both sides. Only plain data crosses.
 */

import type { ImageAttachment } from '../images.ts';
import type { ApprovalRule } from '../approvalRules.ts';
import type { CommandRequests } from './commands.ts';
import type { NoticeCode, NoticeLevel, WireEvent } from './events.ts';
import type { SendMode, SessionInfoView } from './webviewProtocol.ts';
import type { FindResult } from '../transcript/find.ts';
import type { EarlierPage } from '../transcript/paging.ts';
import type { TranscriptState } from '../transcript/rows.ts';
import type { VscodeToolName } from '../vscodeTools.ts';

export type { FileBefore, LoginResult, McpServerView, ModelChoice } from './answers.ts';

/** What the worker is started with (`workerData`): memory shared with the main thread, not messages. */
export interface WorkerData {
  /** The worker's running children (src/shared/childProcessTable.ts): killed by the main thread when the worker ends. */
  readonly processTable: SharedArrayBuffer;
  /** The display language and its l10n bundle (`vscode.l10n.bundle`), for the texts the worker writes. */
  readonly l10n?: { readonly language: string; readonly bundle: Readonly<Record<string, string>> };
}

/** Where and how the worker opens sessions; read on the main thread (settings, workspace trust). */
export interface WorkerConfig {
  readonly cwd: string;
  /** Pi's agent directory; empty lets the worker use Pi's own default (`PI_CODING_AGENT_DIR` or `~/.pi/agent`). */
  readonly agentDir: string;
  readonly trusted: boolean;
  readonly tools: readonly string[];
  /** Why `cwd` is what it is, when the user should know (no folder open). */
  readonly cwdNote?: string;
  readonly settleTimeoutMs: number;
  readonly noResponseMs: number;
  readonly collapseThinking: boolean;
  /** The extension's workspace storage folder (the last run's file changes survive a reload there). */
  readonly storageDir?: string;
  /** Setting `piPanel.approval`: which tool calls wait for the user's Allow (absent: off). */
  readonly approval?: 'off' | 'writes' | 'commands' | 'all';
  /** Setting `piPanel.approvalRules`, checked and merged (a workspace's allow rules already refused). */
  readonly approvalRules?: readonly ApprovalRule[];
  /** Setting `piPanel.checkpoints`: a checkpoint of the workspace before each user message (never in Restricted Mode). */
  readonly checkpoints?: boolean;
  /** Setting `piPanel.vscodeTools`: Pi gets the `vscode_*` tools (absent: on; never in Restricted Mode, where no tool runs). */
  readonly vscodeTools?: boolean;
  /** Setting `piPanel.diagnosticsAfterEdit`: new errors in files Pi changed are appended to the tool's result (absent: on). */
  readonly diagnosticsAfterEdit?: boolean;
}

/** What goes back to the composer when it did not reach Pi (a cancelled queue, a refused prompt). */
export interface RestoredInput {
  readonly texts: readonly string[];
  readonly images?: readonly ImageAttachment[];
}

/** A message for a VS Code notification; the UI layer shows it. */
export interface UserNotification {
  readonly level: NoticeLevel;
  readonly message: string;
  readonly code?: NoticeCode;
}

/** Where log lines go, on either side. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export type LogLevel = keyof Logger;

/** How a worker's first session opens (see `ensureSession`). */
export interface SessionStart {
  readonly resume?: string;
  readonly open?: string;
  readonly fresh?: boolean;
}

/** Requests the main thread sends; each gets exactly one reply (or an error reply). The commands of `COMMANDS` are requests too, declared there. */
export interface WorkerRequests extends CommandRequests {
  /** Sets or replaces the configuration; the next session opened uses it. */
  readonly configure: { readonly params: WorkerConfig; readonly result: null };
  /** Opens the session (loading Pi) unless it is open: `resume` reopens a file quietly (after a fault); `open` shows a saved session; `fresh` starts empty; none continues the most recent. */
  readonly ensureSession: { readonly params: SessionStart; readonly result: { readonly ok: boolean } };
  /** Resolves when Pi has taken the text (a prompt runs on; its progress arrives as events). */
  readonly send: { readonly params: { readonly text: string; readonly mode: SendMode; readonly images?: readonly ImageAttachment[] }; readonly result: null };
  readonly cancel: { readonly params: null; readonly result: null };
  /** Reopens the session with `config` when idle; false when a run is active (try again later). */
  readonly reload: { readonly params: WorkerConfig; readonly result: { readonly reloaded: boolean } };
  readonly forceIdle: { readonly params: null; readonly result: null };
  /**
   * Up to `count` rows of the worker's transcript with ids below `before`: those the main thread does not
   * hold (a replayed history it got as a snapshot, rows it let go of to stay small). Always a page (maybe
   * empty): the main thread drops one for a transcript replaced since it asked.
   */
  readonly earlierRows: { readonly params: { readonly before: number; readonly count: number }; readonly result: { readonly page?: EarlierPage } };
  /** Find in chat: the rows of the worker's whole transcript holding `query`, ignoring case. */
  readonly findRows: { readonly params: { readonly query: string }; readonly result: FindResult };
  /**
   * The worker is about to be ended on purpose: the queue goes back to the composer, the run is aborted and
   * settles (at most `settleMs`) so Pi saves the partial reply, then Pi's extensions get `session_shutdown`
   * (at most `extensionsMs`). Answered when done; the worker takes no more work after it.
   */
  readonly shutdown: { readonly params: { readonly settleMs: number; readonly extensionsMs: number }; readonly result: null };
  /** Answers as soon as the worker's event loop is free: proof of life. */
  readonly ping: { readonly params: null; readonly result: null };
}

/** A question of Pi's sign-in flow, for an input box or a quick pick on the main thread. */
export type AuthPromptView =
  | { readonly type: 'text' | 'secret' | 'manual_code'; readonly message: string; readonly placeholder?: string }
  | {
      readonly type: 'select';
      readonly message: string;
      readonly options: readonly { readonly id: string; readonly label: string; readonly description?: string }[];
    };

/** Something Pi's sign-in flow tells the user: a page to open, a code to enter there, progress. */
export type AuthEventView =
  | { readonly type: 'auth_url'; readonly url: string; readonly instructions?: string }
  | { readonly type: 'device_code'; readonly userCode: string; readonly verificationUri: string }
  | { readonly type: 'info' | 'progress'; readonly message: string };

/** A sign-in's question (answer with `authAnswer`), a question withdrawn (the browser answered first), or news. */
export type AuthNotice =
  | { readonly kind: 'prompt'; readonly id: string; readonly prompt: AuthPromptView }
  | { readonly kind: 'withdraw'; readonly id: string }
  | { readonly kind: 'event'; readonly event: AuthEventView };

/** Notifications the worker sends, in the order things happened (events are batched one frame at most). */
export interface WorkerNotifications {
  readonly events: { readonly events: readonly WireEvent[] };
  /**
   * A replayed history: the transcript is now `state` (its newest rows), after `earlier` rows the main
   * thread asks for with `earlierRows`. Sent in order with the events.
   */
  readonly snapshot: { readonly state: TranscriptState; readonly earlier: number };
  readonly session: { readonly info: SessionInfoView; readonly sessionFile?: string };
  /** Texts (and images) that did not reach Pi: they go back to the composer. */
  readonly restoreInput: RestoredInput;
  /** The composer's text becomes this (an edited message to resend). */
  readonly setInput: { readonly text: string };
  readonly notify: UserNotification;
  readonly log: { readonly level: LogLevel; readonly message: string };
  /** What Pi's extensions show outside the transcript: status-bar items, the view's title, the composer's text. */
  readonly extensionUi: ExtensionUiNotice;
  /** "Always allow" on an approval card: the main thread saves this allow rule in the user's `piPanel.approvalRules`. */
  readonly saveApprovalRule: { readonly tool: string; readonly match?: string };
  /** Pi's sign-in flow asks or tells the user something. */
  readonly auth: AuthNotice;
}

/** An extension's request for a VS Code surface (dialogs and widgets travel as wire events instead). */
export type ExtensionUiNotice =
  /** `setStatus`: one status-bar item per key; no `text` removes it. */
  | { readonly kind: 'status'; readonly key: string; readonly text?: string }
  /** A session is about to bind its extensions: status items and the title the last one set are removed. */
  | { readonly kind: 'reset' }
  /** `setTitle`: the chat view's title. */
  | { readonly kind: 'title'; readonly title: string }
  /** Pi's extensions are bound to the panel (count > 0): only then does the composer's text need to reach the worker. */
  | { readonly kind: 'bound'; readonly count: number }
  /** `setEditorText` (replace) or `pasteToEditor` (insert at the cursor). */
  | { readonly kind: 'editorText'; readonly text: string; readonly paste: boolean };

/** A VS Code tool's answer: the text the model reads. */
export interface VscodeToolAnswer {
  readonly text: string;
  readonly isError?: boolean;
  /** A rename's plan: the absolute paths of the files it will change (recorded before they change). */
  readonly files?: readonly string[];
}

/** Requests the worker sends the extension host, which answers them with the VS Code API. */
export interface HostRequests {
  /**
   * Runs a VS Code tool. `vscode_rename` comes in two steps with the same `id`: `plan` computes the rename and
   * names its files, `apply` applies and saves it (the worker records the files' content in between).
   */
  readonly vscodeTool: {
    readonly params: { readonly tool: VscodeToolName; readonly args: unknown; readonly id: string; readonly step?: 'plan' | 'apply' };
    readonly result: VscodeToolAnswer;
  };
  /**
   * Diagnostics around a change of `paths` (absolute): `before` notes their errors now (opening the files for the
   * language servers); `after` waits briefly for the servers and answers the errors that are new since `before`.
   */
  readonly editDiagnostics: {
    readonly params: { readonly step: 'before' | 'after'; readonly id: string; readonly paths: readonly string[] };
    readonly result: { readonly note: string; readonly count: number };
  };
}

export type HostRequestMethod = keyof HostRequests;

export type WorkerRequestMethod = keyof WorkerRequests;
export type WorkerNotificationMethod = keyof WorkerNotifications;
