/**
 * The adapter from Pi's session events to wire events. Pi's event names stop here. It reads each event
 * inside the callback (Pi mutates event objects after delivery) and sends deltas, never Pi's cumulative
 * snapshots; at the end of a block or message it sends only what differs from what already streamed.
 */

import type { AgentSessionEvent } from '@earendil-works/pi-coding-agent';
import { imageView, type ImageView } from '../shared/images.ts';
import type { BlockFinal, BlockKind, NoticeLevel, StopReason, UsageView, WireEvent } from '../shared/wire/events.ts';
import { openMessage, toolCallBlock, toolCard } from '../shared/transcript/rowStore.ts';
import type { BlockView, TranscriptState } from '../shared/transcript/rows.ts';

/** Tool output beyond this many characters is cut to its tail before it crosses the wire. */
export const MAX_TOOL_OUTPUT_CHARS = 100_000;

export interface ProjectionContext {
  /** The host's reduced state before this event: what the webview already has. */
  readonly state: TranscriptState;
  readonly now: number;
  /** Called for event types this version does not know; the caller logs each type once. */
  readonly onUnknown?: (type: string) => void;
  /** Words a provider's error for the panel (a proxy problem named as such, no stack); raw without it. */
  readonly wordError?: (raw: string) => string;
}

/** Loose shapes of what Pi puts in events; checked field by field because events are data from a library. */
interface ContentPart {
  readonly type?: unknown;
  readonly text?: unknown;
  readonly thinking?: unknown;
  readonly id?: unknown;
  readonly name?: unknown;
  readonly arguments?: unknown;
  readonly data?: unknown;
  readonly mimeType?: unknown;
}

export function project(event: AgentSessionEvent, ctx: ProjectionContext): WireEvent[] {
  const at = ctx.now;
  switch (event.type) {
    case 'agent_start':
      return [{ type: 'runStart' }];
    case 'turn_start':
      return [{ type: 'turnStart' }];
    case 'turn_end':
      return [{ type: 'turnEnd' }];
    case 'agent_end':
      return [{ type: 'runEnd', willRetry: event.willRetry }];
    case 'agent_settled':
      return [{ type: 'settled', aborted: event.aborted, at }];
    case 'message_start':
      return projectMessageStart(event.message as unknown as Record<string, unknown>, at);
    case 'message_update':
      return projectUpdate(event.assistantMessageEvent, ctx);
    case 'message_end':
      return projectMessageEnd(event.message as unknown as Record<string, unknown>, ctx);
    case 'tool_execution_start': {
      const args = argsText(event.args);
      // The call's arguments already streamed: sending them again would double the bytes of a big call.
      const same = sameArgs(toolCallBlock(ctx.state, event.toolCallId)?.text, args);
      const parent = event.parentToolCallId;
      return [
        {
          type: 'toolStart',
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          ...(same ? {} : { args }),
          ...(parent ? { parentToolCallId: parent } : {}),
          at,
        },
      ];
    }
    case 'tool_execution_update':
      return [{ type: 'toolUpdate', toolCallId: event.toolCallId, output: toolOutputText(event.partialResult) }];
    case 'tool_execution_end': {
      // The card draws the result's images, so its text does not count them.
      const media = resultMedia(event.result);
      const output = toolOutputText(event.result, media.length === 0);
      return [
        { type: 'toolEnd', toolCallId: event.toolCallId, isError: event.isError, output, durationMs: event.durationMs, ...(media.length ? { media } : {}) },
      ];
    }
    case 'queue_update':
      return [{ type: 'queue', steering: [...event.steering], followUp: [...event.followUp] }];
    case 'auto_retry_start':
      return [
        {
          type: 'retryStart',
          attempt: event.attempt,
          maxAttempts: event.maxAttempts,
          delayMs: event.delayMs,
          errorMessage: ctx.wordError?.(event.errorMessage) ?? event.errorMessage,
          at,
        },
      ];
    case 'auto_retry_end':
      return [{ type: 'retryEnd', success: event.success, attempt: event.attempt, finalError: event.finalError, at }];
    case 'compaction_start':
      return [{ type: 'compactionStart', reason: event.reason, at }];
    case 'compaction_end':
      return [
        {
          type: 'compactionEnd',
          reason: event.reason,
          aborted: event.aborted,
          willRetry: event.willRetry,
          errorMessage: event.errorMessage,
          tokensBefore: event.result?.tokensBefore,
          tokensAfter: event.result?.estimatedTokensAfter,
          at,
        },
      ];
    case 'thinking_level_changed':
      return [{ type: 'thinkingLevel', level: event.level }];
    case 'session_info_changed':
      return [{ type: 'sessionInfo', name: event.name }];
    case 'summarization_retry_scheduled':
      // A compaction or branch summary failed and Pi tries again: without this the user sees a long silence.
      // The notice stays in the transcript; the status line and status bar count down to the next attempt.
      return [
        {
          type: 'noticeMessage',
          level: 'warning',
          text: `Summarizing the conversation failed (${event.errorMessage}); Pi retries (attempt ${event.attempt} of ${event.maxAttempts}) in ${Math.max(1, Math.round(event.delayMs / 1000))} s.`,
        },
        {
          type: 'summaryRetry',
          phase: 'scheduled',
          attempt: event.attempt,
          maxAttempts: event.maxAttempts,
          delayMs: event.delayMs,
          errorMessage: event.errorMessage,
          at,
        },
      ];
    case 'summarization_retry_attempt_start':
      return [{ type: 'summaryRetry', phase: 'attempt', source: event.source, at }];
    case 'summarization_retry_finished':
      return [{ type: 'summaryRetry', phase: 'finished', at }];
    case 'entry_appended':
      // Every entry also arrives as the event that made it (a message, a thinking level, a compaction), or
      // changes what the session worker reports about itself (a model change, a name, a label): nothing new here.
      return [];
    case 'bash_execution_update':
      return event.id ? [{ type: 'bashOutput', id: event.id, delta: stripAnsi(event.delta) }] : [];
    default:
      ctx.onUnknown?.(textOf((event as { type?: unknown }).type));
      return [];
  }
}

