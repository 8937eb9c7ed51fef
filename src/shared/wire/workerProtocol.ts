/**
 * The wire between the extension host's main thread and the Pi worker thread: requests with replies one
 * way, notifications both ways, declared once and imported by both sides. Only plain data crosses.
 */

import type { ImageAttachment } from '../images.ts';
import type { ApprovalRule } from '../approvalRules.ts';
import type { CommandRequests } from './commands.ts';
import type { PlanView } from '../plan.ts';
import type { NoticeCode, NoticeLevel, WireEvent } from './events.ts';
import type { SendMode, SessionInfoView } from './webviewProtocol.ts';
import type { FindResult } from '../transcript/find.ts';
import type { EarlierPage } from '../transcript/paging.ts';
import type { TranscriptState } from '../transcript/rows.ts';
import type { SlashCommand } from '../slashCommands.ts';
import type { SessionPage, TreeNodeView } from '../sessions.ts';
import type { ModelCatalog, ModelScope, ProviderView } from '../modelCatalog.ts';
import type { VscodeToolName } from '../vscodeTools.ts';

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

/** A file's content before a run changed it: text, absent (Pi created it), or not kept and why. */
export type FileBefore = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'absent' } | { readonly kind: 'refused'; readonly reason: string };

/** A model the user may pick. */
export interface ModelChoice {
  readonly provider: string;
  readonly id: string;
  readonly name?: string;
}

