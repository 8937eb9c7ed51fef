import { strict as assert } from 'node:assert';
import type { AgentSessionEvent } from '@earendil-works/pi-coding-agent';
import { project } from '../../src/worker/projection.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { runPhase } from '../../src/shared/run/runState.ts';
import { earlierPage, prependRows, recentPart, SNAPSHOT_ROWS } from '../../src/shared/transcript/paging.ts';
import { initialTranscript, reduce, withRowUpdates } from '../../src/shared/transcript/reduce.ts';
import { toolOf, type MessageView, type TranscriptState } from '../../src/shared/transcript/rows.ts';
import { rows } from '../../src/shared/transcript/rowStore.ts';
import { longTranscript } from '../webview/builders.ts';
import { finalMessages, loadRecorded, runThrough } from '../support/recorded.ts';
import { anyRow } from '../support/anyRow.ts';

const RECORDED = [
  'plain-text',
  'thinking-then-text',
  'tool-then-answer',
  'parallel-tools',
  'blocked-tool',
  'retry-500-twice',
  'retries-exhausted',
  'retry-cancelled',
  'long-stream-cancel',
  'long-stream-followup-cancel',
  'bash-sleep-cancel',
  'hostile-markdown',
  'demo',
];

/** The content of a Pi message as (kind, text) pairs, the way the panel shows it. */
function piBlocks(m: Record<string, unknown>): { kind: string; text: string }[] {
  return ((m.content ?? []) as Record<string, unknown>[]).map((c) =>
    c.type === 'thinking'
      ? { kind: 'thinking', text: String(c.thinking) }
      : c.type === 'toolCall'
        ? { kind: 'toolCall', text: JSON.stringify(c.arguments) }
        : { kind: 'text', text: String(c.text ?? '') },
  );
}

function viewBlocks(m: Pick<MessageView, 'blocks'>): { kind: string; text: string }[] {
  return m.blocks.map((b) => ({ kind: b!.kind, text: b!.kind === 'toolCall' ? JSON.stringify(JSON.parse(b!.text)) : b!.text }));
}

const ev = (e: unknown) => e as AgentSessionEvent;

describe('transcript reducer with real Pi event streams', () => {
  for (const name of RECORDED) {
    it(`ends equal to Pi's final messages: ${name}`, () => {
      const events = loadRecorded(name);
      const { state, unknown } = runThrough(events);
      assert.deepEqual(unknown, [], 'every recorded event type is known');
      const piAssistants = finalMessages(events).filter((m) => m.role === 'assistant');
      const ours = state.messages.filter((m) => m.role === 'assistant');
      assert.equal(ours.length, piAssistants.length);
      ours.forEach((m, i) => {
        assert.deepEqual(viewBlocks(m), piBlocks(piAssistants[i]!), `assistant message ${i}`);
        assert.equal(m.stopReason, piAssistants[i]!.stopReason);
        assert.equal(m.final, true);
      });
      assert.equal(state.openIndex, -1);
      assert.equal(runPhase(state.run), 'idle', 'agent_settled ends every recorded run');
    });
  }

  it('never shows the system message Pi 1.6 sends first', () => {
    const events = loadRecorded('plain-text');
    assert.ok(events.some((e) => e.type === 'message_start' && (e.message as { role: string }).role === 'system'));
    const { state } = runThrough(events);
    assert.deepEqual(
      state.messages.map((m) => m.role),
      ['user', 'assistant'],
    );
  });

  it('keys parallel tool cards by toolCallId and keeps results in source order', () => {
    const events = loadRecorded('parallel-tools');
    const ends = events.filter((e) => e.type === 'tool_execution_end').map((e) => (e as { toolCallId: string }).toolCallId);
    assert.deepEqual(ends, ['call_b', 'call_a'], 'the recording finishes in reverse order');
    const { state } = runThrough(events);
    assert.equal(state.tools.call_a!.status, 'done');
    assert.equal(state.tools.call_b!.status, 'done');
    assert.match(state.tools.call_a!.output, /a/);
    assert.match(state.tools.call_b!.output, /b/);
    assert.notEqual(state.tools.call_a!.output, state.tools.call_b!.output);
    assert.ok(state.tools.call_a!.durationMs! > state.tools.call_b!.durationMs!);
    const results = state.messages.filter((m) => m.role === 'toolResult').map((m) => m.toolCallId);
    assert.deepEqual(results, ['call_a', 'call_b']);
  });

  it('marks a tool blocked in preflight as an error right after its start', () => {
    const { state } = runThrough(loadRecorded('blocked-tool'));
    for (const card of Object.values(state.tools)) assert.equal(card.status, 'error', card.toolCallId);
    assert.equal(Object.keys(state.tools).length, 2);
  });

  it('keeps partial text and marks the message aborted when a run is cancelled mid-stream', () => {
    const events = loadRecorded('long-stream-cancel');
    const { state } = runThrough(events);
    const last = anyRow(state.messages.at(-1)!);
    assert.equal(last.stopReason, 'aborted');
    assert.ok(last.blocks[0]!.text.length > 0, 'partial text kept');
    assert.equal(state.run.outcome?.kind, 'cancelled');
  });

  it('shows a tool as running at its start and done only at its end', () => {
    const events = loadRecorded('tool-then-answer');
    const startAt = events.findIndex((e) => e.type === 'tool_execution_start');
    const endAt = events.findIndex((e) => e.type === 'tool_execution_end');
    const id = (events[startAt] as { toolCallId: string }).toolCallId;
    assert.equal(runThrough(events.slice(0, startAt + 1)).state.tools[id]!.status, 'running');
    assert.equal(runThrough(events.slice(0, endAt)).state.tools[id]!.status, 'running');
    assert.equal(runThrough(events.slice(0, endAt + 1)).state.tools[id]!.status, 'done');
  });
});