function projectMessageStart(m: Record<string, unknown>, at: number): WireEvent[] {
  switch (m.role) {
    case 'assistant':
      return [{ type: 'assistantStart', at }];
    case 'user': {
      const { text, images } = contentText(m.content);
      const media = contentMedia(m.content);
      return [{ type: 'userMessage', text, images, ...(media.length ? { media } : {}) }];
    }
    case 'custom':
      return m.display === false ? [] : [customMessageNotice(m)];
    case 'compactionSummary':
      return [{ type: 'noticeMessage', level: 'info', text: `Earlier messages were summarized (${Number(m.tokensBefore) || 0} tokens before).` }];
    case 'branchSummary':
      return [{ type: 'noticeMessage', level: 'info', text: `Branch summary: ${textOf(m.summary)}` }];
    case 'bashExecution':
      // Pi emits this only when a saved session is replayed; a live `!` command has its own events.
      return [
        {
          type: 'bashEnd',
          command: textOf(m.command),
          output: clip(stripAnsi(textOf(m.output))),
          ...(typeof m.exitCode === 'number' ? { exitCode: m.exitCode } : {}),
          cancelled: m.cancelled === true,
          excluded: m.excludeFromContext === true,
        },
      ];
    default:
      // 'system' (Pi 1.6 sends one first), 'toolResult' (sent complete at message_end) and roles this
      // version does not know.
      return [];
  }
}

/**
 * A message an extension sent (`sendMessage`), as the CLI shows it: `[customType]` over its text as Markdown,
 * at the level its `details.level` names (the message-renderer example's `warn` / `error`), else info.
 */
function customMessageNotice(m: Record<string, unknown>): WireEvent {
  const details = m.details as { level?: unknown } | undefined;
  const wanted = typeof details?.level === 'string' ? details.level.toLowerCase() : '';
  const level: NoticeLevel = wanted === 'error' ? 'error' : wanted === 'warn' || wanted === 'warning' ? 'warning' : 'info';
  const label = textOf(m.customType).slice(0, MAX_LABEL_CHARS);
  return { type: 'noticeMessage', level, text: contentText(m.content).text, markdown: true, ...(label ? { label } : {}) };
}

/** Longest `customType` label shown. */
const MAX_LABEL_CHARS = 80;

