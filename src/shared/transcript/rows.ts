/** The transcript's model: rows, blocks, tool cards and the state both sides render from. */

import type { ImageView } from '../images.ts';
import type { BlockKind, FileChangeView, NoticeCode, NoticeLevel, StopReason, UsageView } from '../wire/events.ts';
import type { RunState } from '../run/runState.ts';
import type { ExtensionUiState } from './dialogsAndWidgets.ts';
import type { PlanView } from '../plan.ts';

/** One content block of a row: text, thinking, or a tool call's arguments. */
export interface BlockView {
  readonly kind: BlockKind;
  readonly index: number;
  /** Text, thinking, or the tool call's arguments as JSON text (possibly incomplete while streaming). */
  readonly text: string;
  readonly final: boolean;
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly startedAt?: number;
  readonly endedAt?: number;
}

/** What every row has: its id, its blocks and whether it is finished. */
interface RowBase {
  /** Named by the event that adds the row (the worker gives its rows theirs, the main thread its own): see `RowId`. */
  readonly id: number;
  /** Sparse by `contentIndex` while streaming; a hole is a block that has not started yet. */
  readonly blocks: readonly (BlockView | undefined)[];
  readonly final: boolean;
}

/** A prompt the user sent (one text block). */
export interface UserRow extends RowBase {
  readonly role: 'user';
  /** How many image blocks the message has. */
  readonly images?: number;
  /** Its image blocks, as the webview draws them. */
  readonly media?: readonly ImageView[];
  /** Pi's session entry of the message: what Edit and resend, Fork and Restore name it by (absent until Pi wrote it). */
  readonly entryId?: string;
}

/** A reply of the model: the only row that streams. */
export interface AssistantRow extends RowBase {
  readonly role: 'assistant';
  readonly stopReason?: StopReason;
  readonly errorMessage?: string;
  readonly usage?: UsageView;
  /** An errored attempt Pi retried: shown as a failed attempt, not as the run's outcome. */
  readonly retried?: boolean;
  readonly startedAt?: number;
  readonly endedAt?: number;
}

/** The result message of a tool call; its card shows the output, the row only what differs from it. */
export interface ToolResultRow extends RowBase {
  readonly role: 'toolResult';
  readonly toolCallId: string;
  readonly toolName: string;
  readonly isError: boolean;
  /** The result's image blocks. */
  readonly media?: readonly ImageView[];
}

/** Something the panel says inline (an error, a warning, a hint); `code` offers an action. */
export interface NoticeRow extends RowBase {
  readonly role: 'notice';
  readonly level: NoticeLevel;
  readonly code?: NoticeCode;
  /** A Pi extension's message (`sendMessage`): its `customType`, shown as `[label]` above it. */
  readonly label?: string;
  /** The text is Markdown (an extension's message), rendered like a reply. */
  readonly markdown?: boolean;
}

/** The files a run changed (no blocks). */
export interface ChangesRow extends RowBase {
  readonly role: 'changes';
  readonly runId: string;
  readonly files: readonly FileChangeView[];
}

/** A finished `!` command: its output is the one block. */
export interface ShellRow extends RowBase {
  readonly role: 'bash';
  readonly command: string;
  readonly exitCode?: number;
  readonly cancelled: boolean;
  /** `!!`: kept out of the model's context. */
  readonly excluded: boolean;
}

/** One row of the transcript, told apart by `role`. */
export type MessageView = UserRow | AssistantRow | ToolResultRow | NoticeRow | ChangesRow | ShellRow;

/** Where a tool call is: streamed but not started, running, or ended. */
export type ToolStatus = 'pending' | 'running' | 'done' | 'error';

/** A tool call's execution, keyed by `toolCallId` alone: parallel calls may share a name. */
export interface ToolCardView {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly args: string;
  readonly status: ToolStatus;
  /** Latest output snapshot while running, the result once done. */
  readonly output: string;
  readonly durationMs?: number;
  readonly startedAt?: number;
  /** The call that made this one (a codemode script's call of another tool): shown inside that card. */
  readonly parentToolCallId?: string;
  /** Calls this one made, in the order they started. */
  readonly children?: readonly string[];
  /** The result's image blocks, once it ended. */
  readonly media?: readonly ImageView[];
}

/** What both sides render from: the rows, the tool cards, the run and the queue. */
export interface TranscriptState {
  /**
   * Every row in order. Built on first read and cached: the reducer keeps finished rows in an append-only
   * store and the streaming one apart, so a delta costs the same at 50,000 rows as at none.
   */
  readonly messages: readonly MessageView[];
  /** Keyed by tool-call ids, which the endpoint chooses: a null-prototype object, read with `toolOf`. */
  readonly tools: Readonly<Record<string, ToolCardView>>;
  readonly run: RunState;
  readonly queue: { readonly steering: readonly string[]; readonly followUp: readonly string[] };
  /** Index into `messages` of the assistant message that is streaming, or -1. */
  readonly openIndex: number;
  readonly nextId: number;
  readonly thinkingLevel?: string;
  readonly sessionName?: string;
  /** What Pi's extensions show: open dialogs, widgets, the working message. */
  readonly ui?: ExtensionUiState;
  /** Plan mode and the plan's checklist (src/shared/plan.ts); absent: off, no plan. */
  readonly plan?: PlanView;
}

/** The tool card of `id`, never a member of `Object.prototype` (ids such as `constructor` or `__proto__` are the endpoint's). */
export function toolOf(tools: Readonly<Record<string, ToolCardView>>, id: string): ToolCardView | undefined {
  return Object.prototype.hasOwnProperty.call(tools, id) ? tools[id] : undefined;
}
