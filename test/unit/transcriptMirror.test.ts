import { strict as assert } from 'node:assert';
import { HOST_WINDOW_ROWS, TranscriptMirror } from '../../src/extension/transcriptMirror.ts';
import { applyChanges } from '../../src/shared/transcript/applyChanges.ts';
import { recentPart } from '../../src/shared/transcript/paging.ts';
import { hostRowId, initialTranscript, reduceOne, withRowId } from '../../src/shared/transcript/reduce.ts';
import { firstRowId, rowCount } from '../../src/shared/transcript/rowStore.ts';
import type { MessageView } from '../../src/shared/transcript/rows.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import type { Logger } from '../../src/shared/wire/workerProtocol.ts';
import { FakeWorker } from '../support/fakeWorker.ts';
import { TestClock } from '../support/testClock.ts';

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/** One turn's events: a prompt, a reply calling a tool, its card and result, an answer; a Changes row every tenth. */
function turn(n: number): WireEvent[] {
  const id = `call_${n}`;
  const events: WireEvent[] = [
    { type: 'userMessage', text: `Question ${n}`, images: 0 },
    { type: 'runStart' },
    { type: 'assistantStart', at: n },
    { type: 'blockStart', index: 0, kind: 'text', at: n },
    { type: 'delta', index: 0, text: `Reply ${n} ` },
    { type: 'delta', index: 0, text: 'in two pieces.' },
    { type: 'blockEnd', index: 0, at: n },
    { type: 'blockStart', index: 1, kind: 'toolCall', toolCallId: id, toolName: 'bash', at: n },
    { type: 'delta', index: 1, text: '{"command":"ls"}' },
    { type: 'blockEnd', index: 1, at: n },
    { type: 'assistantEnd', stopReason: 'toolUse', at: n },
    { type: 'toolStart', toolCallId: id, toolName: 'bash', args: '{"command":"ls"}', at: n },
    { type: 'toolEnd', toolCallId: id, isError: false, output: `output ${n}`, durationMs: 1 },
    { type: 'toolResult', toolCallId: id, toolName: 'bash', isError: false },
    { type: 'assistantStart', at: n },
    { type: 'blockStart', index: 0, kind: 'text', at: n },
    { type: 'delta', index: 0, text: `Done ${n}.` },
    { type: 'blockEnd', index: 0, at: n },
    { type: 'assistantEnd', stopReason: 'stop', at: n },
    { type: 'settled', aborted: false, at: n },
    { type: 'runEnd', willRetry: false },
  ];
  if (n % 10 === 0) events.push({ type: 'changes', runId: `run_${n}`, files: [] });
  return events;
}

/** What a row shows, to compare: its id, role and text. */
const shown = (m: MessageView) => `${m.id} ${m.role} ${m.blocks.map((b) => b?.text ?? '').join('|')}`;

/** Pages back from the newest rows, as the view does, until nothing is left: every row the mirror can give, in order. */
async function pageAll(mirror: TranscriptMirror, count = 100): Promise<{ rows: MessageView[]; tools: Record<string, string> }> {
  const part = recentPart(mirror.state);
  let rows = [...part.state.messages];
  const tools: Record<string, string> = {};
  for (const [id, card] of Object.entries(part.state.tools)) tools[id] = card.output;
  let earlier = part.earlier + mirror.pendingEarlier;
  while (earlier > 0) {
    const page = await mirror.earlierPage(rows[0]!.id, count);
    assert.ok(page, `a page before row ${rows[0]!.id}`);
    assert.ok(page.messages.length > 0, `rows before row ${rows[0]!.id} (${earlier} said to be there)`);
    rows = [...page.messages, ...rows];
    for (const [id, card] of Object.entries(page.tools)) tools[id] ??= card.output;
    earlier = page.earlier;
  }
  return { rows, tools };
}

