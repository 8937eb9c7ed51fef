/**
 * The commands the webview asks of the Pi worker, each declared once: its name, its payload's check, when it
 * is sent and how long it may take. The webview's message, the host's parser and routing, the client's
 * request, the worker protocol's entry and the worker's handler registration all follow from this table.
 */

import { isEntryId, MAX_PROMPT_CHARS } from './limits.ts';
import { QUEUE_OPS, type QueueEdit } from '../queueEdit.ts';

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

/** One command: how its payload is checked (`null`: it has none) and how it is sent; the worker answers it with `null`. */
export interface CommandSpec<P> extends RequestRule {
  /** `name` is the command's, for the reason a payload was refused. */
  readonly check: (raw: Readonly<Record<string, unknown>>, name: string) => Parsed<P>;
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

/** Every command the webview passes through the host to the worker. */
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
} as const satisfies { readonly [name: string]: CommandSpec<unknown> };

/** A command's name. */
export type CommandName = keyof typeof COMMANDS;

/** A command's payload (`null`: none). */
export type CommandParams<K extends CommandName> = (typeof COMMANDS)[K]['check'] extends (...args: never[]) => Parsed<infer P> ? P : never;

/** The commands as requests of the worker protocol. */
export type CommandRequests = { readonly [K in CommandName]: { readonly params: CommandParams<K>; readonly result: null } };

/** The commands as messages from the webview: the type is the name, the payload's fields beside it. */
export type CommandMessage = { [K in CommandName]: { readonly type: K } & (CommandParams<K> extends null ? unknown : CommandParams<K>) }[CommandName];

/** A command with its payload, as the host passes it on. */
export type Command = { [K in CommandName]: { readonly name: K; readonly params: CommandParams<K> } }[CommandName];

/** The worker's handlers of commands `K`: a session's part registers those it does. */
export type CommandHandlers<K extends CommandName = CommandName> = { readonly [M in K]: (params: CommandParams<M>) => Promise<void> };

/** Whether `type` names a command of the table (an own key only: `constructor` is none). */
export function isCommandName(type: string): type is CommandName {
  return Object.hasOwn(COMMANDS, type);
}

/** Whether a checked message from the webview is a command the host passes on. */
export function isCommandMessage<T extends { readonly type: string }>(msg: T): msg is Extract<T, CommandMessage> {
  return isCommandName(msg.type);
}

/** Checks a command's payload; the message, or why it was refused. */
export function parseCommand(name: CommandName, raw: Readonly<Record<string, unknown>>): Parsed<CommandMessage> {
  const checked = (COMMANDS[name] as CommandSpec<object | null>).check(raw, name);
  if (!checked.ok) return checked;
  return { ok: true, msg: { type: name, ...checked.msg } as CommandMessage };
}

/** The command a message from the webview asks for, its payload without the message's `type`. */
export function commandOf(msg: CommandMessage): Command {
  const { type, ...params } = msg;
  return { name: type, params: COMMANDS[type].check === none ? null : params } as Command;
}
