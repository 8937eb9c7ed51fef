import { strict as assert } from 'node:assert';
import { noteText, runCondition } from '../../src/shared/run/runCondition.ts';
import { initialRunState, reduceRun, type RunState } from '../../src/shared/run/runState.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';

const after = (events: readonly WireEvent[], from: RunState = initialRunState): RunState => events.reduce(reduceRun, from);

const retrying = after([{ type: 'runStart' }, { type: 'retryStart', attempt: 1, maxAttempts: 3, delayMs: 2000, errorMessage: 'overloaded', at: 10_000 }]);
const dialog = { type: 'dialogOpen', dialog: { id: 'd1', kind: 'confirm', title: 'Deploy?', at: 10_500 } } as const;

describe('run condition', () => {
  it('says nothing on the status line when idle', () => {
    const c = runCondition(initialRunState);
    assert.equal(c.phase, 'idle');
    assert.equal(c.note, undefined);
    assert.equal(c.noteKey, '');
  });

  it('counts a retry down on the line, with a key that stays the same while only the seconds change', () => {
    const c = runCondition(retrying);
    assert.equal(c.phase, 'retrying');
    assert.equal(noteText(c.note!, 10_000), 'Provider error: overloaded — retry 1/3 in 2 s');
    assert.equal(noteText(c.note!, 11_500), 'Provider error: overloaded — retry 1/3 in 1 s');
    assert.equal(c.noteKey, 'retry:true:1:overloaded');
  });

  it('puts a waiting dialog first on the line but keeps it out of the key: the dialog announces itself', () => {
    const c = runCondition(after([dialog], retrying));
    assert.equal(c.phase, 'waiting');
    assert.equal(noteText(c.note!, 10_500), 'Pi is waiting for you: answer the question in the chat.');
    assert.equal(c.noteKey, 'retry:true:1:overloaded');
  });

  it('puts cancelling before everything else', () => {
    const c = runCondition(after([dialog, { type: 'cancelRequested', at: 10_600 }], retrying));
    assert.equal(c.phase, 'cancelling');
    assert.equal(c.note?.kind, 'cancelling');
    assert.equal(c.noteKey, 'cancelling');
  });

  it('reports a stall only while a run is active', () => {
    const stalled = after([{ type: 'runStart' }, { type: 'stalled', at: 70_000, since: 10_000 }]);
    const c = runCondition(stalled);
    assert.equal(c.stalled, true);
    assert.equal(noteText(c.note!, 70_000), 'No response from Pi for 60 s. Cancel the run, or cancel and retry.');
    assert.equal(runCondition(after([{ type: 'settled', aborted: false, at: 71_000 }], stalled)).stalled, false);
  });
});
