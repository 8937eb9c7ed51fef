import { strict as assert } from 'node:assert';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { describeStatus } from '../../src/extension/statusTexts.ts';
import { initialRunState, reduceRun, runPhase, type RunState } from '../../src/shared/run/runState.ts';
import { summaryRetryText } from '../../src/shared/run/runCondition.ts';
import { loadRecorded, runThrough } from '../support/recorded.ts';

/** Feeds events one by one and records what the user sees after each: phase and status texts. */
function walk(events: readonly WireEvent[], at = (ev: WireEvent) => ('at' in ev ? ev.at : 0)) {
  let s: RunState = initialRunState;
  const seen: { type: string; phase: string; run: string; retry?: string; compaction?: string }[] = [];
  for (const ev of events) {
    s = reduceRun(s, ev);
    const t = describeStatus(s, at(ev));
    seen.push({ type: ev.type, phase: runPhase(s), run: t.run.text, retry: t.retry?.text, compaction: t.compaction?.text });
  }
  return { state: s, seen };
}

const T = 1_000_000;

describe('run-state machine', () => {
  it('normal run: running until settled, then idle with a completed outcome', () => {
    const { seen, state } = walk([
      { type: 'runStart' },
      { type: 'turnStart' },
      { type: 'runEnd', willRetry: false },
      { type: 'settled', aborted: false, at: T },
    ]);
    assert.deepEqual(
      seen.map((x) => x.run),
      ['$(sync~spin) Pi: running', '$(sync~spin) Pi: running', '$(sync~spin) Pi: running', '$(check) Pi: idle'],
    );
    assert.equal(state.outcome?.kind, 'completed');
  });

  it('starting: a prompt waits for Pi to load, then runs; a cancelled start goes back to idle', () => {
    const { seen } = walk([
      { type: 'starting', on: true, at: T },
      { type: 'runStart' },
      { type: 'settled', aborted: false, at: T + 1 },
      { type: 'starting', on: true, at: T + 2 },
      { type: 'starting', on: false, at: T + 3 },
    ]);
    assert.deepEqual(
      seen.map((x) => x.phase),
      ['starting', 'running', 'idle', 'starting', 'idle'],
    );
    assert.equal(seen[0]!.run, '$(loading~spin) Pi: starting');
  });

  it('a worker that stops mid-run fails the run with what happened', () => {
    const { state } = walk([{ type: 'runStart' }, { type: 'settled', aborted: false, at: T, error: "Pi's worker stopped (it exited with code 1)." }]);
    assert.equal(runPhase(state), 'idle');
    assert.deepEqual(state.outcome, { kind: 'error', message: "Pi's worker stopped (it exited with code 1).", at: T });
  });

  it('agent_end with willRetry keeps the run going', () => {
    const { state } = walk([{ type: 'runStart' }, { type: 'runEnd', willRetry: true }]);
    assert.equal(runPhase(state), 'running');
  });

  it('retry then success: "Retry n/max in N s" counts down, then says it succeeded for a while after the run', () => {
    const events: WireEvent[] = [
      { type: 'runStart' },
      { type: 'assistantEnd', stopReason: 'error', errorMessage: '500 overloaded', at: T },
      { type: 'runEnd', willRetry: true },
      { type: 'retryStart', attempt: 1, maxAttempts: 3, delayMs: 4000, errorMessage: '500 overloaded', at: T },
    ];
    const walked = walk(events);
    const seen = walked.seen;
    let state = walked.state;
    assert.equal(seen.at(-1)!.phase, 'retrying');
    assert.equal(describeStatus(state, T).retry?.text, '$(history) Retry 1/3 in 4 s');
    assert.equal(describeStatus(state, T + 1500).retry?.text, '$(history) Retry 1/3 in 3 s');
    assert.match(describeStatus(state, T).retry!.tooltip, /500 overloaded/);
    state = reduceRun(state, { type: 'runStart' });
    assert.equal(runPhase(state), 'running');
    assert.equal(describeStatus(state, T + 4000).retry?.text, '$(history) Retry 1/3');
    for (const ev of [
      { type: 'assistantEnd', stopReason: 'stop', at: T + 5000 },
      { type: 'retryEnd', success: true, attempt: 1, at: T + 5000 },
      { type: 'settled', aborted: false, at: T + 5000 },
    ] as WireEvent[])
      state = reduceRun(state, ev);
    const t = describeStatus(state, T + 5000);
    // Status-bar updates can coalesce under load: the run's recovery stays readable after it ended.
    assert.equal(t.retry?.text, '$(check) Retry 1/3 succeeded');
    assert.equal(t.run.text, '$(check) Pi: idle');
    assert.equal(state.outcome?.kind, 'completed');
    assert.equal(describeStatus(state, T + 5000 + 60_000).retry, undefined);
    state = reduceRun(state, { type: 'runStart' });
    assert.equal(describeStatus(state, T + 5001).retry, undefined, 'a new run starts without it');
  });

  it('retries exhausted: error outcome with the provider message, and a short-lived failure item', () => {
    const { state } = walk(runThrough(loadRecorded('retries-exhausted')).wire);
    assert.equal(state.outcome?.kind, 'error');
    const t = describeStatus(state, state.outcome!.at);
    assert.equal(t.run.text, '$(error) Pi: error');
    assert.match(t.run.tooltip, /500/);
    assert.equal(t.retry?.text, '$(error) Retries failed');
    assert.equal(describeStatus(state, state.outcome!.at + 60_000).retry, undefined);
  });

  it('retry 500 twice then success (recorded): shows retry 1/3 and 2/3, ends completed', () => {
    const { seen, state } = walk(runThrough(loadRecorded('retry-500-twice')).wire);
    const retries = seen.map((x) => x.retry).filter(Boolean);
    assert.ok(retries.some((r) => r!.startsWith('$(history) Retry 1/3')));
    assert.ok(retries.some((r) => r!.startsWith('$(history) Retry 2/3')));
    assert.equal(state.outcome?.kind, 'completed');
    assert.equal(seen.at(-1)!.run, '$(check) Pi: idle');
  });

  it('cancel during a retry wait (recorded): cancelled, not failed, and no agent_end needed', () => {
    const wire = runThrough(loadRecorded('retry-cancelled')).wire;
    const withCancel: WireEvent[] = [];
    for (const ev of wire) {
      if (ev.type === 'queue' && withCancel.some((e) => e.type === 'retryStart')) withCancel.push({ type: 'cancelRequested', at: T });
      withCancel.push(ev);
    }
    const { seen, state } = walk(withCancel);
    assert.ok(seen.some((x) => x.phase === 'cancelling'));
    assert.equal(state.outcome?.kind, 'cancelled');
    assert.equal(state.retryFailure, undefined);
    assert.equal(describeStatus(state, T).run.text, '$(circle-slash) Pi: cancelled');
  });

  it('cancel during a stream and during a tool (recorded) end cancelled and idle', () => {
    for (const name of ['long-stream-cancel', 'bash-sleep-cancel', 'long-stream-followup-cancel']) {
      const { state } = walk(runThrough(loadRecorded(name)).wire);
      assert.equal(runPhase(state), 'idle', name);
      assert.equal(state.outcome?.kind, 'cancelled', name);
    }
  });

  it('manual compaction alone: compacting with its reason, then the result for a while', () => {
    const { seen, state } = walk([
      { type: 'compactionStart', reason: 'manual', at: T },
      { type: 'compactionEnd', reason: 'manual', aborted: false, willRetry: false, tokensBefore: 12000, tokensAfter: 3000, at: T + 2000 },
    ]);
    assert.deepEqual(
      seen.map((x) => x.phase),
      ['compacting', 'idle'],
    );
    assert.equal(seen[0]!.compaction, '$(fold) Compacting (manual)');
    assert.equal(seen[1]!.compaction, '$(fold) Compacted 12,000 → 3,000 tokens');
    assert.equal(describeStatus(state, T + 60_000).compaction, undefined);
  });

  it('a failed summary during compaction: the retry counts down in the status bar, then says which attempt runs, then goes', () => {
    const { seen, state } = walk([
      { type: 'compactionStart', reason: 'threshold', at: T },
      { type: 'summaryRetry', phase: 'scheduled', attempt: 1, maxAttempts: 3, delayMs: 4000, errorMessage: 'overloaded', at: T + 100 },
      { type: 'summaryRetry', phase: 'attempt', source: 'compaction', at: T + 4100 },
      { type: 'summaryRetry', phase: 'finished', at: T + 5000 },
      { type: 'compactionEnd', reason: 'threshold', aborted: false, willRetry: false, tokensBefore: 9000, tokensAfter: 2000, at: T + 5100 },
    ]);
    assert.deepEqual(
      seen.map((x) => [x.phase, x.retry]),
      [
        ['compacting', undefined],
        ['compacting', '$(history) Summary retry 1/3 in 4 s'],
        ['compacting', '$(history) Summary retry 1/3'],
        ['compacting', undefined],
        ['idle', undefined],
      ],
    );
    assert.equal(state.summaryRetry, undefined);
  });

  it('the status line text of a summary retry: the error and countdown, then the attempt and what it summarizes', () => {
    const waiting = reduceRun(initialRunState, {
      type: 'summaryRetry',
      phase: 'scheduled',
      attempt: 2,
      maxAttempts: 3,
      delayMs: 2500,
      errorMessage: 'rate limited',
      at: T,
    });
    assert.equal(summaryRetryText(waiting.summaryRetry!, T), 'Summarizing failed: rate limited — retry 2/3 in 3 s');
    const trying = reduceRun(waiting, { type: 'summaryRetry', phase: 'attempt', source: 'branchSummary', at: T + 2500 });
    assert.equal(summaryRetryText(trying.summaryRetry!, T + 2500), 'Writing the branch summary again (attempt 2/3)…');
    // A compaction that ends clears a retry whose `finished` never came.
    const ended = reduceRun(trying, { type: 'compactionEnd', reason: 'manual', aborted: true, willRetry: false, at: T + 3000 });
    assert.equal(ended.summaryRetry, undefined);
  });

  it('cancel during compaction: cancelling, then a cancelled compaction', () => {
    const { seen } = walk([
      { type: 'compactionStart', reason: 'manual', at: T },
      { type: 'cancelRequested', at: T + 10 },
      { type: 'compactionEnd', reason: 'manual', aborted: true, willRetry: false, at: T + 20 },
    ]);
    assert.deepEqual(
      seen.map((x) => x.phase),
      ['compacting', 'cancelling', 'idle'],
    );
    assert.equal(seen[2]!.compaction, '$(fold) Compaction cancelled');
  });

  it('overflow compaction with retry stays running until settled', () => {
    const { seen } = walk([
      { type: 'runStart' },
      { type: 'assistantEnd', stopReason: 'error', errorMessage: 'context overflow', at: T },
      { type: 'runEnd', willRetry: true },
      { type: 'compactionStart', reason: 'overflow', at: T },
      { type: 'compactionEnd', reason: 'overflow', aborted: false, willRetry: true, tokensBefore: 40000, at: T + 10 },
      { type: 'runStart' },
      { type: 'assistantEnd', stopReason: 'stop', at: T + 20 },
      { type: 'runEnd', willRetry: false },
      { type: 'settled', aborted: false, at: T + 30 },
    ]);
    assert.deepEqual(
      seen.map((x) => x.phase),
      ['running', 'running', 'running', 'compacting', 'running', 'running', 'running', 'running', 'idle'],
    );
    assert.equal(seen.at(-1)!.run, '$(check) Pi: idle');
  });

  it('says "no response" when the watchdog fires, and clears it on the next event', () => {
    let s = reduceRun(initialRunState, { type: 'runStart' });
    s = reduceRun(s, { type: 'stalled', at: T, since: T - 60_000 });
    assert.equal(describeStatus(s, T + 1000).run.text, '$(warning) Pi: no response for 61 s');
    s = reduceRun(s, { type: 'turnStart' });
    assert.equal(s.stalled, false);
  });
});