describe('transcript reducer rules', () => {
  const start: WireEvent[] = [{ type: 'runStart' }, { type: 'assistantStart', at: 1 }];

  it("names a user row's session entry once Pi wrote it, while the reply streams too, and never one a crafted file gives", () => {
    const entryOf = (s: TranscriptState, id: number) => {
      const m = s.messages.find((r) => r.id === id);
      return m?.role === 'user' ? m.entryId : undefined;
    };
    const sent = reduce(initialTranscript, [
      { type: 'userMessage', text: 'Same', images: 0, rowId: 1, entryId: 'u1' },
      { type: 'userMessage', text: 'Same', images: 0, rowId: 2 },
      { type: 'assistantStart', at: 0, rowId: 3 },
    ]);
    assert.equal(entryOf(sent, 1), 'u1', 'a replayed row carries its entry');
    assert.equal(entryOf(sent, 2), undefined, 'a live row has none until Pi wrote it');
    const written = reduce(sent, [{ type: 'userEntry', rowId: 2, entryId: 'u2' }]);
    assert.equal(entryOf(written, 2), 'u2');
    assert.equal(written.openIndex, 2, 'the reply still streams');
    assert.equal(entryOf(written, 1), 'u1');
    assert.equal(entryOf(withRowUpdates(sent, [{ type: 'userEntry', rowId: 2, entryId: 'u2' }]), 2), 'u2', 'a part read back takes it too');
    assert.equal(reduce(written, [{ type: 'userEntry', rowId: 3, entryId: 'x' }]).messages[2]?.role, 'assistant', 'only a user row takes one');
    const crafted = reduce(initialTranscript, [
      { type: 'userMessage', text: 'a', images: 0, entryId: '../../x' },
      { type: 'userMessage', text: 'b', images: 0, entryId: { toString: 1 } as unknown as string },
    ]);
    assert.deepEqual(
      crafted.messages.map((m) => (m.role === 'user' ? m.entryId : null)),
      [undefined, undefined],
    );
  });

  it('buckets deltas by contentIndex, never into one string', () => {
    const s = reduce(initialTranscript, [
      ...start,
      { type: 'blockStart', index: 0, kind: 'thinking', at: 1 },
      { type: 'blockStart', index: 1, kind: 'text', at: 1 },
      { type: 'delta', index: 0, text: 'hmm ' },
      { type: 'delta', index: 1, text: 'Hello' },
      { type: 'delta', index: 0, text: 'ok' },
      { type: 'delta', index: 1, text: ' world' },
    ]);
    const m = s.messages[0]!;
    assert.equal(m.blocks[0]!.kind, 'thinking');
    assert.equal(m.blocks[0]!.text, 'hmm ok');
    assert.equal(m.blocks[1]!.text, 'Hello world');
  });

  it('lets text_end replace the streamed block', () => {
    let state: TranscriptState = reduce(initialTranscript, [
      ...start,
      { type: 'blockStart', index: 0, kind: 'text', at: 1 },
      { type: 'delta', index: 0, text: 'Helo' },
    ]);
    const partial = { role: 'assistant', content: [{ type: 'text', text: 'Hello' }] };
    const wire = project(
      ev({ type: 'message_update', message: partial, assistantMessageEvent: { type: 'text_end', contentIndex: 0, content: 'Hello', partial } }),
      { state, now: 2 },
    );
    assert.deepEqual(wire, [{ type: 'blockEnd', index: 0, at: 2, final: { index: 0, kind: 'text', text: 'Hello' } }]);
    state = reduce(state, wire);
    assert.equal(state.messages[0]!.blocks[0]!.text, 'Hello');
    assert.equal(state.messages[0]!.blocks[0]!.final, true);
  });

  it('sends nothing but the end marker when text_end matches what streamed', () => {
    const state = reduce(initialTranscript, [...start, { type: 'blockStart', index: 0, kind: 'text', at: 1 }, { type: 'delta', index: 0, text: 'Hello' }]);
    const partial = { role: 'assistant', content: [{ type: 'text', text: 'Hello' }] };
    const wire = project(
      ev({ type: 'message_update', message: partial, assistantMessageEvent: { type: 'text_end', contentIndex: 0, content: 'Hello', partial } }),
      { state, now: 2 },
    );
    assert.deepEqual(wire, [{ type: 'blockEnd', index: 0, at: 2 }]);
  });

  it('lets message_end replace the whole streamed message', () => {
    let state = reduce(initialTranscript, [
      ...start,
      { type: 'blockStart', index: 0, kind: 'text', at: 1 },
      { type: 'delta', index: 0, text: 'draft' },
      { type: 'blockStart', index: 1, kind: 'text', at: 1 },
    ]);
    const final = {
      role: 'assistant',
      content: [{ type: 'text', text: 'final' }],
      stopReason: 'length',
      usage: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, cost: { total: 0.5 } },
    };
    state = reduce(state, project(ev({ type: 'message_end', message: final }), { state, now: 3 }));
    const m = anyRow(state.messages[0]!);
    assert.deepEqual(viewBlocks(m), [{ kind: 'text', text: 'final' }]);
    assert.equal(m.stopReason, 'length');
    assert.equal(m.usage?.cost, 0.5);
    assert.equal(state.openIndex, -1);
  });

  it('shows the provider error of an errored message', () => {
    let state = reduce(initialTranscript, start);
    const final = { role: 'assistant', content: [], stopReason: 'error', errorMessage: '401 bad key' };
    state = reduce(state, project(ev({ type: 'message_end', message: final }), { state, now: 3 }));
    assert.equal(anyRow(state.messages[0]!).errorMessage, '401 bad key');
    assert.equal(anyRow(state.messages[0]!).stopReason, 'error');
  });

  for (const [stopReason, errorMessage, reason] of [
    ['error', '500 overloaded', '500 overloaded'],
    ['error', undefined, 'Error'],
    ['aborted', undefined, 'Operation aborted'],
  ] as const) {
    it(`fails the tool calls of a message that ended ${stopReason}${errorMessage ? ' with a message' : ''}, with the reason, instead of leaving them pending`, () => {
      let state = reduce(initialTranscript, [
        ...start,
        { type: 'blockStart', index: 0, kind: 'toolCall', toolCallId: 'c1', toolName: 'bash', at: 1 },
        { type: 'delta', index: 0, text: '{"command":"ls"}' },
      ]);
      const final = {
        role: 'assistant',
        content: [
          { type: 'toolCall', id: 'c1', name: 'bash', arguments: { command: 'ls' } },
          { type: 'toolCall', id: 'c2', name: 'read', arguments: { path: 'a' } },
        ],
        stopReason,
        ...(errorMessage ? { errorMessage } : {}),
      };
      state = reduce(state, project(ev({ type: 'message_end', message: final }), { state, now: 3 }));
      for (const [id, name] of [
        ['c1', 'bash'],
        ['c2', 'read'],
      ]) {
        const card = toolOf(state.tools, id!);
        assert.equal(card?.status, 'error', id);
        assert.equal(card.output, reason, id);
        assert.equal(card.toolName, name, id);
      }
    });
  }

  it('fails the tool calls of a message left streaming when the run settles without its end', () => {
    const state = reduce(initialTranscript, [
      ...start,
      { type: 'blockStart', index: 0, kind: 'toolCall', toolCallId: 'c1', toolName: 'bash', at: 1 },
      { type: 'delta', index: 0, text: '{"comm' },
      { type: 'settled', aborted: true, at: 5 },
    ]);
    assert.equal(toolOf(state.tools, 'c1')?.status, 'error');
  });

  it('leaves the calls of a message that ended for a tool use pending until they run', () => {
    let state = reduce(initialTranscript, start);
    const final = { role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'bash', arguments: {} }], stopReason: 'toolUse' };
    state = reduce(state, project(ev({ type: 'message_end', message: final }), { state, now: 3 }));
    assert.equal(toolOf(state.tools, 'c1'), undefined);
  });

  it('reads events in the callback: later mutation by Pi changes nothing', () => {
    const queue = { type: 'queue_update', steering: ['a'], followUp: ['b'] };
    const wire = project(ev(queue), { state: initialTranscript, now: 1 });
    queue.steering.push('mutated');
    queue.followUp.length = 0;
    const state = reduce(initialTranscript, wire);
    assert.deepEqual(state.queue, { steering: ['a'], followUp: ['b'] });
  });

  it("puts a call another tool made (a codemode script's MCP call) under that tool's card, in start order", () => {
    const ctx = (state: TranscriptState) => ({ state, now: 5 });
    let s = reduce(initialTranscript, [{ type: 'toolStart', toolCallId: 'cm', toolName: 'codemode', args: '{"code":"…"}', at: 1 }]);
    for (const ev of [
      { type: 'tool_execution_start', toolCallId: 'n1', toolName: 'mcp__stub__echo', args: { text: 'a' }, parentToolCallId: 'cm' },
      { type: 'tool_execution_start', toolCallId: 'n2', toolName: 'mcp__stub__echo', args: { text: 'b' }, parentToolCallId: 'cm' },
      {
        type: 'tool_execution_end',
        toolCallId: 'n2',
        toolName: 'mcp__stub__echo',
        result: { content: [{ type: 'text', text: 'echo: b' }] },
        isError: false,
        parentToolCallId: 'cm',
      },
    ] as AgentSessionEvent[])
      s = reduce(s, project(ev, ctx(s)));
    assert.deepEqual(toolOf(s.tools, 'cm')?.children, ['n1', 'n2']);
    assert.equal(toolOf(s.tools, 'n1')?.parentToolCallId, 'cm');
    assert.equal(toolOf(s.tools, 'n1')?.args, '{"text":"a"}');
    assert.equal(toolOf(s.tools, 'n2')?.status, 'done');
    assert.equal(toolOf(s.tools, 'n2')?.output, 'echo: b');
    assert.equal(toolOf(s.tools, 'cm')?.status, 'running', "the script's own card is untouched by its calls' ends");
    // A start Pi repeats for the same call is not a second child.
    s = reduce(s, [{ type: 'toolStart', toolCallId: 'n1', toolName: 'mcp__stub__echo', parentToolCallId: 'cm', at: 6 }]);
    assert.deepEqual(toolOf(s.tools, 'cm')?.children, ['n1', 'n2']);
  });

  it('treats tool output updates as snapshots, not appends', () => {
    const state = reduce(initialTranscript, [
      { type: 'toolStart', toolCallId: 'x', toolName: 'bash', args: '{}', at: 1 },
      { type: 'toolUpdate', toolCallId: 'x', output: 'line1' },
      { type: 'toolUpdate', toolCallId: 'x', output: 'line1\nline2' },
    ]);
    assert.equal(state.tools.x!.output, 'line1\nline2');
    assert.equal(state.tools.x!.status, 'running');
  });

  it('ignores and reports an unknown Pi event instead of failing', () => {
    const seen: string[] = [];
    const wire = project(ev({ type: 'brand_new_event', payload: 1 }), { state: initialTranscript, now: 1, onUnknown: (t) => seen.push(t) });
    assert.deepEqual(wire, []);
    assert.deepEqual(seen, ['brand_new_event']);
  });

  it('marks an errored attempt as retried when Pi retries it', () => {
    const { state } = runThrough(loadRecorded('retry-500-twice'));
    const assistants = state.messages.filter((m) => m.role === 'assistant');
    assert.deepEqual(
      assistants.map((m) => [m.stopReason, m.retried === true]),
      [
        ['error', true],
        ['error', true],
        ['stop', false],
      ],
    );
  });

  it('closes a message left streaming when the run settles without its end', () => {
    const state = reduce(initialTranscript, [
      ...start,
      { type: 'blockStart', index: 0, kind: 'text', at: 1 },
      { type: 'delta', index: 0, text: 'half' },
      { type: 'settled', aborted: true, at: 5 },
    ]);
    assert.equal(state.messages[0]!.final, true);
    assert.equal(anyRow(state.messages[0]!).stopReason, 'aborted');
    assert.equal(state.messages[0]!.blocks[0]!.text, 'half');
  });
});

