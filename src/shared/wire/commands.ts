/**
 * The commands the host asks of the Pi worker, each declared once: its name, its payload (checked, when the
 * webview sends it), its answer, when it is sent and how long it may take. The webview's message, the host's
 * parser and routing, the client's request, the worker protocol's entry and the worker's handler registration
 * all follow from this table.
 */

import { isEntryId, MAX_DENY_REASON_CHARS, MAX_PROMPT_CHARS } from './limits.ts';
import { QUEUE_OPS, type QueueEdit } from '../queueEdit.ts';
import type { ModelCatalog, ModelScope, ProviderView } from '../modelCatalog.ts';
import type { PlanView } from '../plan.ts';
import type { SessionPage, TreeNodeView } from '../sessions.ts';
import type { SlashCommand } from '../slashCommands.ts';
import type { FileBefore, LoginResult, McpServerView, ModelChoice, SessionChoice } from './answers.ts';

/** A checked payload, or why it was refused. */
export type Parsed<T> = { ok: true; msg: T } | { ok: false; reason: string };

/** When a request is sent. */
export type SendWhen =
  /** Only to a worker running now; none is started for it, and without one it is not sent. */
  | 'running'
  /** At once, starting a worker if none runs: the worker itself waits for its session where it needs one. */
  | 'now'
  /** Once the session has opened or failed to (starting a worker if need be): it replaces the session anyway. */
  | 'opened'
  /** Only once the session is open; not sent when it could not open. */
  | 'ready';

/** How one request is sent. */
export interface RequestRule {
  readonly when: SendWhen;
  /** `short`: given up after the client's request timeout. `none`: as long as it takes (a run, Pi loading, a file written). */
  readonly timeout: 'short' | 'none';
  /** `report`: a failure becomes a notice in the transcript and the caller gets nothing. `throw`: the caller handles it. */
  readonly failure: 'report' | 'throw';
  /** It may move off or replace the open session: a worker started after a fault does not reopen the file it was in. */
  readonly movesSession?: boolean;
}

/** A type carried by a table entry for the compiler only: a payload or an answer. */
export interface Carries<T> {
  /** Never called: only its type counts. */
  readonly carries: () => T;
}

/** Declares a payload or an answer's type in the table (the value does nothing at run time). */
const carries = <T>(): Carries<T> => ({ carries: () => undefined as T });

/**
 * One command and how it is sent. `check`: the webview may send it, and this checks its payload (`null`: it has
 * none). `params`: only the host sends it, with this payload. `result`: what the worker answers (absent: `null`).
 */
export interface CommandSpec<P, R = unknown> extends RequestRule {
  /** `name` is the command's, for the reason a payload was refused. */
  readonly check?: (raw: Readonly<Record<string, unknown>>, name: string) => Parsed<P>;
  readonly params?: Carries<P>;
  readonly result?: Carries<R>;
}

/** A user message, named by the id of its session entry in Pi's file (its row carries it): never by a position. */
export interface UserEntry {
  readonly entryId: string;
}

const userEntry = (raw: Readonly<Record<string, unknown>>, name: string): Parsed<UserEntry> => {
  if (!isEntryId(raw.entryId)) return { ok: false, reason: `${name}.entryId is not an entry id` };
  return { ok: true, msg: { entryId: raw.entryId } };
};

const none = (): Parsed<null> => ({ ok: true, msg: null });

const isText = (v: unknown): v is string => typeof v === 'string' && v.length <= MAX_PROMPT_CHARS;

const shellCommand = (raw: Readonly<Record<string, unknown>>, name: string): Parsed<{ readonly command: string; readonly excluded: boolean }> => {
  if (!isText(raw.command) || !raw.command.trim()) return { ok: false, reason: `${name}.command is not a non-empty string of sensible length` };
  return { ok: true, msg: { command: raw.command, excluded: raw.excluded === true } };
};

const text = (raw: Readonly<Record<string, unknown>>, name: string): Parsed<{ readonly text: string }> => {
  if (!isText(raw.text)) return { ok: false, reason: `${name}.text is not a string of sensible length` };
  return { ok: true, msg: { text: raw.text } };
};

