import { strict as assert } from 'node:assert';
import { dialogChoices, MAX_WIDGET_LINES } from '../../src/shared/transcript/dialogsAndWidgets.ts';
import type { DialogView } from '../../src/shared/wire/events.ts';
import { parseWebviewMessage } from '../../src/shared/wire/parseWebviewMessage.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { describeStatus } from '../../src/extension/statusTexts.ts';
import { runPhase } from '../../src/shared/run/runState.ts';
import { initialTranscript, reduce } from '../../src/shared/transcript/reduce.ts';
import { anyRow } from '../support/anyRow.ts';

const T = 1_000_000;
const d = (id: string): DialogView => ({ id, kind: 'select', title: `Question ${id}`, options: ['Allow', 'Block'], at: T });

describe('extension UI state', () => {
  it('is waiting while any dialog is open, then running again; the status bar says Pi waits for you', () => {
    const open: WireEvent[] = [{ type: 'runStart' }, { type: 'dialogOpen', dialog: d('a') }, { type: 'dialogOpen', dialog: d('b') }];
    let s = reduce(initialTranscript, open);
    assert.equal(runPhase(s.run), 'waiting');
    assert.equal(describeStatus(s.run, T).run.text, '$(bell) Pi is waiting for you');
    assert.deepEqual(
      s.ui?.dialogs.map((x) => x.id),
      ['a', 'b'],
    );
    s = reduce(s, [{ type: 'dialogClose', id: 'a', outcome: 'answered Allow' }]);
    assert.equal(runPhase(s.run), 'waiting', 'one is still open');
    s = reduce(s, [
      { type: 'dialogClose', id: 'b', outcome: 'dismissed' },
      { type: 'dialogClose', id: 'b', outcome: 'dismissed' },
    ]);
    assert.equal(runPhase(s.run), 'running', 'a repeated close does not go below zero');
    assert.deepEqual(s.ui?.dialogs, []);
  });

  it('cancelling wins over waiting; a reset forgets dialogs and widgets', () => {
    let s = reduce(initialTranscript, [
      { type: 'runStart' },
      { type: 'dialogOpen', dialog: d('a') },
      { type: 'widget', key: 'w', lines: ['x'] },
      { type: 'cancelRequested', at: T },
    ]);
    assert.equal(runPhase(s.run), 'cancelling');
    s = reduce(s, [{ type: 'reset' }]);
    assert.equal(runPhase(s.run), 'idle');
    assert.equal(s.ui, undefined);
  });

  it('keeps widgets in the order set, replaces one in place, removes one, and caps their size', () => {
    const many = Array.from({ length: 100 }, (_, i) => `line ${i} ${'y'.repeat(1000)}`);
    const s = reduce(initialTranscript, [
      { type: 'widget', key: 'a', lines: ['a1'] },
      { type: 'widget', key: 'b', lines: many },
      { type: 'widget', key: 'a', lines: ['a2'] },
      { type: 'widget', key: 'c', lines: ['c1'] },
      { type: 'widget', key: 'c' },
    ]);
    assert.deepEqual(
      s.ui?.widgets.map((w) => w.key),
      ['a', 'b'],
    );
    assert.deepEqual(s.ui?.widgets[0]?.lines, ['a2']);
    assert.equal(s.ui?.widgets[1]?.lines.length, MAX_WIDGET_LINES);
    assert.ok((s.ui?.widgets[1]?.lines[0]?.length ?? 0) <= 500);
  });

  it('offers Yes/No for confirm, the options for select, nothing for input and editor', () => {
    assert.deepEqual(dialogChoices({ ...d('x'), kind: 'confirm', options: undefined }), ['Yes', 'No']);
    assert.deepEqual(dialogChoices(d('x')), ['Allow', 'Block']);
    assert.deepEqual(dialogChoices({ ...d('x'), kind: 'input' }), []);
  });

  it('validates answers and composer text from the webview', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'answerDialog', id: 'dialog-1', value: 'Allow' }), {
      ok: true,
      msg: { type: 'answerDialog', id: 'dialog-1', value: 'Allow' },
    });
    assert.deepEqual(parseWebviewMessage({ type: 'answerDialog', id: 'dialog-1' }), { ok: true, msg: { type: 'answerDialog', id: 'dialog-1' } });
    assert.equal(parseWebviewMessage({ type: 'answerDialog', id: 7 }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'answerDialog', id: 'x', value: { no: 1 } }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'composerText', text: 3 }).ok, false);
    assert.deepEqual(parseWebviewMessage({ type: 'composerText', text: 'hi' }), { ok: true, msg: { type: 'composerText', text: 'hi' } });
  });
});