describe('delivery orders', () => {
  /** Deterministic pseudo-random numbers so a failure can be replayed. */
  function rng(seed: number) {
    return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  }

  it('converges to the same state for any allowed interleaving of parallel tool events', () => {
    const events = loadRecorded('parallel-tools');
    const firstTool = events.findIndex((e) => e.type === 'tool_execution_start');
    const lastTool = events.findLastIndex((e) => e.type === 'tool_execution_end');
    const before = events.slice(0, firstTool);
    const toolEvents = events.slice(firstTool, lastTool + 1);
    const after = events.slice(lastTool + 1);
    const byCall = new Map<string, AgentSessionEvent[]>();
    for (const e of toolEvents) {
      const id = (e as { toolCallId: string }).toolCallId;
      byCall.set(id, [...(byCall.get(id) ?? []), e]);
    }
    const reference = runThrough(events).state;
    const strip = (s: TranscriptState) =>
      JSON.stringify({
        messages: s.messages.map((m) => ({ ...m, startedAt: 0, endedAt: 0, blocks: m.blocks.map((b) => b && { ...b, startedAt: 0, endedAt: 0 }) })),
        tools: Object.fromEntries(
          Object.entries(s.tools)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([k, v]) => [k, { ...v, startedAt: 0 }]),
        ),
      });
    const random = rng(7);
    for (let trial = 0; trial < 50; trial++) {
      // Each call's own events keep their order; calls interleave at random.
      const queues = [...byCall.values()].map((q) => [...q]);
      const mixed: AgentSessionEvent[] = [];
      while (queues.some((q) => q.length)) {
        const live = queues.filter((q) => q.length);
        mixed.push(live[Math.floor(random() * live.length)]!.shift()!);
      }
      const { state } = runThrough([...before, ...mixed, ...after]);
      assert.equal(strip(state), strip(reference), `trial ${trial}`);
    }
  });
});