const queueEdit = (raw: Readonly<Record<string, unknown>>, name: string): Parsed<QueueEdit> => {
  if (raw.queue !== 'steering' && raw.queue !== 'followUp') return { ok: false, reason: `${name}.queue is not steering or followUp` };
  if (typeof raw.index !== 'number' || !Number.isSafeInteger(raw.index) || raw.index < 0) return { ok: false, reason: `${name}.index is not a position` };
  if (!isText(raw.text)) return { ok: false, reason: `${name}.text is not a string of sensible length` };
  if (typeof raw.op !== 'string' || !(QUEUE_OPS as readonly string[]).includes(raw.op)) return { ok: false, reason: `${name}.op is not a queue edit` };
  if (raw.op === 'edit' && (!isText(raw.newText) || !raw.newText.trim()))
    return { ok: false, reason: `${name}.newText is not a non-empty string of sensible length` };
  const op = raw.op as QueueEdit['op'];
  return { ok: true, msg: { queue: raw.queue, index: raw.index, text: raw.text, op, ...(op === 'edit' ? { newText: raw.newText as string } : {}) } };
};

const dialogAnswer = (
  raw: Readonly<Record<string, unknown>>,
  name: string,
): Parsed<{ readonly id: string; readonly value?: string; readonly reason?: string }> => {
  if (typeof raw.id !== 'string' || raw.id.length > 200) return { ok: false, reason: `${name}.id is not a short string` };
  if (raw.value !== undefined && !isText(raw.value)) return { ok: false, reason: `${name}.value is not a string of sensible length` };
  if (raw.reason !== undefined && (typeof raw.reason !== 'string' || raw.reason.length > MAX_DENY_REASON_CHARS))
    return { ok: false, reason: `${name}.reason is not a string of sensible length` };
  // A reason goes only with an answer (Deny's): a dismissed dialog has none.
  return {
    ok: true,
    msg: {
      id: raw.id,
      ...(raw.value === undefined ? {} : { value: raw.value }),
      ...(raw.reason === undefined || raw.value === undefined ? {} : { reason: raw.reason }),
    },
  };
};