/** A saved session of the workspace. */
export interface SessionChoice {
  readonly path: string;
  readonly name?: string;
  readonly firstMessage: string;
  /** Epoch ms. */
  readonly modified: number;
  readonly messageCount: number;
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
  readonly resumeSession: { readonly params: { readonly file: string }; readonly result: null };
  /** Reopens the session with `config` when idle; false when a run is active (try again later). */
  readonly reload: { readonly params: WorkerConfig; readonly result: { readonly reloaded: boolean } };
  readonly forceIdle: { readonly params: null; readonly result: null };
  readonly compact: { readonly params: null; readonly result: null };
  readonly listModels: { readonly params: null; readonly result: { readonly models: readonly ModelChoice[]; readonly current?: string } };
  readonly setModel: { readonly params: { readonly provider: string; readonly id: string }; readonly result: null };
  readonly thinkingLevels: { readonly params: null; readonly result: { readonly levels: readonly string[]; readonly current?: string } };
  readonly setThinkingLevel: { readonly params: { readonly level: string }; readonly result: null };
  readonly listSessions: { readonly params: null; readonly result: { readonly sessions: readonly SessionChoice[] } };
  readonly exportHtml: { readonly params: { readonly file: string }; readonly result: { readonly file: string } };
  /** The content of a file before the current or last run changed it; none when no run touched it. */
  readonly fileBefore: { readonly params: { readonly path: string; readonly runId?: string }; readonly result: { readonly before?: FileBefore } };
  /** Undoes the last run's change to `path`, or to all its files. */
  readonly undo: { readonly params: { readonly path?: string; readonly runId?: string }; readonly result: { readonly ok: boolean; readonly message: string } };
  /** The user's answer to an extension dialog; no `value` dismisses it. False when it was no longer open. */
  readonly answerDialog: {
    readonly params: { readonly id: string; readonly value?: string; readonly reason?: string };
    readonly result: { readonly answered: boolean };
  };
  /** Pi's commands for the slash menu: extension commands, prompt templates, skills (as Pi lists them for RPC clients). */
  readonly listCommands: { readonly params: null; readonly result: { readonly commands: readonly SlashCommand[] } };
  /** `/compact [instructions]`: manual compaction with the user's instructions. */
  readonly compactWith: { readonly params: { readonly instructions: string }; readonly result: null };
  /** `/name <title>`: names the session. */
  readonly setSessionName: { readonly params: { readonly name: string }; readonly result: null };
  /** A page of the workspace's saved sessions matching `query`. */
  readonly sessionPage: { readonly params: { readonly query: string; readonly offset: number; readonly limit?: number }; readonly result: SessionPage };
  /** Copies a JSONL session file into the workspace's sessions and opens it. */
  readonly importSession: { readonly params: { readonly file: string }; readonly result: null };
  readonly navigateTree: { readonly params: { readonly entryId: string }; readonly result: null };
  /** Deletes the workspace's checkpoints (Pi: Clear Checkpoints); says how much space it freed. */
  readonly clearCheckpoints: { readonly params: null; readonly result: { readonly message: string } };
  readonly sessionTree: { readonly params: null; readonly result: { readonly nodes: readonly TreeNodeView[] } };
  /** Names a saved session; without `file`, or with the open one's, the open session. */
  readonly renameSession: { readonly params: { readonly file?: string; readonly name: string }; readonly result: null };
  readonly exportJsonl: { readonly params: { readonly file: string }; readonly result: { readonly file: string } };
  /** The text of the last assistant answer, if any. */
  readonly lastAnswer: { readonly params: null; readonly result: { readonly text?: string } };
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
  /** Turns plan mode on or off (toggles it without `on`); the plan state after. */
  readonly setPlanMode: { readonly params: { readonly on?: boolean }; readonly result: { readonly plan: PlanView } };
  /** Leaves plan mode, tracks `text`'s items as the checklist and sends the plan to Pi as the next prompt, with full tools. */
  readonly actOnPlan: { readonly params: { readonly text: string }; readonly result: null };
  /** A question of the panel's own (a worktree chat's Apply or Discard) in the chat's dialog card; no `answer`: dismissed. */
  readonly askPanel: {
    readonly params: { readonly title: string; readonly message: string; readonly options: readonly string[] };
    readonly result: { readonly answer?: string };
  };
  /** Answers as soon as the worker's event loop is free: proof of life. */
  readonly ping: { readonly params: null; readonly result: null };
  /**
   * Signs in to a provider through Pi (`oauth`: its account flow; `api_key`: a key), storing the credential in Pi's
   * auth.json; the flow's questions arrive as `auth` notifications, answered with `authAnswer`. `ok: false` says why.
   */
  readonly login: { readonly params: { readonly provider: string; readonly type: 'oauth' | 'api_key' }; readonly result: LoginResult };
  /** The user's answer to an `auth` prompt; none cancels the sign-in. The value is a secret: it is never logged. */
  readonly authAnswer: { readonly params: { readonly id: string; readonly value?: string }; readonly result: null };
  /** Adds a custom OpenAI-compatible endpoint to models.json, then asks its key (as `login` does). */
  readonly addCustomProvider: { readonly params: { readonly baseUrl: string; readonly modelId: string }; readonly result: LoginResult };
  /** Removes the provider's stored credential (Pi's `/logout`). */
  readonly logout: { readonly params: { readonly provider: string }; readonly result: null };
  /** The models with credentials, the session's, and the providers signed in (favourites and recent are the host's). */
  readonly modelCatalog: { readonly params: null; readonly result: ModelCatalog };
  /** The providers Pi can sign in to or take a key for (Pi: Sign In or Add a Model Provider). */
  readonly providers: { readonly params: null; readonly result: { readonly providers: readonly ProviderView[] } };
  /** The MCP servers Pi knows (user and project), with their state and tools. */
  readonly mcpServers: { readonly params: null; readonly result: { readonly servers: readonly McpServerView[] } };
  /** Enables or disables an MCP server where Pi reads it (`inProject`: a project override), then reopens the session so it applies. */
  readonly setMcpEnabled: { readonly params: { readonly name: string; readonly enabled: boolean; readonly inProject: boolean }; readonly result: null };
  /** Reconnects every MCP server: the session opens again (idle only), as Pi's /reload. */
  readonly restartMcp: { readonly params: null; readonly result: { readonly reloaded: boolean } };
  /** Reconnects one MCP server through Pi's manager (`/mcp reconnect`); `failure`: why it did not connect. */
  readonly reconnectMcp: { readonly params: { readonly name: string }; readonly result: { readonly failure?: string } };
  /** Signs in to an OAuth MCP server through Pi's manager (`/mcp login`): the page opens as an `auth` notice, questions come as the chat's dialogs. */
  readonly signInMcp: { readonly params: { readonly name: string }; readonly result: { readonly failure?: string } };
  /** Sets the model for this chat (`chat`) or as Pi's default for new sessions (`default`, also this chat). */
  readonly pickModel: { readonly params: { readonly model: string; readonly scope: ModelScope }; readonly result: null };
}

/**
 * An MCP server as the MCP servers view shows it, its state from Pi's MCP manager where Pi reports it. `restricted`: not
 * started in Restricted Mode; `notConnected`: Pi's manager is not there to ask (an extension replaced `/mcp`) and the
 * session has none of its tools; `extension`: a server an extension registered (`pi.registerMcpServer`).
 */
export interface McpServerView {
  readonly name: string;
  readonly source: 'user' | 'project' | 'extension';
  readonly state: 'connected' | 'connecting' | 'needsSignIn' | 'failed' | 'disconnected' | 'notConnected' | 'disabled' | 'restricted';
  readonly tools: readonly string[];
  /** The project's `.pi/mcp.json` switches this user-level server on or off. */
  readonly overriddenInProject: boolean;
  /** Pi's connection error (a failed server). */
  readonly error?: string;
  /** An HTTP server that signs in with OAuth (no Authorization header of its own). */
  readonly oauth?: boolean;
}

/** How a sign-in ended: `cancelled` when the user closed a question half way. */
export type LoginResult = { readonly ok: true; readonly name: string } | { readonly ok: false; readonly cancelled?: boolean; readonly message: string };

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