describe('transcript reducer robustness', () => {
  const prototypeIds = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

  it('keys tool cards by any id, Object.prototype member names included', () => {
    let state = initialTranscript;
    for (const id of prototypeIds) {
      state = reduce(state, [
        { type: 'toolStart', toolCallId: id, toolName: 'bash', args: '{}', at: 1 },
        { type: 'toolUpdate', toolCallId: id, output: `partial ${id}` },
        { type: 'toolEnd', toolCallId: id, isError: false, output: `out ${id}`, durationMs: 3 },
      ]);
    }
    assert.deepEqual(Object.keys(state.tools).sort(), [...prototypeIds].sort());
    for (const id of prototypeIds) {
      const card = toolOf(state.tools, id)!;
      assert.equal(card.status, 'done', id);
      assert.equal(card.output, `out ${id}`, id);
    }
    assert.equal(Object.getPrototypeOf(state.tools), null);
    // An update for an id never started is ignored, not read from Object.prototype.
    const ignored = reduce(initialTranscript, [{ type: 'toolUpdate', toolCallId: 'constructor', output: 'x' }]);
    assert.equal(toolOf(ignored.tools, 'constructor'), undefined);
  });

  it('ignores tool events whose call id is not text, so the cards still list and serialize', () => {
    const hostile = { toString: 1 } as unknown as string;
    const state = reduce(initialTranscript, [
      { type: 'toolStart', toolCallId: hostile, toolName: 'bash', args: '{}', at: 1 },
      { type: 'toolUpdate', toolCallId: hostile, output: 'x' },
      { type: 'toolEnd', toolCallId: hostile, isError: false, output: 'out', durationMs: 1 },
      { type: 'toolResult', toolCallId: hostile, toolName: hostile, isError: false, text: 'out' },
      { type: 'toolStart', toolCallId: 'ok', toolName: 'bash', args: '{}', parentToolCallId: hostile, at: 1 },
    ]);
    assert.deepEqual(Object.keys(state.tools), ['ok']);
    assert.equal(state.messages.length, 0);
    assert.doesNotThrow(() => JSON.stringify(state));
  });

  it('reads prototype-named ids safely from a snapshot that crossed JSON (and so lost its null prototype)', () => {
    const host = reduce(initialTranscript, [{ type: 'toolStart', toolCallId: 'toString', toolName: 'bash', args: '{}', at: 1 }]);
    const snapshot = JSON.parse(JSON.stringify(host)) as TranscriptState;
    assert.equal(toolOf(snapshot.tools, 'constructor'), undefined);
    assert.equal(toolOf(snapshot.tools, 'toString')!.status, 'running');
    const next = reduce(snapshot, [
      { type: 'toolEnd', toolCallId: 'toString', isError: true, output: 'failed', durationMs: 1 },
      { type: 'toolEnd', toolCallId: '__proto__', isError: false, output: 'ok', durationMs: 1 },
    ]);
    assert.equal(toolOf(next.tools, 'toString')!.status, 'error');
    assert.equal(toolOf(next.tools, '__proto__')!.output, 'ok');
    assert.equal(toolOf(next.tools, 'constructor'), undefined);
  });

  it('projects a tool result for a prototype-named id without reading Object.prototype', () => {
    const state = reduce(initialTranscript, [{ type: 'toolStart', toolCallId: 'constructor', toolName: 'bash', args: '{}', at: 1 }]);
    const wire = project(ev({ type: 'message_end', message: { role: 'toolResult', toolCallId: 'hasOwnProperty', toolName: 'bash', content: 'out' } }), {
      state,
      now: 1,
    });
    assert.deepEqual(wire, [{ type: 'toolResult', toolCallId: 'hasOwnProperty', toolName: 'bash', isError: false, text: 'out' }]);
  });

  it('closes the open row when another assistant row starts (a duplicated start or a lost end)', () => {
    const state = reduce(initialTranscript, [
      { type: 'runStart' },
      { type: 'assistantStart', at: 1 },
      { type: 'blockStart', index: 0, kind: 'text', at: 1 },
      { type: 'delta', index: 0, text: 'first' },
      { type: 'assistantStart', at: 2 },
      { type: 'blockStart', index: 0, kind: 'text', at: 2 },
      { type: 'delta', index: 0, text: 'second' },
    ]);
    assert.deepEqual(
      state.messages.map((m) => [m.blocks[0]?.text, m.final]),
      [
        ['first', true],
        ['second', false],
      ],
    );
    assert.equal(state.messages[0]!.blocks[0]!.final, true);
    assert.equal(state.openIndex, 1);
  });

  it('leaves nothing open once the run settles, whatever was lost or duplicated', () => {
    const state = reduce(initialTranscript, [
      { type: 'runStart' },
      { type: 'assistantStart', at: 1 },
      { type: 'assistantStart', at: 1 },
      { type: 'blockStart', index: 0, kind: 'text', at: 1 },
      { type: 'noticeMessage', level: 'warning', text: 'arrived while streaming' },
      { type: 'blockStart', index: 1, kind: 'thinking', at: 1 },
      { type: 'settled', aborted: false, at: 9 },
    ]);
    assert.equal(state.openIndex, -1);
    assert.deepEqual(
      state.messages.map((m) => m.role),
      ['assistant', 'assistant', 'notice'],
    );
    for (const m of state.messages) {
      assert.equal(m.final, true);
      for (const b of m.blocks) assert.equal(b?.final ?? true, true);
    }
  });

  it('keeps earlier states intact when later ones append (the row store is shared, not overwritten)', () => {
    const base = reduce(initialTranscript, [{ type: 'userMessage', text: 'one', images: 0 }]);
    const a = reduce(base, [{ type: 'userMessage', text: 'two', images: 0 }]);
    const b = reduce(base, [{ type: 'noticeMessage', level: 'info', text: 'other branch' }]);
    assert.deepEqual(
      base.messages.map((m) => m.blocks[0]!.text),
      ['one'],
    );
    assert.deepEqual(
      a.messages.map((m) => m.blocks[0]!.text),
      ['one', 'two'],
    );
    assert.deepEqual(
      b.messages.map((m) => m.blocks[0]!.text),
      ['one', 'other branch'],
    );
  });

  it('keeps nothing of a session in the empty transcript it started from (New Session frees the old rows)', () => {
    const session = reduce(initialTranscript, [
      { type: 'userMessage', text: 'one', images: 0 },
      { type: 'toolStart', toolCallId: 'a', toolName: 'bash', args: '{}', at: 1 },
      { type: 'toolEnd', toolCallId: 'a', isError: false, output: 'x'.repeat(1000), durationMs: 1 },
      { type: 'userMessage', text: 'two', images: 0 },
    ]);
    const fresh = reduce(session, [{ type: 'reset' }]);
    assert.equal(session.messages.length, 2);
    assert.equal(fresh.messages.length, 0);
    // What the module constant holds: a retained store or index would keep the first session alive.
    const held = rows(initialTranscript);
    assert.equal(held.store.length, 0);
    assert.equal(held.tools.order.length, 0);
    assert.equal(held.tools.index.size, 0);
    assert.equal(initialTranscript.messages.length, 0);
  });

  it('keeps the tool table the same object while only text streams (the view skips its cards)', () => {
    const base = reduce(initialTranscript, [
      { type: 'toolStart', toolCallId: 'a', toolName: 'bash', args: '{}', at: 1 },
      { type: 'runStart' },
      { type: 'assistantStart', at: 1 },
      { type: 'blockStart', index: 0, kind: 'text', at: 1 },
    ]);
    const next = reduce(base, [{ type: 'delta', index: 0, text: 'more' }]);
    assert.equal(next.tools, base.tools);
    // A change of run state alone keeps the rows array too.
    assert.equal(reduce(next, [{ type: 'cancelRequested', at: 2 }]).messages, next.messages);
    assert.notEqual(reduce(next, [{ type: 'toolUpdate', toolCallId: 'a', output: 'x' }]).tools, base.tools);
  });

  it('keeps tool cards of states that branch from one state apart', () => {
    const base = reduce(initialTranscript, [{ type: 'toolStart', toolCallId: 'a', toolName: 'bash', args: '{}', at: 1 }]);
    const one = reduce(base, [
      { type: 'toolEnd', toolCallId: 'a', isError: false, output: 'one', durationMs: 1 },
      { type: 'toolStart', toolCallId: 'only-in-one', toolName: 'bash', args: '{}', at: 2 },
      { type: 'toolEnd', toolCallId: 'only-in-one', isError: false, output: 'x', durationMs: 1 },
    ]);
    const two = reduce(base, [{ type: 'toolEnd', toolCallId: 'a', isError: true, output: 'two', durationMs: 1 }]);
    assert.deepEqual(Object.keys(one.tools), ['a', 'only-in-one']);
    assert.deepEqual(Object.keys(two.tools), ['a']);
    assert.equal(toolOf(one.tools, 'a')!.output, 'one');
    assert.equal(toolOf(two.tools, 'a')!.output, 'two');
    assert.equal(toolOf(base.tools, 'a')!.status, 'running');
  });

  it('continues from a snapshot that crossed JSON mid-stream exactly as from the original state', () => {
    const events: WireEvent[] = [
      { type: 'userMessage', text: 'hi', images: 0 },
      { type: 'runStart' },
      { type: 'assistantStart', at: 1 },
      { type: 'blockStart', index: 0, kind: 'text', at: 1 },
      { type: 'delta', index: 0, text: 'Hel' },
      { type: 'noticeMessage', level: 'info', text: 'meanwhile' },
    ];
    const rest: WireEvent[] = [
      { type: 'delta', index: 0, text: 'lo' },
      { type: 'blockEnd', index: 0, at: 2 },
      { type: 'assistantEnd', stopReason: 'stop', at: 3 },
      { type: 'settled', aborted: false, at: 4 },
    ];
    const host = reduce(initialTranscript, events);
    const viaJson = JSON.parse(JSON.stringify(host)) as TranscriptState;
    assert.equal(JSON.stringify(reduce(viaJson, rest)), JSON.stringify(reduce(host, rest)));
    assert.deepEqual(
      reduce(viaJson, rest).messages.map((m) => m.role),
      ['user', 'assistant', 'notice'],
    );
  });
});