/** Every command the host sends the worker: those with a `check` the webview sends too, through the host untouched. */
export const COMMANDS = {
  /** "Edit and resend": the session moves back to before that user message and its text goes to the composer. */
  editResend: { check: userEntry, when: 'opened', timeout: 'none', failure: 'report', movesSession: true },
  /** A new session file with the branch up to the end of that user message's exchange. */
  forkHere: { check: userEntry, when: 'opened', timeout: 'none', failure: 'report', movesSession: true },
  /** Restore at a user message: asks (code, conversation or both, in the chat's card), then restores. */
  restore: { check: userEntry, when: 'opened', timeout: 'none', failure: 'report', movesSession: true },
  /** Undoes the last restore (its files and the conversation's place). */
  undoRestore: { check: none, when: 'opened', timeout: 'none', failure: 'report' },
  /** Starts an empty session (the old one stays on disk). */
  newSession: { check: none, when: 'opened', timeout: 'none', failure: 'report', movesSession: true },
  /** Sends the last prompt again (after a provider error or a stalled run); a run takes as long as Pi does. */
  retryLast: { check: none, when: 'ready', timeout: 'none', failure: 'report' },
  /** `!command` (`excluded`: `!!command`, kept out of the model's context), run in Pi's shell; output streams as events. */
  bash: { check: shellCommand, when: 'ready', timeout: 'none', failure: 'report' },
  /** The composer's text, which an extension's `getEditorText()` returns; only a running worker needs it. */
  composerText: { check: text, when: 'running', timeout: 'short', failure: 'report' },
  /** Drop from context: a tool result (by its session entry) is replaced by a short placeholder in what the model sees. */
  dropFromContext: { check: userEntry, when: 'ready', timeout: 'short', failure: 'report' },
  /** Edit, remove, move or send now one queued steer or follow-up (the queue strip's buttons); only a running worker has a queue. */
  editQueue: { check: queueEdit, when: 'running', timeout: 'short', failure: 'report' },
  /** Moves to an entry of the session's tree (the tree view's buttons; any entry, checked as a user message's id is); the host shows the tree again after. */
  navigateTree: { check: userEntry, when: 'opened', timeout: 'none', failure: 'report', movesSession: true },
  /** The user's answer to an extension dialog (no `value` dismisses it); false when it was no longer open. Only a running worker has one open. */
  answerDialog: { check: dialogAnswer, result: carries<{ readonly answered: boolean }>(), when: 'running', timeout: 'short', failure: 'report' },

  // Only the host sends these: the palette's commands and the pickers. A run (compaction) takes as long as Pi does.
  compact: { params: carries<null>(), when: 'ready', timeout: 'none', failure: 'report' },
  /** `/compact [instructions]`: manual compaction with the user's instructions. */
  compactWith: { params: carries<{ readonly instructions: string }>(), when: 'ready', timeout: 'none', failure: 'report' },
  /** Pi's commands for the slash menu: extension commands, prompt templates, skills (as Pi lists them for RPC clients). */
  listCommands: {
    params: carries<null>(),
    result: carries<{ readonly commands: readonly SlashCommand[] }>(),
    when: 'ready',
    timeout: 'short',
    failure: 'report',
  },
  /** `/name <title>`: names the session. */
  setSessionName: { params: carries<{ readonly name: string }>(), when: 'ready', timeout: 'short', failure: 'report' },
  /** Turns plan mode on or off (toggles it without `on`); the plan state after. */
  setPlanMode: {
    params: carries<{ readonly on?: boolean }>(),
    result: carries<{ readonly plan: PlanView }>(),
    when: 'ready',
    timeout: 'short',
    failure: 'report',
  },
  /** Leaves plan mode, tracks `text`'s items as the checklist and sends the plan to Pi as the next prompt, with full tools. */
  actOnPlan: { params: carries<{ readonly text: string }>(), when: 'ready', timeout: 'none', failure: 'report' },
  listModels: {
    params: carries<null>(),
    result: carries<{ readonly models: readonly ModelChoice[]; readonly current?: string }>(),
    when: 'ready',
    timeout: 'short',
    failure: 'throw',
  },
  thinkingLevels: {
    params: carries<null>(),
    result: carries<{ readonly levels: readonly string[]; readonly current?: string }>(),
    when: 'ready',
    timeout: 'short',
    failure: 'throw',
  },
  /** The content of a file before the current or last run changed it; none when no run touched it. */
  fileBefore: {
    params: carries<{ readonly path: string; readonly runId?: string }>(),
    result: carries<{ readonly before?: FileBefore }>(),
    when: 'ready',
    timeout: 'short',
    failure: 'throw',
  },
  /** Undoes the last run's change to `path`, or to all its files. It may ask in the chat's card first (files changed after the run): no timeout. */
  undo: {
    params: carries<{ readonly path?: string; readonly runId?: string }>(),
    result: carries<{ readonly ok: boolean; readonly message: string }>(),
    when: 'ready',
    timeout: 'none',
    failure: 'throw',
  },
  // These replace the session: sent once the session attempt is over, whatever its outcome.
  resumeSession: { params: carries<{ readonly file: string }>(), when: 'opened', timeout: 'none', failure: 'report', movesSession: true },
  /** Copies a JSONL session file into the workspace's sessions and opens it. */
  importSession: { params: carries<{ readonly file: string }>(), when: 'opened', timeout: 'none', failure: 'report', movesSession: true },
  /** Deletes the workspace's checkpoints (Pi: Clear Checkpoints); says how much space it freed. */
  clearCheckpoints: { params: carries<null>(), result: carries<{ readonly message: string }>(), when: 'opened', timeout: 'none', failure: 'report' },
  // At once: what a picker or a command asks, the worker waiting for its session where it needs one. Exports and the tree take what they take.
  setModel: { params: carries<{ readonly provider: string; readonly id: string }>(), when: 'now', timeout: 'short', failure: 'throw' },
  setThinkingLevel: { params: carries<{ readonly level: string }>(), when: 'now', timeout: 'short', failure: 'throw' },
  listSessions: {
    params: carries<null>(),
    result: carries<{ readonly sessions: readonly SessionChoice[] }>(),
    when: 'now',
    timeout: 'short',
    failure: 'throw',
  },
  /** A page of the workspace's saved sessions matching `query`. */
  sessionPage: {
    params: carries<{ readonly query: string; readonly offset: number; readonly limit?: number }>(),
    result: carries<SessionPage>(),
    when: 'now',
    timeout: 'short',
    failure: 'throw',
  },
  /** Names a saved session; without `file`, or with the open one's, the open session. */
  renameSession: { params: carries<{ readonly file?: string; readonly name: string }>(), when: 'now', timeout: 'short', failure: 'throw' },
  /** The text of the last assistant answer, if any. */
  lastAnswer: { params: carries<null>(), result: carries<{ readonly text?: string }>(), when: 'now', timeout: 'short', failure: 'throw' },
  sessionTree: { params: carries<null>(), result: carries<{ readonly nodes: readonly TreeNodeView[] }>(), when: 'now', timeout: 'none', failure: 'throw' },
  /** A question of the panel's own (a worktree chat's Apply or Discard) in the chat's dialog card; no `answer`: dismissed. The user answers when they like. */
  askPanel: {
    params: carries<{ readonly title: string; readonly message: string; readonly options: readonly string[] }>(),
    result: carries<{ readonly answer?: string }>(),
    when: 'now',
    timeout: 'none',
    failure: 'throw',
  },
  exportHtml: { params: carries<{ readonly file: string }>(), result: carries<{ readonly file: string }>(), when: 'now', timeout: 'none', failure: 'throw' },
  exportJsonl: { params: carries<{ readonly file: string }>(), result: carries<{ readonly file: string }>(), when: 'now', timeout: 'none', failure: 'throw' },
  /**
   * Signs in to a provider through Pi (`oauth`: its account flow; `api_key`: a key), storing the credential in Pi's
   * auth.json; the flow's questions arrive as `auth` notifications, answered with `authAnswer`. It waits on the user.
   */
  login: {
    params: carries<{ readonly provider: string; readonly type: 'oauth' | 'api_key' }>(),
    result: carries<LoginResult>(),
    when: 'now',
    timeout: 'none',
    failure: 'throw',
  },
  /** The user's answer to an `auth` prompt; none cancels the sign-in. The value is a secret: it is never logged. */
  authAnswer: { params: carries<{ readonly id: string; readonly value?: string }>(), when: 'running', timeout: 'short', failure: 'throw' },
  /** Adds a custom OpenAI-compatible endpoint to models.json, then asks its key (as `login` does). */
  addCustomProvider: {
    params: carries<{ readonly baseUrl: string; readonly modelId: string }>(),
    result: carries<LoginResult>(),
    when: 'now',
    timeout: 'none',
    failure: 'throw',
  },
  /** Removes the provider's stored credential (Pi's `/logout`). */
  logout: { params: carries<{ readonly provider: string }>(), when: 'now', timeout: 'short', failure: 'throw' },
  /** The models with credentials, the session's, and the providers signed in (favourites and recent are the host's). */
  modelCatalog: { params: carries<null>(), result: carries<ModelCatalog>(), when: 'now', timeout: 'short', failure: 'throw' },
  /** The providers Pi can sign in to or take a key for (Pi: Sign In or Add a Model Provider). */
  providers: { params: carries<null>(), result: carries<{ readonly providers: readonly ProviderView[] }>(), when: 'now', timeout: 'short', failure: 'throw' },
  /** The MCP servers Pi knows (user and project), with their state and tools. */
  mcpServers: { params: carries<null>(), result: carries<{ readonly servers: readonly McpServerView[] }>(), when: 'now', timeout: 'short', failure: 'throw' },
  /** Enables or disables an MCP server where Pi reads it (`inProject`: a project override), then reopens the session so it applies. */
  setMcpEnabled: {
    params: carries<{ readonly name: string; readonly enabled: boolean; readonly inProject: boolean }>(),
    when: 'now',
    timeout: 'none',
    failure: 'throw',
  },
  /** Reconnects every MCP server: the session opens again (idle only), as Pi's /reload. */
  restartMcp: { params: carries<null>(), result: carries<{ readonly reloaded: boolean }>(), when: 'now', timeout: 'none', failure: 'throw' },
  /** Reconnects one MCP server through Pi's manager (`/mcp reconnect`); `failure`: why it did not connect. */
  reconnectMcp: {
    params: carries<{ readonly name: string }>(),
    result: carries<{ readonly failure?: string }>(),
    when: 'now',
    timeout: 'none',
    failure: 'throw',
  },
  /** Signs in to an OAuth MCP server through Pi's manager (`/mcp login`): the page opens as an `auth` notice, questions come as the chat's dialogs. */
  signInMcp: { params: carries<{ readonly name: string }>(), result: carries<{ readonly failure?: string }>(), when: 'now', timeout: 'none', failure: 'throw' },
  /** Sets the model for this chat (`chat`) or as Pi's default for new sessions (`default`, also this chat). */
  pickModel: { params: carries<{ readonly model: string; readonly scope: ModelScope }>(), when: 'now', timeout: 'short', failure: 'throw' },
} as const satisfies { readonly [name: string]: CommandSpec<unknown> };

