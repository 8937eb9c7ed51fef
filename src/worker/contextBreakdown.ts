/** What fills the open session's context (system prompt, tools, messages, tool results, images, free room), its costs, and Drop from context. */

import {
  CONTEXT_PARTS,
  droppedPlaceholder,
  type CompactionView,
  type ContextBreakdownView,
  type ContextItemView,
  type ContextPartName,
  type CostView,
  type ReplyUsageView,
} from '../shared/contextGauge.ts';

/** Pi's estimate of an image's size in characters (`ESTIMATED_IMAGE_CHARS` in Pi's compaction.js). */
const IMAGE_CHARS = 4800;

/** How many of the largest tool results the breakdown lists. */
const LARGEST = 5;

/** Past this share of the compaction threshold the gauge warns that Pi will compact soon. */
const NEAR_COMPACTION = 0.8;

/** A session entry as the breakdown reads it. */
interface EntryLike {
  readonly id: string;
  readonly type: string;
  readonly message?: unknown;
  readonly targetId?: string;
  readonly replacement?: unknown;
  readonly usage?: unknown;
}

/** The part of Pi's `AgentSession` the breakdown reads (each optional: a test's fake or an older SDK may lack it). */
export interface ContextSource {
  getContextUsage?(): { readonly tokens: number | null; readonly contextWindow: number } | undefined;
  readonly systemPrompt?: string;
  readonly state?: { readonly tools?: readonly { readonly name: string; readonly description?: string; readonly parameters?: unknown }[] };
  refreshContext?(): void;
  /** A model may override the compaction settings. */
  readonly model?: { readonly provider: string; readonly id: string } | undefined;
  readonly settingsManager?: {
    getCompactionSettings?(model?: { readonly provider: string; readonly id: string }): {
      readonly enabled: boolean;
      readonly reserveTokens: number;
      readonly keepRecentTokens: number;
    };
  };
  readonly sessionManager?: {
    buildSessionProjection?(): {
      readonly messages: readonly unknown[];
      readonly entries: readonly { readonly sourceEntry: EntryLike; readonly messages: readonly unknown[] }[];
    };
    getBranch(): readonly EntryLike[];
    getEntries(): readonly EntryLike[];
    getEntry?(id: string): EntryLike | undefined;
    appendContextEdit?(targetId: string, replacement: { content: { type: 'text'; text: string }[] } | null): string;
  };
}

interface Block {
  readonly type?: string;
  readonly text?: string;
  readonly thinking?: string;
  readonly name?: string;
  readonly arguments?: unknown;
}

interface Message {
  readonly role?: string;
  readonly content?: string | readonly Block[];
  readonly sections?: Readonly<Record<string, string | null>>;
  readonly toolsAdded?: unknown;
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly command?: string;
  readonly output?: string;
  readonly summary?: string;
  readonly excludeFromContext?: boolean;
  readonly usage?: Usage;
  readonly stopReason?: string;
}

interface Usage {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly totalTokens?: number;
  readonly cost?: { readonly total: number; readonly totalFromProvider?: boolean };
}

/** Characters of text and of images in `content`, counted as Pi's `estimateTokens` does. */
function contentChars(content: Message['content']): { text: number; images: number } {
  if (typeof content === 'string') return { text: content.length, images: 0 };
  let text = 0;
  let images = 0;
  for (const b of content ?? []) {
    if (b.type === 'text' && b.text) text += b.text.length;
    else if (b.type === 'image') images += IMAGE_CHARS;
  }
  return { text, images };
}

