import { strict as assert } from 'node:assert';
import { dialogChoices, MAX_WIDGET_LINES, type DialogView } from '../../src/shared/extensionUi.ts';
import { parseWebviewMessage, type WireEvent } from '../../src/shared/protocol.ts';
import { describeStatus, runPhase } from '../../src/shared/runState.ts';
import { initialTranscript, reduce } from '../../src/shared/transcript.ts';

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
    const { project } = await import('../../src/shared/projection.ts');
    const wire = project({ type: 'summarization_retry_scheduled', attempt: 2, maxAttempts: 3, delayMs: 4000, errorMessage: 'overloaded' } as never, {
      state: initialTranscript,
      now: T,
    });
    assert.deepEqual(wire, [
      { type: 'noticeMessage', level: 'warning', text: 'Summarizing the conversation failed (overloaded); Pi retries (attempt 2 of 3) in 4 s.' },
    ]);
  });
});