/** A command's name. */
export type CommandName = keyof typeof COMMANDS;

/** A command the webview may send (its entry has a `check`). */
export type ViewCommandName = { [K in CommandName]: (typeof COMMANDS)[K] extends { readonly check: unknown } ? K : never }[CommandName];

/** A command's payload (`null`: none). */
export type CommandParams<K extends CommandName> = (typeof COMMANDS)[K] extends { readonly check: (...args: never[]) => Parsed<infer P> }
  ? P
  : (typeof COMMANDS)[K] extends { readonly params: Carries<infer P> }
    ? P
    : never;

/** What the worker answers a command with (`null`: only that it is done). */
export type CommandResult<K extends CommandName> = (typeof COMMANDS)[K] extends { readonly result: Carries<infer R> } ? R : null;

/** The commands as requests of the worker protocol. */
export type CommandRequests = { readonly [K in CommandName]: { readonly params: CommandParams<K>; readonly result: CommandResult<K> } };

/** The webview's commands as its messages: the type is the name, the payload's fields beside it. */
export type CommandMessage = { [K in ViewCommandName]: { readonly type: K } & (CommandParams<K> extends null ? unknown : CommandParams<K>) }[ViewCommandName];

/** A webview's command with its payload, as the host passes it on. */
export type Command = { [K in ViewCommandName]: { readonly name: K; readonly params: CommandParams<K> } }[ViewCommandName];

