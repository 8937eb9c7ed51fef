/** The context breakdown the worker computes from Pi's session: parts, largest tool results, costs, compaction, Drop. */

import assert from 'node:assert/strict';
import { contextBreakdown, dropFromContext, type ContextSource } from '../../src/worker/contextBreakdown.ts';
import { droppedPlaceholder } from '../../src/shared/contextGauge.ts';
import type { AgentSessionEvent } from '@earendil-works/pi-coding-agent';
import { initialTranscript } from '../../src/shared/transcript/reduce.ts';
import { project } from '../../src/worker/projection.ts';

interface Entry {
  id: string;
  type: string;
  message?: Record<string, unknown>;
  targetId?: string;
  replacement?: unknown;
  usage?: unknown;
}

const usage = (input: number, output: number, cost: number, extra: Record<string, unknown> = {}) => ({
  input,
  output,
  cacheRead: 10,
  cacheWrite: 5,
  totalTokens: input + output + 15,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost, ...extra },
});

/** A session of fixed entries whose projection applies context edits the way Pi does (replacement content). */
class FixedSession implements ContextSource {
  readonly entries: Entry[] = [];
  readonly edits: { targetId: string; replacement: unknown }[] = [];
  refreshed = 0;
  contextTokens: number | null = 500;
  compaction = { enabled: true, reserveTokens: 1000, keepRecentTokens: 2000 };
  systemPrompt = 'S'.repeat(400);
  state = { tools: [{ name: 'read', description: 'D'.repeat(100), parameters: { type: 'object' } }] };
  canEdit = true;

  add(entry: Entry): this {
    this.entries.push(entry);
    return this;
  }
  getContextUsage() {
    return { tokens: this.contextTokens, contextWindow: 10_000, percent: this.contextTokens === null ? null : this.contextTokens / 100 };
  }
  model = { provider: 'fake', id: 'small' };
  get settingsManager() {
    // A model of its own compacts earlier (Pi's per-model compaction settings).
    return { getCompactionSettings: (m?: { id: string }) => (m?.id === 'small' ? { ...this.compaction, reserveTokens: 2000 } : this.compaction) };
  }
  get sessionManager() {
    const entries = this.entries;
    const project = () => {
      const out = entries
        .filter((e) => e.type === 'message')
        .map((e) => {
          const edit = [...entries].reverse().find((x) => x.type === 'context_edit' && x.targetId === e.id);
          const replacement = edit?.replacement as { content: unknown } | null | undefined;
          const message = replacement ? { ...e.message, content: replacement.content } : e.message;
          return { sourceEntry: e, messages: [message] };
        });
      return { entries: out, messages: out.flatMap((p) => p.messages) };
    };
    return {
      buildSessionProjection: project,
      getBranch: () => entries,
      getEntries: () => entries,
      getEntry: (id: string) => entries.find((e) => e.id === id),
      ...(this.canEdit
        ? {
            appendContextEdit: (targetId: string, replacement: unknown) => {
              const id = `edit${entries.length}`;
              entries.push({ id, type: 'context_edit', targetId, replacement });
              return id;
            },
          }
        : {}),
    };
  }
  refreshContext(): void {
    this.refreshed++;
  }
}

const toolResult = (id: string, callId: string, chars: number, images = 0): Entry => ({
  id,
  type: 'message',
  message: {
    role: 'toolResult',
    toolCallId: callId,
    toolName: 'read',
    content: [{ type: 'text', text: 'x'.repeat(chars) }, ...Array.from({ length: images }, () => ({ type: 'image', data: '', mimeType: 'image/png' }))],
  },
});

function session(): FixedSession {
  return new FixedSession()
    .add({ id: 'u1', type: 'message', message: { role: 'user', content: 'u'.repeat(40) } })
    .add({
      id: 'a1',
      type: 'message',
      message: { role: 'assistant', content: [{ type: 'text', text: 'a'.repeat(80) }], usage: usage(100, 20, 0.01), stopReason: 'toolUse' },
    })
    .add(toolResult('t1', 'call1', 4000, 1))
    .add(toolResult('t2', 'call2', 400))
    .add({
      id: 'a2',
      type: 'message',
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: 'b'.repeat(40) }],
        usage: usage(300, 40, 0.02, { totalFromProvider: true }),
        stopReason: 'stop',
      },
    });
}

const part = (b: ReturnType<typeof contextBreakdown>, name: string) => b?.parts.find((p) => p.part === name);

