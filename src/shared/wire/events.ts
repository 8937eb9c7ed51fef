/** The wire's event vocabulary: what happened in the session, as the worker projects it and both reducers read it. */

import type { ImageView } from '../images.ts';
import type { PlanView } from '../plan.ts';

/** What kind of content a block of an assistant message holds. */
export type BlockKind = 'text' | 'thinking' | 'toolCall';

/** Why an assistant message stopped, as Pi reports it. */
export type StopReason = 'stop' | 'length' | 'toolUse' | 'aborted' | 'error' | 'deferred' | 'pending';

/** Why Pi compacts: asked for, over its threshold, or the context overflowed. */
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
  /** `cost` is what the provider billed (Pi's `totalFromProvider`); absent: the model catalog's estimate. */
  readonly billed?: true;
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
  /**
   * `images` counts the message's image blocks; `media` shows them (absent when there are none). `entryId`: the
   * id of Pi's session entry for the message, which restores and tree moves name it by (absent until Pi wrote it).
   */
  | {
      readonly type: 'userMessage';
      readonly text: string;
      readonly images: number;
      readonly media?: readonly ImageView[];
      readonly rowId?: RowId;
      readonly entryId?: string;
    }
  /** Pi wrote the user message of row `rowId` to the session as entry `entryId` (a live prompt's row has none before). */
  | { readonly type: 'userEntry'; readonly rowId: RowId; readonly entryId: string }
  /** `markdown`: the text is Markdown (an extension's `sendMessage`); `label`: its `customType`, shown as `[label]`. */
  | {
      readonly type: 'noticeMessage';
      readonly level: NoticeLevel;
      readonly text: string;
      readonly code?: NoticeCode;
      readonly label?: string;
      readonly markdown?: boolean;
      readonly rowId?: RowId;
    }
  | { readonly type: 'assistantStart'; readonly at: number; readonly rowId?: RowId }
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
      readonly rowId?: RowId;
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
  /** Plan mode of the session: on or off, the plan to act on, the checklist (whole, not a delta). */
  | { readonly type: 'plan'; readonly plan: PlanView }
  | { readonly type: 'cancelRequested'; readonly at: number }
  /** A prompt waits for Pi to load and the session to open (`on`), or no longer does. */
  | { readonly type: 'starting'; readonly on: boolean; readonly at: number }
  /** Nothing from Pi since `since` (epoch ms) while a run is active. */
  | { readonly type: 'stalled'; readonly at: number; readonly since: number }
  | { readonly type: 'reset' }
  /** The files a run changed (sent when it settles, again after an Undo, and after a reload for the last run). */
  /**
   * `replace`: the worker updated the run's row it holds (`rowId` names it) rather than adding one; a side
   * that no longer holds it (its window moved on) leaves it. Absent: whatever the side holds.
   */
  | { readonly type: 'changes'; readonly runId: string; readonly files: readonly FileChangeView[]; readonly replace?: boolean; readonly rowId?: RowId }
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
      readonly rowId?: RowId;
    }
  /**
   * Row changes, as the worker computes them from its transcript (see `src/worker/rowChanges.ts`); the main
   * thread and the view only apply them (`applyChanges.ts`), by id. `rev` counts the worker's changes: a row
   * sent whole carries the number of that change. `row`: the whole row (new, or changed in a way a patch does
   * not say); `same` names the blocks whose text the receiver already holds (sent empty, not a second time).
   */
  | { readonly type: 'row'; readonly id: RowId; readonly rev: number; readonly row: WireRow; readonly same?: readonly number[] }
  /**
   * A change of the row `id` the receiver holds, without resending it; its revision is not sent (changes of a
   * row arrive in order on one channel). `text`: appended to block `index` (absent: 0) of the row, the wire's
   * most frequent message (streaming), kept as small as the old delta; `block`: the fields of that block that
   * changed (a block that starts is `{ kind: 'text', text: '', final: false }` until these say otherwise);
   * `set`/`unset`: the row's own fields that changed (a reply that ends: `final`, `stopReason`, `usage`…).
   */
  | {
      readonly type: 'patch';
      readonly id: RowId;
      readonly index?: number;
      readonly text?: string;
      readonly block?: Readonly<Record<string, unknown>>;
      readonly set?: Readonly<Record<string, unknown>>;
      readonly unset?: readonly string[];
    }
  /** Tool cards that are new or changed, whole. */
  | { readonly type: 'cards'; readonly cards: readonly WireCard[] }
  /** Fields of the transcript other than its rows and cards that changed (`set`) or went (`unset`): run, queue, ui, plan… */
  | { readonly type: 'state'; readonly set: Readonly<Record<string, unknown>>; readonly unset?: readonly string[] }
  /**
   * The run state's fields an event the receiver does not get changed (`set`) or removed (`unset`), such as a
   * provider's error. An event sent on (`runStart`, `settled`…) is stepped by each side's run state machine instead.
   */
  | { readonly type: 'run'; readonly set: Readonly<Record<string, unknown>>; readonly unset?: readonly string[] };

