/**
 * The transcript reducer: wire events in, the state both sides render from out. It runs in the host (to
 * answer a re-created view with a snapshot) and in the webview, so both hold the same state.
 */

import type { BlockFinal, BlockKind, NoticeCode, NoticeLevel, StopReason, UsageView, WireEvent } from './protocol.ts';
import { initialRunState, reduceRun, type RunState } from './runState.ts';

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

export type MessageRole = 'user' | 'assistant' | 'toolResult' | 'notice';

export interface MessageView {
  /** Assigned in arrival order by the reducer, so host and webview agree without sending ids. */
  readonly id: number;
  readonly role: MessageRole;
  /** Sparse by `contentIndex` while streaming; a hole is a block that has not started yet. */
  readonly blocks: readonly (BlockView | undefined)[];
  readonly final: boolean;
  readonly stopReason?: StopReason;
  readonly errorMessage?: string;
  readonly usage?: UsageView;
  readonly images?: number;
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly isError?: boolean;
  /** An errored attempt Pi retried: shown as a failed attempt, not as the run's outcome. */
  readonly retried?: boolean;
  readonly level?: NoticeLevel;
  readonly code?: NoticeCode;
  readonly startedAt?: number;
  readonly endedAt?: number;
}

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
}

export interface TranscriptState {
  readonly messages: readonly MessageView[];
  readonly tools: Readonly<Record<string, ToolCardView>>;
  readonly run: RunState;
  readonly queue: { readonly steering: readonly string[]; readonly followUp: readonly string[] };
  /** Index into `messages` of the assistant message that is streaming, or -1. */
  readonly openIndex: number;
  readonly nextId: number;
  readonly thinkingLevel?: string;
  readonly sessionName?: string;
}

export const initialTranscript: TranscriptState = {
  messages: [],
  tools: {},
  run: initialRunState,
  queue: { steering: [], followUp: [] },
  openIndex: -1,
  nextId: 1,
};

/** Applies a batch of wire events in order. */
export function reduce(state: TranscriptState, events: readonly WireEvent[]): TranscriptState {
  let s = state;
  for (const ev of events) s = reduceOne(s, ev);
  return s;
}