/** Characters per part of one model-visible message (Pi's chars/4 heuristic, `estimateTokens`, split by part). */
function messageChars(m: Message): Partial<Record<ContextPartName, number>> {
  switch (m.role) {
    case 'system': {
      let chars = contentChars(m.content).text;
      for (const s of Object.values(m.sections ?? {})) chars += s?.length ?? 0;
      return { system: chars, tools: m.toolsAdded ? JSON.stringify(m.toolsAdded).length : 0 };
    }
    case 'user':
    case 'custom': {
      const c = contentChars(m.content);
      return { messages: c.text, images: c.images };
    }
    case 'assistant': {
      let chars = 0;
      for (const b of Array.isArray(m.content) ? (m.content as readonly Block[]) : []) {
        if (b.type === 'text') chars += b.text?.length ?? 0;
        else if (b.type === 'thinking') chars += b.thinking?.length ?? 0;
        else if (b.type === 'toolCall') chars += (b.name?.length ?? 0) + JSON.stringify(b.arguments ?? {}).length;
      }
      return { messages: chars };
    }
    case 'toolResult': {
      const c = contentChars(m.content);
      return { toolResults: c.text, images: c.images };
    }
    case 'bashExecution':
      // `!!` output is kept out of the model's context.
      return m.excludeFromContext ? {} : { toolResults: (m.command?.length ?? 0) + (m.output?.length ?? 0) };
    case 'branchSummary':
    case 'compactionSummary':
      return { messages: m.summary?.length ?? 0 };
    default:
      return {};
  }
}

const tokensOf = (chars: number): number => Math.ceil(chars / 4);

/** Whether `usage` is a reply's real count (Pi ignores aborted and failed replies). */
function countedReply(m: Message): m is Message & { usage: Usage } {
  return m.role === 'assistant' && m.usage !== undefined && m.stopReason !== 'aborted' && m.stopReason !== 'error';
}

/** The tool results the user dropped: their target entry ids (an edit whose text is our placeholder). */
function droppedTargets(branch: readonly EntryLike[]): Set<string> {
  const out = new Set<string>();
  for (const e of branch) {
    if (e.type !== 'context_edit' || !e.targetId) continue;
    const content = (e.replacement as { content?: Message['content'] } | null | undefined)?.content;
    const first = Array.isArray(content) ? (content as readonly Block[])[0]?.text : content;
    if (typeof first === 'string' && first.startsWith('[dropped from context by the user:')) out.add(e.targetId);
    else out.delete(e.targetId);
  }
  return out;
}

/** Sums the session's costs as Pi's `getSessionStats` does (replies, tool-result usage, summaries, usage entries). */
function sessionCost(entries: readonly EntryLike[]): CostView {
  let cost = 0;
  let billed = true;
  let any = false;
  const add = (u: unknown): void => {
    const c = (u as Usage | undefined)?.cost;
    if (!c) return;
    any = true;
    cost += c.total;
    if (c.totalFromProvider !== true) billed = false;
  };
  for (const e of entries) {
    if (e.type === 'usage' || e.type === 'branch_summary' || e.type === 'compaction') add(e.usage);
    const m = e.type === 'message' ? (e.message as Message | undefined) : undefined;
    if (m?.role === 'assistant' || m?.role === 'toolResult') add(m.usage);
  }
  return { cost, billed: any && billed };
}

function lastReply(branch: readonly EntryLike[]): ReplyUsageView | undefined {
  for (let i = branch.length - 1; i >= 0; i--) {
    const m = branch[i]?.type === 'message' ? (branch[i]?.message as Message) : undefined;
    if (m && countedReply(m)) {
      const u = m.usage;
      return {
        input: u.input,
        output: u.output,
        cacheRead: u.cacheRead,
        cacheWrite: u.cacheWrite,
        cost: u.cost?.total ?? 0,
        billed: u.cost?.totalFromProvider === true,
      };
    }
  }
  return undefined;
}

/** Whether Pi's figure is all from the provider: the last message it sees is a reply with usage and nothing edited the context since. */
function usedEstimated(messages: readonly Message[], branch: readonly EntryLike[]): boolean {
  const last = messages.at(-1);
  if (!last || !countedReply(last)) return true;
  const lastEdit = branch.findLastIndex((e) => e.type === 'context_edit' || e.type === 'compaction');
  const lastReplyAt = branch.findLastIndex((e) => e.type === 'message' && e.message === last);
  return lastEdit > lastReplyAt && lastReplyAt >= 0;
}

function compactionView(s: ContextSource, window: number, used: number): CompactionView | undefined {
  const c = s.settingsManager?.getCompactionSettings?.(s.model);
  if (!c) return undefined;
  const threshold = Math.max(0, window - c.reserveTokens);
  return { enabled: c.enabled, threshold, keepRecentTokens: c.keepRecentTokens, near: c.enabled && used >= threshold * NEAR_COMPACTION };
}