/**
 * A row's id, given once by whoever made the row and carried by the event that adds it (`rowId` on a row's
 * event), so no side works it out by counting: the worker numbers its rows 1, 2, 3…; a row only the main
 * thread shows (a notice of its own) takes the next of the slots after the row before it, `n + k / HOST_ROW_SLOTS`,
 * a range no worker row uses (see `hostRowId`). Ids ascend in row order; paging speaks them.
 */
export type RowId = number;

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

/** How serious a notice is. */
export type NoticeLevel = 'info' | 'warning' | 'error';

/**
 * Notices the webview offers an action for. `interrupted`: a reply cut off by a crash or a kill, which Pi never
 * saved (Continue asks Pi to go on from it).
 */
export type NoticeCode =
  | 'noModel'
  | 'noKey'
  | 'promptFailed'
  | 'settleTimeout'
  | 'sessionFailed'
  | 'providerError'
  | 'workerStopped'
  | 'interrupted'
  /** A restore to a checkpoint: the notice offers Undo restore. */
  | 'restored';

/** The dialog kinds Pi's `ExtensionUIContext` offers; each is an inline card in the chat. */
export type DialogKind = 'select' | 'confirm' | 'input' | 'editor';

/** An open extension dialog, as the webview and the notification mirror show it. */
export interface DialogView {
  /** Chosen by the worker; the answer names it. */
  readonly id: string;
  readonly kind: DialogKind;
  readonly title: string;
  /** confirm: the question under the title. */
  readonly message?: string;
  /** select: the choices; confirm: `Yes` / `No`. */
  readonly options?: readonly string[];
  /** input: a hint; editor: the prefilled text. */
  readonly placeholder?: string;
  readonly prefill?: string;
  /** The dialog answers itself as dismissed after this long (Pi's `timeout` option). */
  readonly timeoutMs?: number;
  /** Epoch ms it opened (the countdown is derived from it). */
  readonly at: number;
  /**
   * The panel's own approval (`piPanel.approval`), not an extension's question: answered only in the chat's
   * card, which offers a reason with Deny; the text is shown in full.
   */
  readonly approval?: boolean;
  /** The panel's own question (a restore), not an extension's: shown in full. */
  readonly panel?: boolean;
  /** A restore's card (the panel's own): the files a restore to checkpoint `checkpoint` would change, each with a diff. */
  readonly restore?: { readonly checkpoint: string; readonly files: readonly FileChangeView[] };
}

/** Pi's extensions: dialogs (the run waits for the user), widgets, the working message. */
export type ExtensionUiEvent =
  | { readonly type: 'dialogOpen'; readonly dialog: DialogView }
  /** The dialog is answered, dismissed, timed out or aborted; `outcome` says which, for the log and tests. */
  | { readonly type: 'dialogClose'; readonly id: string; readonly outcome: string }
  | { readonly type: 'widget'; readonly key: string; readonly lines?: readonly string[] }
  /** No `message` restores the default. */
  | { readonly type: 'workingMessage'; readonly message?: string }
  | { readonly type: 'workingVisible'; readonly visible: boolean };

/**
 * A row on the wire: `MessageView` (src/shared/transcript/rows.ts, which this module cannot import without a
 * cycle), without what its change says already: its id (the change's), a block's index (its place) and
 * `final: false` (see `wireRow` and `rowOf` in applyChanges.ts). A row the main thread makes is whole.
 */
export interface WireRow {
  readonly id?: RowId;
  readonly role: string;
}

/** A tool card on the wire: `ToolCardView` (src/shared/transcript/rows.ts). */
export interface WireCard {
  readonly toolCallId: string;
}

/** Every event type this build knows: a type added to `WireEvent` and missing here does not compile. */
const WIRE_EVENT_TYPES: Readonly<Record<WireEvent['type'], true>> = {
  assistantEnd: true,
  assistantStart: true,
  bashEnd: true,
  bashOutput: true,
  bashStart: true,
  blockEnd: true,
  blockStart: true,
  cancelRequested: true,
  changes: true,
  compactionEnd: true,
  compactionStart: true,
  delta: true,
  dialogClose: true,
  dialogOpen: true,
  noticeMessage: true,
  plan: true,
  queue: true,
  reset: true,
  retryEnd: true,
  retryStart: true,
  runEnd: true,
  runStart: true,
  sessionInfo: true,
  settled: true,
  stalled: true,
  starting: true,
  summaryRetry: true,
  thinkingLevel: true,
  toolEnd: true,
  toolResult: true,
  toolStart: true,
  toolUpdate: true,
  turnEnd: true,
  turnStart: true,
  userEntry: true,
  userMessage: true,
  widget: true,
  workingMessage: true,
  row: true,
  patch: true,
  cards: true,
  state: true,
  workingVisible: true,
  run: true,
};

/** Whether `ev` is an event this build knows; a newer producer may send types it does not. */
export function isKnownEvent(ev: { readonly type?: unknown } | null | undefined): boolean {
  return typeof ev?.type === 'string' && Object.hasOwn(WIRE_EVENT_TYPES, ev.type);
}
