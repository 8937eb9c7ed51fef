import { strict as assert } from 'node:assert';
import { TranscriptMirror } from '../../src/extension/transcriptMirror.ts';
import { prependRows, recentPart } from '../../src/shared/transcript/paging.ts';
import { initialTranscript, reduceOne } from '../../src/shared/transcript/reduce.ts';
import { firstRowId, rowCount } from '../../src/shared/transcript/rowStore.ts';
import type { MessageView, TranscriptState } from '../../src/shared/transcript/rows.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import type { Logger } from '../../src/shared/wire/workerProtocol.ts';
import { FakeWorker } from '../support/fakeWorker.ts';
import { TestClock } from '../support/testClock.ts';

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/** One turn: a prompt, a reply calling a tool, its result, an answer. */
function turn(n: number): WireEvent[] {
  const id = `call_${n}`;
  return [
    { type: 'userMessage', text: `Question ${n}`, images: 0 },
    { type: 'runStart' },
    { type: 'assistantStart', at: n },
    { type: 'blockStart', index: 0, kind: 'toolCall', toolCallId: id, toolName: 'bash', at: n },
    { type: 'delta', index: 0, text: '{"command":"ls"}' },
    { type: 'blockEnd', index: 0, at: n },
    { type: 'assistantEnd', stopReason: 'toolUse', at: n },
    { type: 'toolStart', toolCallId: id, toolName: 'bash', at: n },
    { type: 'toolEnd', toolCallId: id, isError: false, output: `output ${n}` },
    { type: 'toolResult', toolCallId: id, toolName: 'bash', isError: false },
    { type: 'assistantStart', at: n },
    { type: 'blockStart', index: 0, kind: 'text', at: n },
    { type: 'delta', index: 0, text: `Answer ${n}.` },
    { type: 'blockEnd', index: 0, at: n },
    { type: 'assistantEnd', stopReason: 'stop', at: n },
    { type: 'settled', aborted: false, at: n },
    { type: 'runEnd', willRetry: false },
  ];
}

/** What a row shows, to compare where it landed: its role and text (ids are what is under test). */
const shown = (m: MessageView) => `${m.role} ${m.blocks.map((b) => b?.text ?? '').join('|')}`;

/** A view of the mirror as the webview keeps one: a snapshot when the transcript is replaced, then its batches. */
class FakeView {
  state: TranscriptState = initialTranscript;
  earlier = 0;

  constructor(mirror: TranscriptMirror) {
    mirror.onDidReplace(() => {
      const part = recentPart(mirror.state);
      this.state = part.state;
      this.earlier = part.earlier + mirror.pendingEarlier;
    });
    mirror.onDidEmit((events) => {
      for (const ev of events) this.state = reduceOne(this.state, ev);
    });
  }
}

/** Strictly ascending ids: no two rows share one, none is out of place. */
function assertAscending(rows: readonly MessageView[], where: string): void {
  for (let i = 1; i < rows.length; i++)
    assert.ok(rows[i]!.id > rows[i - 1]!.id, `${where}: row ${i} (${shown(rows[i]!)}) has id ${rows[i]!.id} after ${rows[i - 1]!.id} (${shown(rows[i - 1]!)})`);
}

describe('row ids: the worker numbers its rows, the host numbers its own apart', () => {
  it('a replayed session with hundreds of host-only rows in a row between worker rows pages back whole, every row once and in place', async () => {
    const mirror = new TranscriptMirror(quiet, new TestClock(), { windowRows: 200, slackRows: 50 });
    const view = new FakeView(mirror);
    const worker = new FakeWorker();
    // A long history replayed in the worker: some 40,000 rows, the newest of them sent as a snapshot.
    for (let n = 0; n < 10_000; n++) worker.emit(turn(n));
    const expected = worker.state.messages.map(shown);
    const part = recentPart(worker.state);
    mirror.adopt(part.state, part.earlier, false, worker);
    let host = 0;
    const notices = (count: number) => {
      for (let i = 0; i < count; i++) {
        mirror.notice('warning', `host ${host}`);
        expected.push(`notice host ${host++}`);
      }
    };
    const turns = (from: number, count: number) => {
      for (let n = from; n < from + count; n++) {
        const before = rowCount(worker.state);
        mirror.apply(worker.emit(turn(n)), worker);
        expected.push(...worker.state.messages.slice(before).map(shown));
      }
    };
    notices(250);
    turns(10_000, 3);
    notices(200);
    turns(10_003, 60);
    notices(3);

    assertAscending(mirror.state.messages, 'the host window');
    assertAscending(view.state.messages, 'the view');
    // The view took each row's id from the host: its newest rows are the host's, id for id.
    const held = mirror.state.messages;
    assert.deepEqual(
      view.state.messages.slice(-held.length).map((m) => `${m.id} ${shown(m)}`),
      held.map((m) => `${m.id} ${shown(m)}`),
    );

    // The view pages back to the first row, as it does on scrolling up, putting each page above its rows.
    let state = view.state;
    let earlier = view.earlier;
    let pages = 0;
    while (earlier > 0) {
      const before = firstRowId(state)!;
      const page = await mirror.earlierPage(before, 1000);
      assert.ok(page && page.messages.length, `a page before row ${before} (${earlier} said to be there)`);
      const next = prependRows(state, page.messages, page.tools);
      assert.notEqual(next, state, `the page before row ${before} fits above it`);
      state = next;
      earlier = page.earlier;
      pages++;
    }
    assert.ok(pages >= 40, `${pages} pages`);
    const all = state.messages;
    assertAscending(all, 'the paged transcript');
    assert.equal(new Set(all.map((m) => m.id)).size, all.length, 'no two rows share an id');
    assert.equal(all.length, expected.length);
    assert.deepEqual(all.map(shown), expected);
    mirror.dispose();
  });

  it('a history replayed after a reset (a tree move, a restore) takes ids no row before it had, in the host and the view', () => {
    const mirror = new TranscriptMirror(quiet, new TestClock());
    const view = new FakeView(mirror);
    const worker = new FakeWorker();
    for (let n = 0; n < 5; n++) mirror.apply(worker.emit(turn(n)), worker);
    mirror.notice('info', 'a notice of the host');
    const before = new Map(view.state.messages.map((m) => [m.id, shown(m)]));
    // The session moves to another point of its tree: the worker starts its transcript again and replays that branch.
    mirror.apply(worker.emit([{ type: 'reset' }]), worker);
    for (let n = 0; n < 3; n++) worker.emit(turn(100 + n));
    const part = recentPart(worker.state);
    mirror.adopt(part.state, part.earlier, false, worker);
    mirror.apply(worker.emit(turn(200)), worker);
    mirror.notice('info', 'another notice');
    for (const m of view.state.messages) assert.ok(!before.has(m.id), `row ${m.id} (${shown(m)}) took the id of ${before.get(m.id)}`);
    for (const m of mirror.state.messages) assert.ok(!before.has(m.id), `the host's row ${m.id} (${shown(m)}) took the id of ${before.get(m.id)}`);
    assertAscending(view.state.messages, 'the view');
    mirror.dispose();
  });
});