/** The breakdown of `s`'s context; none when Pi knows no context window (no model). */
export function contextBreakdown(s: ContextSource): ContextBreakdownView | undefined {
  let usage: ReturnType<NonNullable<ContextSource['getContextUsage']>>;
  try {
    usage = s.getContextUsage?.();
  } catch {
    return undefined;
  }
  if (!usage || !(usage.contextWindow > 0)) return undefined;
  const window = usage.contextWindow;
  const sm = s.sessionManager;
  const projection = sm?.buildSessionProjection?.();
  const branch = sm?.getBranch() ?? [];
  const messages = (projection?.messages ?? []) as readonly Message[];
  const chars: Record<ContextPartName, number> = { system: 0, tools: 0, messages: 0, toolResults: 0, images: 0, free: 0 };
  for (const m of messages) for (const [k, v] of Object.entries(messageChars(m))) chars[k as ContextPartName] += v;
  // A session that has not sent a request yet holds no system message: count what the next request will carry.
  if (!messages.some((m) => m.role === 'system')) {
    chars.system += s.systemPrompt?.length ?? 0;
    const tools = s.state?.tools?.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
    if (tools?.length) chars.tools += JSON.stringify(tools).length;
  }
  const tokens = Object.fromEntries(CONTEXT_PARTS.map((p) => [p, tokensOf(chars[p])])) as Record<ContextPartName, number>;
  const counted = tokens.system + tokens.tools + tokens.messages + tokens.toolResults + tokens.images;
  const used = typeof usage.tokens === 'number' && Number.isFinite(usage.tokens) ? usage.tokens : undefined;
  tokens.free = Math.max(0, window - (used ?? counted));
  const share = (n: number): number => Math.round((n / window) * 1000) / 10;
  const estimated = used === undefined || usedEstimated(messages, branch);
  const dropped = droppedTargets(branch);
  const largest: ContextItemView[] = [];
  for (const p of projection?.entries ?? []) {
    const m = p.messages[0] as Message | undefined;
    if (p.sourceEntry.type !== 'message' || m?.role !== 'toolResult' || !m.toolCallId || dropped.has(p.sourceEntry.id)) continue;
    const c = contentChars(m.content);
    const n = tokensOf(c.text + c.images);
    if (n > 0) largest.push({ entryId: p.sourceEntry.id, toolCallId: m.toolCallId, toolName: m.toolName ?? '', tokens: n });
  }
  largest.sort((a, b) => b.tokens - a.tokens);
  const reply = lastReply(branch);
  const compaction = compactionView(s, window, used ?? counted);
  return {
    contextWindow: window,
    ...(used !== undefined ? { used } : {}),
    usedEstimated: estimated,
    parts: CONTEXT_PARTS.map((part) => ({ part, tokens: tokens[part], share: share(tokens[part]), estimated: part === 'free' ? estimated : true })),
    largest: largest.slice(0, LARGEST),
    dropped: [...dropped].flatMap((id) => {
      const m = (sm?.getEntry?.(id) ?? branch.find((e) => e.id === id))?.message as Message | undefined;
      return m?.toolCallId ? [m.toolCallId] : [];
    }),
    canDrop: typeof sm?.appendContextEdit === 'function',
    ...(reply ? { lastReply: reply } : {}),
    session: sessionCost(sm?.getEntries() ?? []),
    ...(compaction ? { compaction } : {}),
  };
}

/**
 * Replaces tool result `entryId`'s content in what the model sees with a short placeholder: an appended
 * `context_edit` entry (the result itself stays in the file), then Pi's context is rebuilt from the file. False
 * when the SDK has no context edits or `entryId` is no tool result of the branch.
 */
export function dropFromContext(s: ContextSource, entryId: string): boolean {
  const sm = s.sessionManager;
  if (!sm?.appendContextEdit) return false;
  const entry = sm.getBranch().find((e) => e.id === entryId);
  const m = entry?.type === 'message' ? (entry.message as Message | undefined) : undefined;
  if (m?.role !== 'toolResult') return false;
  const c = contentChars(m.content);
  sm.appendContextEdit(entryId, { content: [{ type: 'text', text: droppedPlaceholder(tokensOf(c.text + c.images)) }] });
  s.refreshContext?.();
  return true;
}
