/** The worker keeps a window of the newest rows: older pages are rebuilt from Pi's own messages with the ids and content the rows had, and find still searches the whole session. */

import { strict as assert } from 'node:assert';
import { findRows } from '../../src/shared/transcript/find.ts';
import { pageBefore } from '../../src/shared/transcript/paging.ts';
import { initialTranscript, reduceOne } from '../../src/shared/transcript/reduce.ts';
import { rowCount } from '../../src/shared/transcript/rowStore.ts';
import type { ChangesRow, TranscriptState } from '../../src/shared/transcript/rows.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { replayOnto } from '../../src/worker/replay.ts';
import { SessionController } from '../../src/worker/sessionController.ts';
import { FakeSession } from '../support/fakeSession.ts';
import { MemoryLog } from '../support/memoryLog.ts';
import { TestClock } from '../support/testClock.ts';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

function setup(session: FakeSession) {
  const clock = new TestClock();
  const emitted: WireEvent[] = [];
  const controller = new SessionController(async () => ({ session: session.asSession(), cwd: '/work' }), new MemoryLog(), clock, {
    settleTimeoutMs: 5000,
    noResponseMs: 60_000,
  });
  controller.onDidEmit((e) => emitted.push(...e));
  return { controller, emitted, clock };
}

/** Pi's messages of turn `n`: a prompt (every 7th with an image), a reply calling a tool, its result, a short answer. */
function turnMessages(n: number) {
  const id = `call_${n}`;
  const user = {
    role: 'user',
    content:
      n % 7 === 0
        ? [
            { type: 'text', text: `look at picture ${n}` },
            { type: 'image', data: PNG, mimeType: 'image/png' },
          ]
        : `question ${n} about needle`,
    timestamp: n,
  };
  const call = {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: `thinking about ${n}` },
      { type: 'text', text: `I will read file ${n}. Needle here.` },
      { type: 'toolCall', id, name: 'read', arguments: { path: `src/file${n}.ts` } },
    ],
    stopReason: 'toolUse',
    usage: { input: 10 + n, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15 + n, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    timestamp: n,
  };
  const result = {
    role: 'toolResult',
    toolCallId: id,
    toolName: 'read',
    content: [{ type: 'text', text: `contents of file ${n}\n`.repeat(20) }],
    isError: n % 11 === 0,
    timestamp: n,
  };
  const answer = { role: 'assistant', content: [{ type: 'text', text: `Answer ${n}: the needle is in file ${n}.` }], stopReason: 'stop', timestamp: n };
  return { user, call, result, answer, id };
}

/** One live turn as Pi streams it: the reply's text arrives in deltas, the tool runs, then the answer. */
function liveTurn(fake: FakeSession, clock: TestClock, n: number): void {
  const { user, call, result, answer, id } = turnMessages(n);
  fake.emit({ type: 'agent_start' });
  fake.emit({ type: 'message_start', message: user });
  fake.emit({ type: 'message_end', message: user });
  clock.advance(3);
  fake.emit({ type: 'message_start', message: { role: 'assistant', content: [], timestamp: n } });
  fake.emit({ type: 'message_update', assistantMessageEvent: { type: 'text_start', contentIndex: 1 } });
  fake.emit({ type: 'message_update', assistantMessageEvent: { type: 'text_delta', contentIndex: 1, delta: `I will read ` } });
  clock.advance(5);
  fake.emit({ type: 'message_end', message: call });
  fake.emit({ type: 'tool_execution_start', toolCallId: id, toolName: 'read', args: { path: `src/file${n}.ts` } });
  clock.advance(7);
  fake.emit({ type: 'tool_execution_end', toolCallId: id, toolName: 'read', result: { content: result.content }, isError: result.isError, durationMs: 7 });
  fake.emit({ type: 'message_start', message: result });
  fake.emit({ type: 'message_end', message: result });
  fake.emit({ type: 'message_start', message: { role: 'assistant', content: [], timestamp: n } });
  clock.advance(2);
  fake.emit({ type: 'message_end', message: answer });
  fake.emit({ type: 'agent_end', messages: [], willRetry: false });
  fake.emit({ type: 'agent_settled', aborted: false });
}

/** What the main thread would hold had it reduced every event the worker sent. */
function whole(emitted: readonly WireEvent[], from: TranscriptState = initialTranscript): TranscriptState {
  let s = from;
  for (const ev of emitted) s = reduceOne(s, ev);
  return s;
}

/** Every page of `size` rows before `before`, back to the first, from the controller and from `full`. */
function assertPagesEqual(controller: SessionController, full: TranscriptState, size: number): number {
  let before = full.messages.at(-1)!.id + 1;
  let pages = 0;
  for (;;) {
    const got = controller.transcript.pageBefore(before, size);
    const want = pageBefore(full, before, size);
    assert.deepStrictEqual(got, want, `the page before row ${before}`);
    pages++;
    if (!want.messages.length || want.earlier === 0) return pages;
    before = want.messages[0]!.id;
  }
}

