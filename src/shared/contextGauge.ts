/** What fills the model's context window, as the header's gauge and its breakdown show it (computed in the worker). */

/** The parts of the context, in the order the breakdown lists them (`data-part`). */
export const CONTEXT_PARTS = ['system', 'tools', 'messages', 'toolResults', 'images', 'free'] as const;

/** One part of the context. */
export type ContextPartName = (typeof CONTEXT_PARTS)[number];

/** A part's size. */
export interface ContextPartView {
  readonly part: ContextPartName;
  readonly tokens: number;
  /** Its share of the context window, 0–100. */
  readonly share: number;
  /** Counted from characters (Pi's chars/4 estimate), not from the provider's usage. */
  readonly estimated: boolean;
}

/** A large tool result the user may drop from what the model sees. */
export interface ContextItemView {
  /** The tool result's session entry (the context edit's target). */
  readonly entryId: string;
  /** Its tool card in the transcript. */
  readonly toolCallId: string;
  readonly toolName: string;
  /** Estimated (chars/4). */
  readonly tokens: number;
}

/** Tokens and cost of one reply or of the session. */
export interface CostView {
  /** Dollars. */
  readonly cost: number;
  /** The provider reported the cost it billed (`totalFromProvider`) for every reply counted; otherwise it is the catalog's estimate. */
  readonly billed: boolean;
}

/** The last reply's usage. */
export interface ReplyUsageView extends CostView {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
}

/** When Pi compacts on its own, and what compaction keeps. */
export interface CompactionView {
  readonly enabled: boolean;
  /** Pi compacts once the context passes this many tokens (the window less `reserveTokens`). */
  readonly threshold: number;
  /** How many tokens of the newest messages compaction keeps word for word. */
  readonly keepRecentTokens: number;
  /** The context is close enough to `threshold` to warn (or past it). */
  readonly near: boolean;
}

/** The breakdown of the open session's context. */
export interface ContextBreakdownView {
  readonly contextWindow: number;
  /** Tokens in use as Pi counts them (`getContextUsage`); absent when Pi does not know yet (right after compaction). */
  readonly used?: number;
  /** `used` includes Pi's chars/4 estimate of messages after the last reply, or is all estimate. */
  readonly usedEstimated: boolean;
  /** Every part of `CONTEXT_PARTS`, in that order. */
  readonly parts: readonly ContextPartView[];
  /** The largest tool results still in the context, largest first (at most five). */
  readonly largest: readonly ContextItemView[];
  /** Tool calls whose results the user dropped from the context (on this branch). */
  readonly dropped: readonly string[];
  /** Pi's session can edit the context (`appendContextEdit`): Drop from context is offered only then. */
  readonly canDrop: boolean;
  readonly lastReply?: ReplyUsageView;
  /** Every reply of the session file, compacted ones included. */
  readonly session: CostView;
  readonly compaction?: CompactionView;
}

/** What replaces a dropped tool result in the model's context (the model reads it, so it is English). */
export function droppedPlaceholder(tokens: number): string {
  return `[dropped from context by the user: ${tokens} tokens]`;
}