function projectUpdate(
  ame: { type: string; contentIndex?: number; delta?: string; content?: string; partial?: unknown; toolCall?: unknown },
  ctx: ProjectionContext,
): WireEvent[] {
  const index = ame.contentIndex ?? 0;
  const at = ctx.now;
  const start = (kind: BlockKind, extra: { toolCallId?: string; toolName?: string } = {}): WireEvent[] => [{ type: 'blockStart', index, kind, at, ...extra }];
  switch (ame.type) {
    case 'text_start':
      return start('text');
    case 'thinking_start':
      return start('thinking');
    case 'toolcall_start': {
      const part = partAt(ame.partial, index);
      return start('toolCall', { toolCallId: str(part?.id), toolName: str(part?.name) });
    }
    case 'text_delta':
    case 'thinking_delta':
    case 'toolcall_delta':
      return ame.delta ? [{ type: 'delta', index, text: ame.delta }] : [];
    case 'text_end':
      return [endBlock(ctx.state, { index, kind: 'text', text: textOf(ame.content) }, at)];
    case 'thinking_end':
      return [endBlock(ctx.state, { index, kind: 'thinking', text: textOf(ame.content) }, at)];
    case 'toolcall_end':
      return [endBlock(ctx.state, toolCallFinal(index, ame.toolCall as ContentPart | undefined, streamedBlock(ctx.state, index)), at)];
    default:
      // 'start', 'done' and 'error' become message_start / message_end.
      return [];
  }
}

function endBlock(state: TranscriptState, final: BlockFinal, at: number): WireEvent {
  const b = streamedBlock(state, final.index);
  return sameBlock(b, final) ? { type: 'blockEnd', index: final.index, at } : { type: 'blockEnd', index: final.index, at, final };
}

function projectMessageEnd(m: Record<string, unknown>, ctx: ProjectionContext): WireEvent[] {
  if (m.role === 'toolResult') {
    const toolCallId = textOf(m.toolCallId);
    const { text, images } = contentText(m.content);
    const card = toolCard(ctx.state, toolCallId);
    const same = card !== undefined && card.output === clip(stripAnsi(text));
    // The card already draws these images (its end carried them): they cross the wire once, and are not
    // checked again here.
    const sameMedia = images === 0 || (card?.media?.length ?? 0) === images;
    const media = sameMedia ? [] : contentMedia(m.content);
    return [
      {
        type: 'toolResult',
        toolCallId,
        toolName: textOf(m.toolName),
        isError: m.isError === true,
        ...(same ? {} : { text: clip(stripAnsi(text)) }),
        ...(sameMedia ? {} : { media }),
      },
    ];
  }
  if (m.role !== 'assistant') return [];
  const out: WireEvent[] = [];
  const open = openMessage(ctx.state);
  // Subscribed mid-message or a lost start: open a row so the final message still lands.
  if (!open) out.push({ type: 'assistantStart', at: ctx.now });
  const streamed = open?.blocks ?? [];
  const content = Array.isArray(m.content) ? (m.content as ContentPart[]) : [];
  const blocks: BlockFinal[] = [];
  content.forEach((part, index) => {
    const final = partFinal(part, index, streamed[index] ?? undefined);
    if (final && !sameBlock(streamed[index] ?? undefined, final)) blocks.push(final);
  });
  const stopReason = (typeof m.stopReason === 'string' ? m.stopReason : 'stop') as StopReason;
  out.push({
    type: 'assistantEnd',
    stopReason,
    errorMessage: typeof m.errorMessage === 'string' ? (ctx.wordError?.(m.errorMessage) ?? m.errorMessage) : undefined,
    usage: usageView(m.usage),
    ...(blocks.length ? { blocks } : {}),
    ...(streamed.length !== content.length ? { blockCount: content.length } : {}),
    at: ctx.now,
  });
  return out;
}

function partFinal(part: ContentPart, index: number, streamed: BlockView | undefined): BlockFinal | undefined {
  switch (part?.type) {
    case 'text':
      return { index, kind: 'text', text: textOf(part.text) };
    case 'thinking':
      return { index, kind: 'thinking', text: textOf(part.thinking) };
    case 'toolCall':
      return toolCallFinal(index, part, streamed);
    default:
      // Images and parts this version does not know keep their slot, shown as nothing.
      return { index, kind: 'text', text: '' };
  }
}

/**
 * A tool call's final block. The streamed JSON text is kept when it parses to the same arguments, so
 * a long `write` call is not sent twice.
 */
function toolCallFinal(index: number, call: ContentPart | undefined, streamed: BlockView | undefined): BlockFinal {
  const args = call?.arguments ?? {};
  let text = JSON.stringify(args);
  if (streamed && streamed.kind === 'toolCall') {
    try {
      if (JSON.stringify(JSON.parse(streamed.text)) === text) text = streamed.text;
    } catch {
      // Incomplete JSON while streaming: the final text replaces it.
    }
  }
  return { index, kind: 'toolCall', text, toolCallId: str(call?.id), toolName: str(call?.name) };
}

