import { strict as assert } from 'node:assert';
import { importGraph } from '../../scripts/importCycles.ts';
import { applyChanges } from '../../src/shared/transcript/applyChanges.ts';
import { asSent, initialTranscript, reduceOne } from '../../src/shared/transcript/reduce.ts';
import type { MessageView, TranscriptState } from '../../src/shared/transcript/rows.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { RowChanges } from '../../src/worker/rowChanges.ts';

const REDUCER = 'src/shared/transcript/reduce.ts';

/** Every file `from` reaches through its imports (type-only ones included). */
function reached(graph: ReadonlyMap<string, readonly string[]>, from: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...from];
  while (queue.length) {
    const f = queue.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    queue.push(...(graph.get(f) ?? []));
  }
  return seen;
}

/** The worker's side: its transcript reduced from `events`, and the changes it sends for them. */
function worker(events: readonly WireEvent[], start: TranscriptState = initialTranscript): { state: TranscriptState; sent: WireEvent[] } {
  const changes = new RowChanges();
  let state = start;
  const sent: WireEvent[] = [];
  for (const raw of events) {
    const prev = state;
    state = reduceOne(prev, asSent(prev, raw));
    changes.step(prev, state, raw, sent);
  }
  return { state, sent };
}

/** What crosses a postMessage. */
const wire = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

const reply = (text: string, pieces: number): WireEvent[] => {
  const size = Math.ceil(text.length / pieces);
  const out: WireEvent[] = [
    { type: 'userMessage', text: 'Hi', images: 0 },
    { type: 'runStart' },
    { type: 'assistantStart', at: 1 },
    { type: 'blockStart', index: 0, kind: 'text', at: 1 },
  ];
  for (let i = 0; i < text.length; i += size) out.push({ type: 'delta', index: 0, text: text.slice(i, i + size) });
  out.push(
    { type: 'blockEnd', index: 0, at: 2 },
    { type: 'assistantEnd', stopReason: 'stop', at: 2 },
    { type: 'settled', aborted: false, at: 3 },
    { type: 'runEnd', willRetry: false },
  );
  return out;
};