describe('the Changes row', () => {
  const files = [{ path: 'a.ts', added: 2, removed: 1, created: false }];
  it('appends a changes row for a run, and an Undo updates that row in place', () => {
    let s = reduce(initialTranscript, [
      { type: 'userMessage', text: 'edit a.ts', images: 0 },
      { type: 'changes', runId: 'r1', files },
    ]);
    assert.deepEqual(
      s.messages.map((m) => m.role),
      ['user', 'changes'],
    );
    const id = s.messages[1]!.id;
    s = reduce(s, [{ type: 'changes', runId: 'r1', files: [{ ...files[0]!, undone: true }] }]);
    assert.equal(s.messages.length, 2);
    assert.equal(s.messages[1]!.id, id);
    assert.equal(anyRow(s.messages[1]!).files?.[0]?.undone, true);
    s = reduce(s, [{ type: 'changes', runId: 'r2', files }]);
    assert.deepEqual(
      s.messages.map((m) => anyRow(m).runId),
      [undefined, 'r1', 'r2'],
    );
  });
});

describe('snapshot paging', function () {
  // Builds 5,000-row transcripts: seconds on a loaded machine (a limit for hangs, not a speed check).
  this.timeout(30_000);
  /** Pages `part` back to the start the way the view does: earlier page, prepend, until nothing is left. */
  function pageAll(host: TranscriptState, part: { state: TranscriptState; earlier: number }, count: number): TranscriptState {
    let view = JSON.parse(JSON.stringify(part.state)) as TranscriptState;
    let earlier = part.earlier;
    while (earlier > 0) {
      const page = JSON.parse(JSON.stringify(earlierPage(host, view.messages[0]!.id, count))) as NonNullable<ReturnType<typeof earlierPage>>;
      assert.ok(page.messages.length > 0 && page.messages.length <= count);
      view = prependRows(view, page.messages, page.tools);
      earlier = page.earlier;
    }
    return view;
  }
  const wire = (s: TranscriptState) =>
    JSON.stringify({ messages: s.messages, tools: Object.fromEntries(Object.entries(s.tools).sort()), openIndex: s.openIndex });

  it('carries the newest rows, the tool cards they show and how many rows come before them', () => {
    const host = longTranscript(5000);
    const part = recentPart(host, SNAPSHOT_ROWS);
    assert.equal(part.state.messages.length, SNAPSHOT_ROWS);
    assert.equal(part.earlier, host.messages.length - SNAPSHOT_ROWS);
    assert.deepEqual(part.state.messages, host.messages.slice(-SNAPSHOT_ROWS));
    const shown = new Set(part.state.messages.flatMap((m) => [anyRow(m).toolCallId, ...m.blocks.map((b) => b?.toolCallId)]).filter((id) => id !== undefined));
    assert.deepEqual(new Set(Object.keys(part.state.tools)), shown);
    assert.equal(part.state.nextId, host.nextId);
    assert.equal(recentPart(longTranscript(40)).earlier, 0);
  });

  it('pages a snapshot back to the whole transcript, tool cards included', () => {
    const host = longTranscript(5000);
    const view = pageAll(host, recentPart(host, SNAPSHOT_ROWS), 100);
    assert.equal(wire(view), wire(host));
  });

  it('keeps the streaming row, running cards and live events converging while pages arrive', () => {
    let host = reduce(longTranscript(1000), [
      { type: 'userMessage', text: 'go on', images: 0 },
      { type: 'runStart' },
      { type: 'assistantStart', at: 5 },
      { type: 'blockStart', index: 0, kind: 'text', at: 5 },
      { type: 'delta', index: 0, text: 'Work' },
      { type: 'toolStart', toolCallId: 'live', toolName: 'bash', args: '{}', at: 5 },
    ]);
    const part = recentPart(host, 50);
    assert.equal(part.state.openIndex, 49);
    assert.equal(toolOf(part.state.tools, 'live')?.status, 'running');
    const live: WireEvent[] = [
      { type: 'delta', index: 0, text: 'ing' },
      { type: 'toolEnd', toolCallId: 'live', isError: false, output: 'ok' },
      { type: 'assistantEnd', stopReason: 'stop', at: 6 },
      { type: 'settled', aborted: false, at: 7 },
    ];
    // Half the live events land before the view pages anything, half after.
    let view = reduce(JSON.parse(JSON.stringify(part.state)) as TranscriptState, live.slice(0, 2));
    host = reduce(host, live.slice(0, 2));
    view = pageAll(host, { state: view, earlier: part.earlier }, 100);
    view = reduce(view, live.slice(2));
    host = reduce(host, live.slice(2));
    assert.equal(wire(view), wire(host));
  });

  it('gives no page before a row a replaced transcript lacks, and refuses a page that does not precede the rows held', () => {
    const host = longTranscript(400);
    const part = recentPart(host, 100);
    const page = earlierPage(host, part.state.messages[0]!.id, 100)!;
    const after = reduce(part.state, [{ type: 'reset' }, { type: 'userMessage', text: 'new', images: 0 }]);
    // Ids go on after a reset, so the new transcript names none of the old rows' ids.
    assert.ok(after.messages[0]!.id > part.state.messages.at(-1)!.id);
    assert.equal(earlierPage(after, part.state.messages[0]!.id, 100), undefined);
    assert.equal(prependRows(part.state, page.messages.slice().reverse(), page.tools), part.state);
  });
});