function sameBlock(b: BlockView | undefined, f: BlockFinal): boolean {
  return (
    b !== undefined &&
    b !== null &&
    b.kind === f.kind &&
    b.text === f.text &&
    (f.toolCallId === undefined || b.toolCallId === f.toolCallId) &&
    (f.toolName === undefined || b.toolName === f.toolName)
  );
}

function streamedBlock(state: TranscriptState, index: number): BlockView | undefined {
  return openMessage(state)?.blocks[index] ?? undefined;
}

function partAt(partial: unknown, index: number): ContentPart | undefined {
  const content = (partial as { content?: unknown } | undefined)?.content;
  return Array.isArray(content) ? (content[index] as ContentPart | undefined) : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v ? v : undefined;
}

/**
 * A stored field as text: a crafted session may hold an object where text belongs, and `String()` of
 * `{"toString":1}` throws. Numbers and booleans read as themselves, anything else as nothing.
 */
function textOf(v: unknown): string {
  if (typeof v === 'string') return v;
  return typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}

/** Text of a user or tool message's content, with the number of images beside it. */
export function contentText(content: unknown): { text: string; images: number } {
  if (typeof content === 'string') return { text: content, images: 0 };
  if (!Array.isArray(content)) return { text: '', images: 0 };
  let images = 0;
  const texts: string[] = [];
  for (const part of content as ContentPart[]) {
    if (part?.type === 'text') texts.push(textOf(part.text));
    else if (part?.type === 'image') images++;
  }
  return { text: texts.join('\n'), images };
}

/** The image blocks of a user or tool message's content, as the webview shows them. */
export function contentMedia(content: unknown): ImageView[] {
  if (!Array.isArray(content)) return [];
  const out: ImageView[] = [];
  for (const part of content as ContentPart[]) if (part?.type === 'image') out.push(imageView(part));
  return out;
}

function resultMedia(result: unknown): ImageView[] {
  return typeof result === 'object' && result !== null && 'content' in result ? contentMedia((result as { content: unknown }).content) : [];
}

function usageView(u: unknown): UsageView | undefined {
  if (typeof u !== 'object' || u === null) return undefined;
  const r = u as Record<string, unknown>;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const c = typeof r.cost === 'object' && r.cost !== null ? (r.cost as Record<string, unknown>) : undefined;
  const billed = c?.totalFromProvider === true;
  return {
    input: num(r.input),
    output: num(r.output),
    cacheRead: num(r.cacheRead),
    cacheWrite: num(r.cacheWrite),
    cost: num(c?.total),
    ...(billed ? { billed } : {}),
  };
}

function sameArgs(streamed: string | undefined, args: string): boolean {
  if (streamed === undefined) return false;
  if (streamed === args) return true;
  try {
    return JSON.stringify(JSON.parse(streamed)) === args;
  } catch {
    return false;
  }
}

function argsText(args: unknown): string {
  try {
    return JSON.stringify(args ?? {}) ?? '{}';
  } catch {
    return '{}';
  }
}

/**
 * The text of a tool result or partial result (`{ content: [...] }`, a string, or anything else); `imageNote`
 * adds "[N images]" for images the card does not draw.
 */
export function toolOutputText(result: unknown, imageNote = true): string {
  let text: string;
  if (typeof result === 'string') text = result;
  else if (typeof result === 'object' && result !== null && 'content' in result) {
    const { text: t, images } = contentText((result as { content: unknown }).content);
    text = images && imageNote ? `${t}${t ? '\n' : ''}[${images} image${images > 1 ? 's' : ''}]` : t;
  } else if (result instanceof Error) text = result.message;
  else text = result === undefined ? '' : argsText(result);
  return clip(stripAnsi(text));
}

// ANSI CSI and OSC sequences: tool output comes from terminals; colours are dropped, never interpreted.
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

export function stripAnsi(text: string): string {
  return text.includes('\u001b') ? text.replace(ANSI, '') : text;
}

function clip(text: string): string {
  if (text.length <= MAX_TOOL_OUTPUT_CHARS) return text;
  const dropped = text.length - MAX_TOOL_OUTPUT_CHARS;
  return `[… ${dropped.toLocaleString('en-US')} earlier characters not shown]\n${text.slice(dropped)}`;
}
