import { strict as assert } from 'node:assert';
import { reduceRun, type RunState } from '../../src/shared/run/runState.ts';
import { initialTranscript, reduce, reduceOne } from '../../src/shared/transcript/reduce.ts';
import { isKnownEvent, type WireEvent } from '../../src/shared/wire/events.ts';

/** An event of a newer producer: a type this build has never heard of. */
const future = { type: 'hologram', at: 5 } as unknown as WireEvent;

describe('events this build does not know', () => {
  it('leave the run state as it is, mid-run and stalled alike', () => {
    const running: RunState = { active: true, cancelling: false, stalled: true, stalledSince: 1, since: 1 };
    assert.equal(reduceRun(running, future), running);
  });

  it('leave the transcript as it is, streaming row included', () => {
    const streaming = reduce(initialTranscript, [
      { type: 'runStart' },
      { type: 'assistantStart', at: 1 },
      { type: 'blockStart', index: 0, kind: 'text', at: 1 },
      { type: 'delta', index: 0, text: 'half' },
    ]);
    assert.equal(reduceOne(streaming, future), streaming);
  });

  it('are told apart from known ones, so the view can log them once', () => {
    assert.equal(isKnownEvent(future), false);
    assert.equal(isKnownEvent({ type: 'toString' }), false);
    assert.equal(isKnownEvent(undefined), false);
    const known: WireEvent[] = [
      { type: 'delta', index: 0, text: 'x' },
      { type: 'workingVisible', visible: true },
    ];
    for (const ev of known) assert.equal(isKnownEvent(ev), true, ev.type);
  });
});