export function reduceOne(state: TranscriptState, ev: WireEvent): TranscriptState {
  const run = reduceRun(state.run, ev);
  const s = run === state.run ? state : { ...state, run };
  switch (ev.type) {
    case 'userMessage':
      return append(s, { id: s.nextId, role: 'user', blocks: [textBlock(ev.text)], final: true, images: ev.images || undefined });
    case 'noticeMessage':
      return append(s, { id: s.nextId, role: 'notice', blocks: [textBlock(ev.text)], final: true, level: ev.level, code: ev.code });
    case 'assistantStart': {
      const next = append(s, { id: s.nextId, role: 'assistant', blocks: [], final: false, startedAt: ev.at });
      return { ...next, openIndex: next.messages.length - 1 };
    }
    case 'blockStart':
      return updateOpen(s, (m) =>
        withBlock(m, ev.index, {
          kind: ev.kind,
          index: ev.index,
          text: '',
          final: false,
          toolCallId: ev.toolCallId,
          toolName: ev.toolName,
          startedAt: ev.at,
        }),
      );
    case 'delta':
      return updateOpen(s, (m) => {
        const b = m.blocks[ev.index] ?? { kind: 'text' as const, index: ev.index, text: '', final: false };
        return withBlock(m, ev.index, { ...b, text: b.text + ev.text });
      });
    case 'blockEnd':
      return updateOpen(s, (m) => {
        const b = m.blocks[ev.index];
        const base = ev.final ? applyFinal(b, ev.final) : b;
        return base ? withBlock(m, ev.index, { ...base, final: true, endedAt: ev.at }) : m;
      });
    case 'assistantEnd': {
      const ended = updateOpen(s, (m) => {
        let blocks = m.blocks.slice();
        for (const f of ev.blocks ?? []) blocks[f.index] = { ...applyFinal(blocks[f.index], f), final: true };
        if (ev.blockCount !== undefined) blocks = blocks.slice(0, ev.blockCount);
        blocks = blocks.map((b) => (b && !b.final ? { ...b, final: true, endedAt: b.endedAt ?? ev.at } : b));
        return { ...m, blocks, final: true, stopReason: ev.stopReason, errorMessage: ev.errorMessage, usage: ev.usage, endedAt: ev.at };
      });
      return { ...ended, openIndex: -1 };
    }
    case 'toolStart': {
      const prev = s.tools[ev.toolCallId];
      const card: ToolCardView = {
        toolCallId: ev.toolCallId,
        toolName: ev.toolName,
        args: ev.args ?? toolCallBlock(s, ev.toolCallId)?.text ?? '',
        status: 'running',
        output: prev?.output ?? '',
        startedAt: ev.at,
      };
      return { ...s, tools: { ...s.tools, [ev.toolCallId]: card } };
    }
    case 'toolUpdate': {
      const card = s.tools[ev.toolCallId];
      if (!card || card.status !== 'running') return s;
      return { ...s, tools: { ...s.tools, [ev.toolCallId]: { ...card, output: ev.output } } };
    }
    case 'toolEnd': {
      const card = s.tools[ev.toolCallId] ?? { toolCallId: ev.toolCallId, toolName: '', args: '', status: 'running' as const, output: '' };
      const done: ToolCardView = { ...card, status: ev.isError ? 'error' : 'done', output: ev.output, durationMs: ev.durationMs };
      return { ...s, tools: { ...s.tools, [ev.toolCallId]: done } };
    }
    case 'toolResult':
      return append(s, {
        id: s.nextId,
        role: 'toolResult',
        blocks: ev.text === undefined ? [] : [textBlock(ev.text)],
        final: true,
        toolCallId: ev.toolCallId,
        toolName: ev.toolName,
        isError: ev.isError,
      });
    case 'queue':
      return { ...s, queue: { steering: ev.steering, followUp: ev.followUp } };
    case 'settled':
      // A run that ends without its assistant message closing (a crash, a lost event) must not leave a
      // row streaming forever.
      return s.openIndex >= 0 ? { ...closeOpen(s, ev.aborted ? 'aborted' : 'error', ev.at), openIndex: -1 } : s;
    case 'thinkingLevel':
      return { ...s, thinkingLevel: ev.level };
    case 'sessionInfo':
      return { ...s, sessionName: ev.name };
    case 'reset':
      return { ...initialTranscript, thinkingLevel: s.thinkingLevel };
    case 'retryStart': {
      const i = s.messages.findLastIndex((m) => m.role === 'assistant');
      const m = s.messages[i];
      if (!m || m.stopReason !== 'error' || m.retried) return s;
      const messages = s.messages.slice();
      messages[i] = { ...m, retried: true };
      return { ...s, messages };
    }
    case 'runStart':
    case 'turnStart':
    case 'turnEnd':
    case 'runEnd':
    case 'retryEnd':
    case 'compactionStart':
    case 'compactionEnd':
    case 'cancelRequested':
    case 'stalled':
      return s;
  }
}

function textBlock(text: string): BlockView {
  return { kind: 'text', index: 0, text, final: true };
}

function append(s: TranscriptState, m: MessageView): TranscriptState {
  return { ...s, messages: [...s.messages, m], nextId: s.nextId + 1 };
}

function updateOpen(s: TranscriptState, f: (m: MessageView) => MessageView): TranscriptState {
  if (s.openIndex < 0) return s;
  const messages = s.messages.slice();
  messages[s.openIndex] = f(messages[s.openIndex]!);
  return { ...s, messages };
}

function closeOpen(s: TranscriptState, stopReason: StopReason, at: number): TranscriptState {
  return updateOpen(s, (m) => ({
    ...m,
    final: true,
    stopReason: m.stopReason ?? stopReason,
    endedAt: at,
    blocks: m.blocks.map((b) => (b && !b.final ? { ...b, final: true } : b)),
  }));
}

function withBlock(m: MessageView, index: number, b: BlockView): MessageView {
  const blocks = m.blocks.slice();
  blocks[index] = b;
  return { ...m, blocks };
}

function applyFinal(b: BlockView | undefined, f: BlockFinal): BlockView {
  return {
    ...(b ?? { index: f.index, final: true }),
    kind: f.kind,
    index: f.index,
    text: f.text,
    final: true,
    toolCallId: f.toolCallId ?? b?.toolCallId,
    toolName: f.toolName ?? b?.toolName,
  };
}

/** The model's call with this id among the latest messages (a tool starts right after its call's message). */
export function toolCallBlock(s: TranscriptState, toolCallId: string): BlockView | undefined {
  for (let i = s.messages.length - 1; i >= Math.max(0, s.messages.length - 50); i--) {
    for (const b of s.messages[i]!.blocks) if (b?.kind === 'toolCall' && b.toolCallId === toolCallId) return b;
  }
  return undefined;
}

/** The open (streaming) assistant message, if any. */
export function openMessage(s: TranscriptState): MessageView | undefined {
  return s.openIndex >= 0 ? s.messages[s.openIndex] : undefined;
}