describe('session events the panel used to drop', () => {
  it('shows a scheduled summarization retry as a warning notice', async () => {
    const { project } = await import('../../src/worker/projection.ts');
    const wire = project({ type: 'summarization_retry_scheduled', attempt: 2, maxAttempts: 3, delayMs: 4000, errorMessage: 'overloaded' } as never, {
      state: initialTranscript,
      now: T,
    });
    assert.deepEqual(wire, [
      { type: 'noticeMessage', level: 'warning', text: 'Summarizing the conversation failed (overloaded); Pi retries (attempt 2 of 3) in 4 s.' },
      { type: 'summaryRetry', phase: 'scheduled', attempt: 2, maxAttempts: 3, delayMs: 4000, errorMessage: 'overloaded', at: T },
    ]);
  });

  it("projects a summary retry's attempt and end, and nothing for entry_appended", async () => {
    const { project } = await import('../../src/worker/projection.ts');
    const ctx = { state: initialTranscript, now: T };
    assert.deepEqual(project({ type: 'summarization_retry_attempt_start', source: 'compaction', reason: 'threshold' } as never, ctx), [
      { type: 'summaryRetry', phase: 'attempt', source: 'compaction', at: T },
    ]);
    assert.deepEqual(project({ type: 'summarization_retry_attempt_start', source: 'branchSummary' } as never, ctx), [
      { type: 'summaryRetry', phase: 'attempt', source: 'branchSummary', at: T },
    ]);
    assert.deepEqual(project({ type: 'summarization_retry_finished' } as never, ctx), [{ type: 'summaryRetry', phase: 'finished', at: T }]);
    const unknown: string[] = [];
    assert.deepEqual(project({ type: 'entry_appended', entry: { type: 'label' } } as never, { ...ctx, onUnknown: (t) => unknown.push(t) }), []);
    assert.deepEqual(unknown, [], 'a known event, not logged as unknown');
  });
});

describe('! shell rows', () => {
  it('streams a running command apart, then appends a finished row; the run state is running meanwhile', () => {
    let s = reduce(initialTranscript, [
      { type: 'bashStart', id: 'b1', command: 'ls', excluded: true, at: T },
      { type: 'bashOutput', id: 'b1', delta: 'a\n' },
      { type: 'bashOutput', id: 'other', delta: 'never shown' },
      { type: 'bashOutput', id: 'b1', delta: 'b\n' },
    ]);
    assert.equal(runPhase(s.run), 'running');
    assert.equal(s.ui?.shell?.output, 'a\nb\n');
    assert.equal(s.messages.length, 0);
    s = reduce(s, [{ type: 'bashEnd', id: 'b1', command: 'ls', output: 'a\nb\n', exitCode: 0, cancelled: false, excluded: true }]);
    assert.equal(runPhase(s.run), 'idle');
    assert.equal(s.ui?.shell, undefined);
    const row = s.messages[0]!;
    assert.equal(row.role, 'bash');
    assert.equal(row.command, 'ls');
    assert.equal(row.excluded, true);
    assert.equal(row.blocks[0]?.text, 'a\nb\n');
  });

  it('restores a saved shell command as a finished row, not as a notice', async () => {
    const { replayMessages } = await import('../../src/worker/replay.ts');
    const wire = replayMessages(
      [{ role: 'bashExecution', command: 'false', output: 'nope', exitCode: 1, cancelled: false, truncated: false, excludeFromContext: true, timestamp: T }],
      T,
    );
    const s = reduce(initialTranscript, wire);
    assert.deepEqual(
      s.messages.map((r) => anyRow(r)).map((m) => [m.role, m.command, m.exitCode, m.excluded, m.blocks[0]?.text]),
      [['bash', 'false', 1, true, 'nope']],
    );
    assert.equal(runPhase(s.run), 'idle');
  });

  it('validates a shell command from the webview', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'bash', command: 'ls', excluded: true }), { ok: true, msg: { type: 'bash', command: 'ls', excluded: true } });
    assert.equal(parseWebviewMessage({ type: 'bash', command: '   ' }).ok, false);
  });
});