describe('the main thread keeps a window of the transcript and pages the rest from the worker', () => {
  it('holds no more than its window of rows however many turns run', () => {
    const mirror = new TranscriptMirror(quiet, new TestClock());
    const worker = new FakeWorker();
    let most = 0;
    for (let n = 0; n < 1500; n++) {
      mirror.apply(worker.emit(turn(n)), worker);
      most = Math.max(most, rowCount(mirror.state));
      assert.equal(rowCount(mirror.state) + mirror.pendingEarlier, rowCount(worker.state), `turn ${n}: every row is here or in the worker`);
    }
    assert.ok(rowCount(worker.state) > 6000);
    assert.ok(most <= HOST_WINDOW_ROWS + 250, `at most ${most} rows held`);
    // The tool cards go with their rows.
    assert.ok(Object.keys(mirror.state.tools).length <= most, `${Object.keys(mirror.state.tools).length} cards held`);
    mirror.dispose();
  });

  it('pages back exactly the rows it let go (ids, text, tool cards), in order, its own notices among them', async () => {
    const mirror = new TranscriptMirror(quiet, new TestClock(), { windowRows: 40, slackRows: 10 });
    const worker = new FakeWorker();
    // Every row as a mirror without a window would hold it: the worker's and this thread's own notices.
    let whole = initialTranscript;
    const apply = (events: WireEvent[], from?: FakeWorker) => {
      for (const ev of events) whole = reduceOne(whole, ev);
      mirror.apply(events, from);
    };
    for (let n = 0; n < 60; n++) {
      apply(worker.emit(turn(n)), worker);
      if (n % 7 === 3) {
        mirror.notice('warning', `hang ${n}`);
        whole = reduceOne(whole, withRowId({ type: 'noticeMessage', level: 'warning', text: `hang ${n}`, code: 'workerStopped' }, hostRowId(whole)));
      }
      // An Undo of an old run updates its Changes row, which only the worker still holds.
      if (n === 50) apply(worker.emit([{ type: 'changes', runId: 'run_0', files: [] }]), worker);
    }
    assert.ok(rowCount(mirror.state) <= 50);
    assert.ok(mirror.pendingEarlier > 200);
    // The worker's rows keep the worker's ids: a notice of this thread's own did not take one.
    assert.equal(mirror.state.nextId, worker.state.nextId);
    const { rows, tools } = await pageAll(mirror, 30);
    assert.deepEqual(rows.map(shown), whole.messages.map(shown));
    for (const [id, card] of Object.entries(whole.tools)) assert.equal(tools[id], card.output, `card ${id}`);
    assert.ok(worker.fetched > 0, 'the older rows came from the worker');
    mirror.dispose();
  });

  it('keeps its window after the worker restarts, and pages back what the new worker holds', async () => {
    const mirror = new TranscriptMirror(quiet, new TestClock(), { windowRows: 40, slackRows: 10 });
    const first = new FakeWorker();
    for (let n = 0; n < 30; n++) mirror.apply(first.emit(turn(n)), first);
    first.alive = false;
    mirror.workerGone({ message: 'Pi was restarted.', fault: false, sending: 0 });
    const restartedAt = mirror.state.nextId;
    // The new worker resumed quietly: it numbers its rows from 1.
    const second = new FakeWorker();
    for (let n = 30; n < 90; n++) mirror.apply(second.emit(turn(n)), second);
    assert.ok(rowCount(mirror.state) <= 50, `${rowCount(mirror.state)} rows held`);
    const { rows } = await pageAll(mirror, 25);
    // Back to the first row the new worker made, with the ids this thread gave them.
    assert.equal(rows[0]!.id, restartedAt);
    assert.deepEqual(
      rows.map((m) => m.blocks[0]?.text),
      second.state.messages.map((m) => m.blocks[0]?.text),
    );
    mirror.dispose();
  });

  it('when the worker goes mid-run, its dialog, `!` command and run end, and a view applying what the mirror sent agrees', () => {
    const mirror = new TranscriptMirror(quiet, new TestClock(), {});
    const worker = new FakeWorker();
    let view = initialTranscript;
    mirror.onDidEmit((events) => (view = applyChanges(view, JSON.parse(JSON.stringify(events)) as WireEvent[])));
    mirror.starting(true);
    assert.equal(view.run.starting, true);
    mirror.apply(
      worker.emit([
        { type: 'userMessage', text: 'Go', images: 0 },
        { type: 'runStart' },
        { type: 'assistantStart', at: 1 },
        { type: 'blockStart', index: 0, kind: 'text', at: 1 },
        { type: 'delta', index: 0, text: 'Working' },
        { type: 'dialogOpen', dialog: { id: 'd1', kind: 'confirm', title: 'Sure?', at: 2 } },
        { type: 'bashStart', id: 'b1', command: 'sleep 9', excluded: false, at: 2 },
        { type: 'bashOutput', id: 'b1', delta: 'zz' },
      ]),
      worker,
    );
    assert.equal(mirror.state.run.dialogs, 1);
    assert.equal(mirror.state.run.shell, true);
    mirror.workerGone({ message: 'Pi stopped.', fault: true, sending: 1 });
    const run = mirror.state.run;
    assert.equal(run.active, false);
    assert.equal(run.outcome?.kind, 'error');
    assert.equal(run.dialogs, 0);
    assert.equal(run.shell, undefined);
    assert.equal(run.starting, undefined);
    assert.deepEqual(JSON.parse(JSON.stringify(view.run)), JSON.parse(JSON.stringify(run)));
    assert.deepEqual(JSON.parse(JSON.stringify(view.messages)), JSON.parse(JSON.stringify(mirror.state.messages)));
    mirror.dispose();
  });

  it('answers a page partly from its window and partly from the worker, and one before an id no row has', async () => {
    const mirror = new TranscriptMirror(quiet, new TestClock(), { windowRows: 40, slackRows: 10 });
    const worker = new FakeWorker();
    for (let n = 0; n < 30; n++) mirror.apply(worker.emit(turn(n)), worker);
    const first = firstRowId(mirror.state)!;
    const all = worker.state.messages;
    const at = all.findIndex((m) => m.id === first);
    const page = await mirror.earlierPage(all[at + 5]!.id, 20);
    assert.deepEqual(
      page?.messages.map((m) => m.id),
      all.slice(at + 5 - 20, at + 5).map((m) => m.id),
    );
    assert.equal(page?.earlier, at + 5 - 20);
    // One past the rows a view reads (it fills in rows below them): the rows before it.
    const past = await mirror.earlierPage(all.at(-1)!.id + 3, 10);
    assert.deepEqual(
      past?.messages.map((m) => m.id),
      all.slice(-10).map((m) => m.id),
    );
    mirror.dispose();
  });
});