describe('rows owned by the worker: the main thread and the view apply its changes by id', () => {
  it('the extension host and the webview reach no reducer of rows through their imports', () => {
    const graph = importGraph('src');
    const sides = [...graph.keys()].filter((f) => f.startsWith('src/extension/') || f.startsWith('src/webview/'));
    assert.ok(sides.length > 50, 'the graph names the files');
    const seen = reached(graph, sides);
    assert.equal(seen.has(REDUCER), false, `${REDUCER} is reached from the extension host or the webview`);
  });

  it('a streaming reply applied as patches equals the worker row, every streaming step a patch of the new text only', () => {
    const text = 'The agent streams text into the panel one small delta at a time. '.repeat(20);
    const { state, sent } = worker(reply(text, 130));
    const patches = sent.filter((e) => e.type === 'patch' && e.text !== undefined);
    assert.equal(patches.length, 130, 'one patch of text per delta');
    for (const p of patches) assert.ok(JSON.stringify(p).length < 80, `a patch carries its piece, not the reply: ${JSON.stringify(p).length} bytes`);
    const applied = applyChanges(initialTranscript, wire(sent));
    assert.deepEqual(wire(applied.messages), wire(state.messages));
    assert.deepEqual(wire(applied.run), wire(state.run));
    assert.equal(applied.nextId, state.nextId);
  });

  it('a block start, a block end and a reply end are patches of what changed, never the whole row again', () => {
    const events: WireEvent[] = [
      ...reply('First words.', 2).slice(0, -3),
      { type: 'blockStart', index: 1, kind: 'toolCall', toolCallId: 'c1', toolName: 'read', at: 2 },
      { type: 'delta', index: 1, text: '{"path":"a.ts"}' },
      { type: 'blockEnd', index: 1, at: 2 },
      { type: 'assistantEnd', stopReason: 'toolUse', at: 3 },
    ];
    const { state, sent } = worker(events);
    const reply2 = state.messages.find((m) => m.role === 'assistant')!;
    const ofReply = sent.filter((e) => (e.type === 'row' || e.type === 'patch') && e.id === reply2.id);
    assert.deepEqual(
      ofReply.filter((e) => e.type === 'row').length,
      1,
      `the reply is sent whole once, when it starts: ${JSON.stringify(ofReply.filter((e) => e.type === 'row'))}`,
    );
    for (const e of ofReply) if (e.type === 'patch') assert.ok(!JSON.stringify(e).includes('"blocks"'), `a patch names no blocks array: ${JSON.stringify(e)}`);
    // A row sent whole names its id once, in the change.
    for (const e of sent) if (e.type === 'row') assert.equal('id' in e.row, false, JSON.stringify(e));
    const applied = applyChanges(initialTranscript, wire(sent));
    assert.deepEqual(wire(applied.messages), wire(state.messages));
  });

  it('patches carry no revision, and the run state goes as the events that make it or as the fields that changed', () => {
    const events: WireEvent[] = [...reply('Short answer.', 3).slice(0, -3), { type: 'assistantEnd', stopReason: 'error', errorMessage: 'boom', at: 3 }];
    events.push({ type: 'settled', aborted: false, at: 4 }, { type: 'runEnd', willRetry: false });
    const { state, sent } = worker(events);
    for (const e of sent) if (e.type === 'patch') assert.equal('rev' in e, false, `a patch's revision is implied: ${JSON.stringify(e)}`);
    for (const e of sent) assert.ok(!JSON.stringify(e).includes('"cancelling"'), `the run is never sent whole: ${JSON.stringify(e)}`);
    // The provider's error is no event the receiver gets: its field goes as a run change, and only it.
    const runs = sent.filter((e) => e.type === 'run');
    assert.deepEqual(wire(runs), [{ type: 'run', set: { lastError: 'boom' } }]);
    const applied = applyChanges(initialTranscript, wire(sent));
    assert.deepEqual(wire(applied.run), wire(state.run));
    assert.equal(applied.run.outcome?.kind, 'error');
  });

  it("events that change nothing a receiver shows (a turn starting and ending, Pi's runEnd) are not sent", () => {
    const { state, sent } = worker([{ type: 'turnStart' }, ...reply('Answer.', 2), { type: 'turnEnd' }]);
    const types = sent.map((e) => e.type);
    for (const type of ['turnStart', 'turnEnd', 'runEnd'])
      assert.equal(types.includes(type as WireEvent['type']), false, `${type} was sent: ${types.join(', ')}`);
    const applied = applyChanges(initialTranscript, wire(sent));
    assert.deepEqual(wire(applied.run), wire(state.run));
  });

  it('revisions of rows sent whole rise with each change, and a row the receiver let go is not put back out of place', () => {
    const { sent } = worker([...reply('First answer.', 3), { type: 'changes', runId: 'r1', files: [] }, ...reply('Second answer.', 2)]);
    const revs = sent.flatMap((e) => (e.type === 'row' ? [e.rev] : []));
    assert.deepEqual(
      revs,
      revs.slice().sort((a, b) => a - b),
    );
    // An update of row 1 reaches a side that holds only the newest rows: it is not appended after them.
    const held = applyChanges(initialTranscript, wire(sent));
    const row: MessageView = { ...held.messages[0]!, blocks: [] };
    const update: WireEvent = { type: 'row', id: 1, rev: 999, row };
    const newest = applyChanges(initialTranscript, wire(sent.filter((e) => e.type !== 'row' || e.id > 3)));
    const after = applyChanges(newest, [update]);
    assert.deepEqual(
      after.messages.map((m) => m.id),
      newest.messages.map((m) => m.id),
    );
  });

  it('tool cards, a Changes row update, a retried attempt and a reset reach the receiver as the worker has them', () => {
    const events: WireEvent[] = [
      { type: 'userMessage', text: 'Go', images: 0 },
      { type: 'runStart' },
      { type: 'assistantStart', at: 1 },
      { type: 'blockStart', index: 0, kind: 'toolCall', toolCallId: 'c1', toolName: 'bash', at: 1 },
      { type: 'delta', index: 0, text: '{"command":"ls"}' },
      { type: 'blockEnd', index: 0, at: 1 },
      { type: 'assistantEnd', stopReason: 'toolUse', at: 1 },
      { type: 'toolStart', toolCallId: 'c1', toolName: 'bash', at: 1 },
      { type: 'toolUpdate', toolCallId: 'c1', output: 'a' },
      { type: 'toolEnd', toolCallId: 'c1', isError: false, output: 'ab' },
      { type: 'toolResult', toolCallId: 'c1', toolName: 'bash', isError: false },
      { type: 'assistantStart', at: 2 },
      { type: 'assistantEnd', stopReason: 'error', errorMessage: 'boom', at: 2 },
      { type: 'retryStart', attempt: 1, maxAttempts: 3, delayMs: 10, errorMessage: 'boom', at: 2 },
      { type: 'changes', runId: 'r1', files: [{ path: 'a.ts', added: 1, removed: 0, status: 'modified' }] as never },
      { type: 'changes', runId: 'r1', files: [] },
      { type: 'settled', aborted: false, at: 3 },
    ];
    const { state, sent } = worker(events);
    const applied = applyChanges(initialTranscript, wire(sent));
    assert.deepEqual(wire(applied.messages), wire(state.messages));
    assert.deepEqual(wire(applied.tools), wire(state.tools));
    assert.deepEqual(wire(applied.run), wire(state.run));
    const reset = worker([{ type: 'reset' }, { type: 'userMessage', text: 'Again', images: 0 }], state);
    const again = applyChanges(applied, wire(reset.sent));
    assert.deepEqual(wire(again.messages), wire(reset.state.messages));
    assert.deepEqual(wire(again.tools), wire(reset.state.tools));
    assert.deepEqual(wire(again.run), wire(reset.state.run));
  });
});

describe('the frame batcher joins changes of one row', () => {
  it('a short reply whose start, words and end share a frame arrives as one row, and applies to the same rows', async () => {
    const { Batcher } = await import('../../src/shared/batcher.ts');
    const { TestClock } = await import('../support/testClock.ts');
    const { state, sent } = worker(reply('Short answer.', 1));
    const posted: WireEvent[][] = [];
    const batcher = new Batcher((events) => posted.push(wire(events)), new TestClock());
    for (const ev of sent) batcher.push(ev);
    batcher.flush();
    const id = state.messages.find((m) => m.role === 'assistant')!.id;
    const ofReply = posted.flat().filter((e) => (e.type === 'row' || e.type === 'patch') && e.id === id);
    assert.deepEqual(
      ofReply.map((e) => e.type),
      ['row'],
      `${sent.filter((e) => (e.type === 'row' || e.type === 'patch') && e.id === id).length} changes of the reply were sent`,
    );
    const applied = applyChanges(initialTranscript, posted.flat());
    assert.deepEqual(wire(applied.messages), wire(state.messages));
  });
});