/** The worker's handlers of commands `K`: the part that does a command registers it; one answered with `null` may return nothing. */
export type CommandHandlers<K extends CommandName = CommandName> = {
  readonly [M in K]: (params: CommandParams<M>) => Promise<CommandResult<M> extends null ? void : CommandResult<M>>;
};

/** Whether `type` names a command the webview may send (an own key only: `constructor` is none). */
export function isViewCommand(type: string): type is ViewCommandName {
  return Object.hasOwn(COMMANDS, type) && 'check' in COMMANDS[type as CommandName];
}

/** Whether a checked message from the webview is a command the host passes on. */
export function isCommandMessage<T extends { readonly type: string }>(msg: T): msg is Extract<T, CommandMessage> {
  return isViewCommand(msg.type);
}

/** Checks a webview command's payload; the message, or why it was refused. */
export function parseCommand(name: ViewCommandName, raw: Readonly<Record<string, unknown>>): Parsed<CommandMessage> {
  const checked = (COMMANDS[name] as CommandSpec<object | null>).check!(raw, name);
  if (!checked.ok) return checked;
  return { ok: true, msg: { type: name, ...checked.msg } as CommandMessage };
}

/** The command a message from the webview asks for, its payload without the message's `type`. */
export function commandOf(msg: CommandMessage): Command {
  const { type, ...params } = msg;
  return { name: type, params: COMMANDS[type].check === none ? null : params } as Command;
}
