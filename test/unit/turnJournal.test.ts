/** The streaming turn's journal: written a few times a second at most, cleared when the turn ends, read back checked. */

import { strict as assert } from 'node:assert';
import {
  JOURNAL_INTERVAL_MS,
  parseJournaledTurn,
  streamingTurn,
  TurnJournal,
  type JournaledTurn,
  type TurnJournalStore,
} from '../../src/shared/run/turnJournal.ts';
import { initialTranscript, reduce } from '../../src/shared/transcript/reduce.ts';
import { TestClock } from '../support/testClock.ts';

/** A store in memory that counts what reached it. */
class MemoryStore implements TurnJournalStore {
  writes: JournaledTurn[] = [];
  clears = 0;
  kept: JournaledTurn | undefined;
  load(): JournaledTurn | undefined {
    return this.kept;
  }
  write(turn: JournaledTurn): void {
    this.writes.push(turn);
    this.kept = turn;
  }
  writeNow(turn: JournaledTurn): void {
    this.write(turn);
  }
  clear(): void {
    this.clears++;
    this.kept = undefined;
  }
}

const turn = (text: string) => ({ sessionFile: '/s.jsonl', prompt: 'Hi', text });

describe('the turn journal', () => {
  let clock: TestClock;
  let store: MemoryStore;
  let journal: TurnJournal;
  beforeEach(() => {
    clock = new TestClock();
    store = new MemoryStore();
    journal = new TurnJournal(store, clock);
  });

  it('writes the first delta at once, then at most once per interval however many deltas arrive', () => {
    journal.update(turn('a'));
    assert.equal(store.writes.length, 1);
    let text = 'a';
    for (let i = 0; i < 100; i++) {
      text += 'b';
      journal.update(turn(text));
      clock.advance(10);
    }
    // 1,000 ms of deltas every 10 ms: the first write, then one per interval.
    assert.ok(store.writes.length <= 1 + Math.ceil(1000 / JOURNAL_INTERVAL_MS), `${store.writes.length} writes`);
    assert.ok(store.writes.length >= 3, 'it kept up while streaming');
    for (let i = 1; i < store.writes.length; i++) assert.ok(store.writes[i]!.at - store.writes[i - 1]!.at >= JOURNAL_INTERVAL_MS);
  });

  it('writes the last text at the end of the interval, so the journal is never more than one interval behind', () => {
    journal.update(turn('one'));
    journal.update(turn('one two'));
    assert.equal(store.kept?.text, 'one');
    clock.advance(JOURNAL_INTERVAL_MS);
    assert.equal(store.kept?.text, 'one two');
    assert.equal(store.writes.length, 2);
    clock.advance(JOURNAL_INTERVAL_MS * 5);
    assert.equal(store.writes.length, 2, 'nothing new, nothing written');
  });

  it('is cleared when the turn ends, and a pending write is dropped', () => {
    journal.update(turn('one'));
    journal.update(turn('one two'));
    journal.clear();
    clock.advance(JOURNAL_INTERVAL_MS * 2);
    assert.equal(store.kept, undefined);
    assert.equal(store.clears, 1);
    journal.clear();
    assert.equal(store.clears, 1, 'nothing written since: the store is not touched');
  });

  it('reads back only what it wrote', () => {
    assert.deepEqual(parseJournaledTurn({ prompt: 'p', text: 't', at: 1, sessionFile: '/f' }), { prompt: 'p', text: 't', at: 1, sessionFile: '/f' });
    assert.equal(parseJournaledTurn({ prompt: 'p', text: 4, at: 1 }), undefined);
    assert.equal(parseJournaledTurn('text'), undefined);
    assert.equal(parseJournaledTurn({ prompt: 'p', text: 't', at: 1, sessionFile: 3 }), undefined);
  });

  it('journals the questions waiting with the turn, also before any reply text, and writes at once at a stop', () => {
    let state = reduce(initialTranscript, [
      { type: 'userMessage', text: 'Write it', images: 0 },
      { type: 'dialogOpen', dialog: { id: 'd1', kind: 'select', title: 'Allow Pi to write out.txt?', options: ['Allow', 'Block'], at: 1 } },
    ]);
    assert.deepEqual(streamingTurn(state, '/s.jsonl'), { sessionFile: '/s.jsonl', prompt: 'Write it', text: '', dialogs: ['Allow Pi to write out.txt?'] });
    journal.update(turn('a'));
    journal.writeNow(streamingTurn(state, '/s.jsonl')!);
    assert.deepEqual(store.kept?.dialogs, ['Allow Pi to write out.txt?']);
    assert.deepEqual(parseJournaledTurn(JSON.parse(JSON.stringify(store.kept))), store.kept);
    state = reduce(state, [{ type: 'dialogClose', id: 'd1', outcome: 'dismissed' }]);
    assert.equal(streamingTurn(state, '/s.jsonl'), undefined, 'nothing to keep: no text, no question');
  });
});