describe('context breakdown', () => {
  it('splits the context into system prompt, tools, messages, tool results and images with chars/4, and frees the rest of the window by Pi’s count', () => {
    const b = contextBreakdown(session());
    assert.ok(b);
    assert.deepEqual(
      b.parts.map((p) => p.part),
      ['system', 'tools', 'messages', 'toolResults', 'images', 'free'],
    );
    assert.equal(part(b, 'system')?.tokens, 100);
    assert.equal(
      part(b, 'tools')?.tokens,
      Math.ceil(JSON.stringify([{ name: 'read', description: 'D'.repeat(100), parameters: { type: 'object' } }]).length / 4),
    );
    assert.equal(part(b, 'messages')?.tokens, 10 + 20 + 10);
    assert.equal(part(b, 'toolResults')?.tokens, 1000 + 100);
    assert.equal(part(b, 'images')?.tokens, 1200);
    assert.equal(b.used, 500);
    assert.equal(part(b, 'free')?.tokens, 9500);
    assert.equal(part(b, 'free')?.share, 95);
    assert.equal(part(b, 'toolResults')?.estimated, true);
  });

  it('says the figure is Pi’s own when the last message is a reply with usage, and estimated when messages follow it', () => {
    assert.equal(contextBreakdown(session())?.usedEstimated, false);
    const s = session().add({ id: 'u2', type: 'message', message: { role: 'user', content: 'more' } });
    assert.equal(contextBreakdown(s)?.usedEstimated, true);
  });

  it('counts the parts when Pi does not know the context size (right after compaction)', () => {
    const s = session();
    s.contextTokens = null;
    const b = contextBreakdown(s);
    assert.equal(b?.used, undefined);
    assert.equal(part(b, 'free')?.tokens, 10_000 - (100 + (part(b, 'tools')?.tokens ?? 0) + 40 + 1100 + 1200));
  });

  it('lists the largest tool results first, with their entry and tool call', () => {
    const b = contextBreakdown(session());
    assert.deepEqual(
      b?.largest.map((i) => [i.entryId, i.toolCallId, i.tokens]),
      [
        ['t1', 'call1', 2200],
        ['t2', 'call2', 100],
      ],
    );
  });

  it('keeps at most five items', () => {
    const s = session();
    for (let i = 0; i < 7; i++) s.add(toolResult(`r${i}`, `c${i}`, 100 * (i + 1)));
    assert.equal(contextBreakdown(s)?.largest.length, 5);
  });

  it('gives the last reply’s cache figures and cost, billed when the provider reported it, and the session’s total', () => {
    const b = contextBreakdown(session());
    assert.deepEqual(b?.lastReply, { input: 300, output: 40, cacheRead: 10, cacheWrite: 5, cost: 0.02, billed: true });
    assert.ok(Math.abs((b?.session.cost ?? 0) - 0.03) < 1e-9);
    assert.equal(b?.session.billed, false, 'one reply was a catalog estimate');
  });

  it('warns near the auto-compaction threshold of the session’s model and says what compaction keeps', () => {
    const s = session();
    assert.deepEqual(contextBreakdown(s)?.compaction, { enabled: true, threshold: 8000, keepRecentTokens: 2000, near: false });
    s.contextTokens = 6500;
    assert.equal(contextBreakdown(s)?.compaction?.near, true);
    s.compaction = { ...s.compaction, enabled: false };
    assert.equal(contextBreakdown(s)?.compaction?.near, false);
  });

  it('drops a tool result by a context edit with a placeholder, refreshes Pi’s context and shows it dropped', () => {
    const s = session();
    assert.equal(dropFromContext(s, 't1'), true);
    assert.deepEqual(s.entries.at(-1), {
      id: 'edit5',
      type: 'context_edit',
      targetId: 't1',
      replacement: { content: [{ type: 'text', text: droppedPlaceholder(2200) }] },
    });
    assert.equal(s.refreshed, 1);
    const b = contextBreakdown(s);
    assert.deepEqual(b?.dropped, ['call1']);
    assert.deepEqual(
      b?.largest.map((i) => i.entryId),
      ['t2'],
    );
  });

  it('refuses to drop anything but a tool result of the branch', () => {
    const s = session();
    assert.equal(dropFromContext(s, 'u1'), false);
    assert.equal(dropFromContext(s, 'nope'), false);
    assert.equal(s.entries.length, 5);
  });

  it('offers no Drop when the SDK has no context edits', () => {
    const s = session();
    s.canEdit = false;
    assert.equal(contextBreakdown(s)?.canDrop, false);
    assert.equal(dropFromContext(s, 't1'), false);
  });

  it('has no breakdown without a context window', () => {
    assert.equal(contextBreakdown({ getContextUsage: () => undefined }), undefined);
  });

  it('marks a reply’s cost billed when the provider reported it, and only then', () => {
    const end = (cost: Record<string, unknown>) =>
      project(
        { type: 'message_end', message: { role: 'assistant', content: [], stopReason: 'stop', usage: usage(1, 2, 0.5, cost) } } as unknown as AgentSessionEvent,
        {
          state: initialTranscript,
          now: 1,
        },
      ).find((e) => e.type === 'assistantEnd');
    assert.deepEqual(end({ totalFromProvider: true }), {
      ...end({ totalFromProvider: true }),
      usage: { input: 1, output: 2, cacheRead: 10, cacheWrite: 5, cost: 0.5, billed: true },
    });
    assert.equal((end({}) as { usage?: { billed?: boolean } }).usage?.billed, undefined);
  });
});