describe('the worker keeps a window of the newest rows', () => {
  it('drops the oldest rows of a long live session and rebuilds each page from Pi messages with the same ids and content', async () => {
    const fake = new FakeSession();
    const { controller, emitted, clock } = setup(fake);
    await controller.ensureSession();
    for (let n = 0; n < 300; n++) {
      liveTurn(fake, clock, n);
      // A `!` command, a notice of the worker's own, and a compaction now and then.
      if (n % 25 === 3) {
        controller.emitExternal([{ type: 'bashStart', id: `sh${n}`, command: `echo needle ${n}`, excluded: false, at: clock.now() }]);
        controller.emitExternal([
          { type: 'bashEnd', id: `sh${n}`, command: `echo needle ${n}`, output: `needle ${n}\n`, exitCode: 0, cancelled: false, excluded: false },
        ]);
        controller.emitExternal([{ type: 'noticeMessage', level: 'warning', text: `a worker notice ${n} with a needle` }]);
      }
      if (n === 150) {
        fake.emit({ type: 'compaction_start', reason: 'manual' });
        fake.emit({
          type: 'compaction_end',
          reason: 'manual',
          result: { summary: 'summary', firstKeptEntryId: 'x', tokensBefore: 1234 },
          aborted: false,
          willRetry: false,
        });
      }
    }
    const full = whole(emitted);
    assert.ok(rowCount(full) > 1200);
    assert.ok(rowCount(controller.state) <= 700, `the worker holds ${rowCount(controller.state)} rows, not all ${rowCount(full)}`);
    assert.ok(Object.keys(controller.state.tools).length < 200, 'the cards of dropped rows go with them');
    assert.ok(assertPagesEqual(controller, full, 97) > 10);
    assert.deepStrictEqual(controller.transcript.recentPart().earlier, rowCount(full) - 200);
  });

  it('finds a text in rows it dropped as in rows it holds, oldest first', async () => {
    const fake = new FakeSession();
    const { controller, emitted, clock } = setup(fake);
    await controller.ensureSession();
    for (let n = 0; n < 250; n++) {
      liveTurn(fake, clock, n);
      if (n % 30 === 1) controller.emitExternal([{ type: 'noticeMessage', level: 'info', text: `notice ${n}: needle` }]);
    }
    const full = whole(emitted);
    for (const q of ['needle', 'NEEDLE IS IN FILE 3', 'picture 14', 'question 1 ', 'not there'])
      assert.deepStrictEqual(controller.transcript.findRows(q), findRows(full, q), q);
    assert.ok(controller.transcript.findRows('question 1 ').matches.length === 1);
  });

  it('rebuilds the pages of a resumed session (tool calls, images, `!` commands, a compaction summary) as it replayed them', async () => {
    const fake = new FakeSession();
    const messages: unknown[] = [{ role: 'compactionSummary', summary: 'before', tokensBefore: 999, timestamp: 0 }];
    for (let n = 0; n < 300; n++) {
      const { user, call, result, answer } = turnMessages(n);
      messages.push(user, call, result, answer);
      if (n % 40 === 5)
        messages.push({ role: 'bashExecution', command: `ls ${n}`, output: `needle ${n}`, exitCode: 0, cancelled: false, truncated: false, timestamp: n });
      if (n % 50 === 9) messages.push({ role: 'custom', customType: 'note', content: `extension note ${n}`, display: true, timestamp: n });
    }
    fake.messages = messages;
    const { controller, clock } = setup(fake);
    // What the replay made, before any row was dropped: the reference every page is checked against.
    const replayed = replayOnto(initialTranscript, messages, clock.now());
    await controller.ensureSession();
    assert.ok(rowCount(replayed) > 1200);
    assert.ok(rowCount(controller.state) <= 700);
    // Live turns on top: the window moves on, the replayed rows stay as they were.
    const events: WireEvent[] = [];
    controller.onDidEmit((e) => events.push(...e));
    for (let n = 300; n < 420; n++) liveTurn(fake, clock, n);
    const full = whole(events, replayed);
    assertPagesEqual(controller, full, 250);
    assert.deepStrictEqual(controller.transcript.findRows('needle'), findRows(full, 'needle'));
  });

  it('forgets the dropped rows when the transcript is reset (a new session)', async () => {
    const fake = new FakeSession();
    const { controller, emitted, clock } = setup(fake);
    await controller.ensureSession();
    for (let n = 0; n < 200; n++) liveTurn(fake, clock, n);
    controller.emitExternal([{ type: 'reset' }]);
    liveTurn(fake, clock, 1000);
    const full = whole(emitted.slice(emitted.findLastIndex((e) => e.type === 'reset')));
    assert.deepStrictEqual(controller.transcript.recentPart().earlier, 0);
    assertPagesEqual(controller, full, 50);
    assert.deepStrictEqual(controller.transcript.findRows('needle'), findRows(full, 'needle'));
  });

  it("updates a run's file changes the window dropped (an Undo long after), instead of adding a row for them", async () => {
    const fake = new FakeSession();
    const { controller, emitted, clock } = setup(fake);
    await controller.ensureSession();
    const file = { path: 'a.ts', added: 3, removed: 1, created: false };
    controller.emitExternal([{ type: 'changes', runId: 'run-1', files: [file] }]);
    for (let n = 0; n < 200; n++) liveTurn(fake, clock, n);
    const sent: WireEvent[] = [];
    controller.onDidChange((changes) => sent.push(...changes));
    controller.emitExternal([{ type: 'changes', runId: 'run-1', files: [{ ...file, undone: true }] }]);
    const full = whole(emitted);
    assert.equal(full.messages.filter((m) => m.role === 'changes').length, 1, 'the update replaced the row');
    // The main thread keeps more rows than the worker: it is sent the row as it is now, under its own id.
    const row = full.messages.find((m) => m.role === 'changes')!;
    const update = sent.find((c) => c.type === 'row' && c.id === row.id);
    assert.ok(
      update && update.type === 'row' && update.row.role === 'changes' && (update.row as ChangesRow).files[0]?.undone,
      'the updated row is sent to the main thread',
    );
    assertPagesEqual(controller, full, 300);
  });
});
