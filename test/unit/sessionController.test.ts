import { strict as assert } from 'node:assert';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { runPhase } from '../../src/shared/run/runState.ts';
import type { CreatedSession } from '../../src/worker/agentSession.ts';
import { SessionController } from '../../src/worker/sessionController.ts';
import type { RestoredInput } from '../../src/shared/wire/workerProtocol.ts';
import type { SessionInfoView } from '../../src/shared/wire/webviewProtocol.ts';
import { FakeSession } from '../support/fakeSession.ts';
import { MemoryLog } from '../support/memoryLog.ts';
import { TestClock } from '../support/testClock.ts';
import { anyRow } from '../support/anyRow.ts';

function setup(options: { noModel?: boolean; sessions?: FakeSession[] } = {}) {
  const clock = new TestClock();
  const log = new MemoryLog();
  const sessions = options.sessions ?? [new FakeSession(), new FakeSession(), new FakeSession()];
  const made: { fresh: boolean }[] = [];
  let next = 0;
  const controller = new SessionController(
    async (o) => {
      made.push(o);
      const session = sessions[next++]!;
      return { session: session.asSession(), cwd: '/work', noModel: options.noModel } satisfies CreatedSession;
    },
    log,
    clock,
    { settleTimeoutMs: 5000, noResponseMs: 60_000 },
  );
  const restored: string[][] = [];
  const emitted: WireEvent[] = [];
  controller.onDidRestoreInput((t) => restored.push([...t.texts]));
  controller.onDidEmit((e) => emitted.push(...e));
  return { clock, log, sessions, controller, restored, emitted, made, fake: sessions[0]! };
}

/** Lets pending promise callbacks run. */
const tick = () => new Promise((r) => setImmediate(r));

describe('SessionController', () => {
  it('subscribes before it prompts', async () => {
    const { controller, fake } = setup();
    void controller.send('hi', 'prompt');
    await tick();
    assert.deepEqual(fake.calls.slice(0, 2), ['subscribe', 'prompt:hi']);
  });

  it('clears the queue strictly before abort, and returns the queued texts to the composer', async () => {
    const { controller, fake, restored } = setup();
    void controller.send('start', 'prompt');
    await tick();
    await controller.send('steer me', 'steer');
    await controller.send('after that', 'followUp');
    await controller.cancel();
    const order = fake.calls.filter((c) => c === 'clearQueue' || c.startsWith('abort'));
    assert.deepEqual(order, ['clearQueue', 'abort(queued=0)']);
    assert.deepEqual(restored, [['steer me', 'after that']]);
  });

  it('tells views about a model an extension switched to, which Pi reports only as a model_change entry', async () => {
    const { controller, fake } = setup();
    await controller.ensureSession();
    const infos: (string | undefined)[] = [];
    controller.onDidChangeSession((i) => infos.push(i.modelId));
    fake.model = { provider: 'other', id: 'bigger' };
    fake.emit({ type: 'entry_appended', entry: { type: 'model_change', provider: 'other', modelId: 'bigger' } });
    fake.emit({ type: 'entry_appended', entry: { type: 'label', targetId: 'x', label: 'y' } });
    assert.deepEqual(infos, ['other/bigger']);
  });

  it("hands images to Pi's prompt, steer and follow-up, and gives a cancelled queue's images back with its texts", async () => {
    const { controller, fake } = setup();
    const inputs: RestoredInput[] = [];
    controller.onDidRestoreInput((r) => inputs.push(r));
    const a = { mimeType: 'image/png' as const, data: 'iVBORw0KGgo=' };
    const b = { mimeType: 'image/jpeg' as const, data: '/9j/4AAQ' };
    const c = { mimeType: 'image/gif' as const, data: 'R0lGODlh' };
    void controller.send('', 'prompt', [a]);
    await tick();
    await controller.send('delivered', 'steer', [c]);
    // Pi delivered the steer (it left the queue): its image must not come back.
    fake.steering = [];
    fake.emit({ type: 'queue_update', steering: [], followUp: [] });
    await controller.send('look', 'steer', [a, b]);
    await controller.send('then', 'followUp');
    await controller.send('pics only', 'followUp', [c]);
    assert.deepEqual(fake.calls.slice(1, 6), [
      'prompt:+1 images',
      'steer:delivered+1 images',
      'steer:look+2 images',
      'followUp:then',
      'followUp:pics only+1 images',
    ]);
    await controller.cancel();
    assert.deepEqual(inputs, [{ texts: ['look', 'then', 'pics only'], images: [a, b, c] }]);
  });

  it('queues as steer or follow-up while running, never a bare prompt', async () => {
    const { controller, fake } = setup();
    void controller.send('first', 'prompt');
    await tick();
    await controller.send('more', 'prompt');
    await controller.send('now', 'steer');
    assert.deepEqual(fake.calls.slice(1), ['prompt:first', 'followUp:more', 'steer:now']);
  });

  it('stays active after agent_end and returns to idle only on agent_settled', async () => {
    const { controller, fake } = setup();
    void controller.send('go', 'prompt');
    await tick();
    fake.emit({ type: 'agent_end', messages: [], willRetry: true });
    assert.equal(controller.isActive, true);
    assert.equal(runPhase(controller.state.run), 'running');
    fake.settle();
    assert.equal(runPhase(controller.state.run), 'idle');
  });

  it('keeps the partial output and shows cancelling until settled', async () => {
    const { controller, fake, emitted } = setup();
    void controller.send('go', 'prompt');
    await tick();
    fake.emit({ type: 'message_start', message: { role: 'assistant', content: [] } });
    const partial = { role: 'assistant', content: [{ type: 'text', text: 'partial' }] };
    fake.emit({ type: 'message_update', message: partial, assistantMessageEvent: { type: 'text_start', contentIndex: 0, partial } });
    fake.emit({ type: 'message_update', message: partial, assistantMessageEvent: { type: 'text_delta', contentIndex: 0, delta: 'partial', partial } });
    // Pi ends the message as aborted when abort() lands.
    fake.abort = async () => {
      fake.calls.push('abort');
      assert.equal(runPhase(controller.state.run), 'cancelling');
      fake.emit({ type: 'message_end', message: { ...partial, stopReason: 'aborted', errorMessage: 'Request was aborted' } });
      fake.settle(true);
    };
    await controller.cancel();
    const last = anyRow(controller.state.messages.at(-1)!);
    assert.equal(last.stopReason, 'aborted');
    assert.equal(last.blocks[0]!.text, 'partial');
    assert.equal(controller.state.run.outcome?.kind, 'cancelled');
    assert.ok(emitted.some((e) => e.type === 'cancelRequested'));
  });

  it('offers Force idle when agent_settled does not come after a cancel', async () => {
    const { controller, fake, clock } = setup();
    void controller.send('go', 'prompt');
    await tick();
    fake.abort = async () => {
      fake.calls.push('abort');
    };
    await controller.cancel();
    clock.advance(4999);
    assert.ok(!controller.state.messages.some((m) => anyRow(m).code === 'settleTimeout'));
    clock.advance(1);
    assert.ok(controller.state.messages.some((m) => anyRow(m).code === 'settleTimeout'));
    await controller.forceIdle();
    assert.equal(runPhase(controller.state.run), 'idle');
    assert.equal(fake.disposed, true);
  });

  it('cancels once when cancel is asked twice (Escape in the view and the keybinding)', async () => {
    const { controller, fake } = setup();
    void controller.send('go', 'prompt');
    await tick();
    fake.abort = async () => {
      fake.calls.push('abort');
    };
    await Promise.all([controller.cancel(), controller.cancel()]);
    assert.equal(fake.calls.filter((c) => c === 'abort').length, 1);
    assert.equal(fake.calls.filter((c) => c === 'clearQueue').length, 1);
  });

  it('stops a prompt cancelled while the session was still opening: Pi never gets it and the text goes back', async () => {
    const { controller, fake, restored } = setup();
    const sent = controller.send('too soon', 'prompt');
    await controller.cancel();
    await sent;
    assert.ok(!fake.calls.some((c) => c.startsWith('prompt')));
    assert.deepEqual(restored, [['too soon']]);
    assert.equal(runPhase(controller.state.run), 'idle');
  });

  it('aborts a run cancelled after prompt() was called but before Pi started it (input hooks, auth check)', async () => {
    const { controller, fake } = setup();
    await controller.ensureSession();
    let preflightDone!: () => void;
    fake.preflight = new Promise((r) => (preflightDone = r));
    const sent = controller.send('hang', 'prompt');
    await tick();
    assert.ok(fake.calls.includes('prompt:hang'));
    await controller.cancel();
    assert.ok(!fake.calls.some((c) => c.startsWith('abort')), 'nothing to abort yet');
    preflightDone();
    await sent;
    assert.deepEqual(
      fake.calls.filter((c) => c === 'clearQueue' || c.startsWith('abort')),
      ['clearQueue', 'abort(queued=0)'],
    );
    assert.equal(runPhase(controller.state.run), 'idle');
    assert.equal(controller.state.run.outcome?.kind, 'cancelled');
  });

  it('does nothing on cancel when no run is active', async () => {
    const { controller, fake } = setup();
    await controller.ensureSession();
    await controller.cancel();
    assert.ok(!fake.calls.includes('clearQueue'));
  });

  it('gives the text back and says what to do when prompt() is refused (no key)', async () => {
    const { controller, fake, restored } = setup();
    fake.promptError = new Error('No API key found for the selected model.');
    await controller.send('hello', 'prompt');
    assert.deepEqual(restored, [['hello']]);
    const notice = anyRow(controller.state.messages.at(-1)!);
    assert.equal(notice.role, 'notice');
    assert.equal(notice.code, 'noKey');
    assert.match(notice.blocks[0]!.text, /\/login/);
    assert.equal(runPhase(controller.state.run), 'idle');
  });

  it('welcomes instead of an error when no model is usable, and keeps a prompt sent anyway in the composer', async () => {
    const { controller, restored, sessions } = setup({ noModel: true });
    const infos: SessionInfoView[] = [];
    controller.onDidChangeSession((i) => infos.push(i));
    await controller.ensureSession();
    assert.equal(infos.at(-1)?.noModel, true);
    assert.ok(!controller.state.messages.some((m) => anyRow(m).code === 'noModel'), 'no error row up front');
    await controller.send('hello', 'prompt');
    assert.equal(anyRow(controller.state.messages.at(-1)!).code, 'noModel');
    assert.deepEqual(restored, [['hello']]);
    assert.ok(!sessions[0]!.calls.some((c) => c.startsWith('prompt')));
  });

  it('keeps running when a listener step throws, and logs it', async () => {
    const { controller, fake, log } = setup();
    await controller.ensureSession();
    controller.onDidEmit(() => {
      throw new Error('view exploded');
    });
    assert.doesNotThrow(() => fake.emit({ type: 'agent_start' }));
    assert.ok(log.lines.some((l) => l.includes('view exploded')));
  });

  it('starts a fresh session on New Session and clears the transcript', async () => {
    const { controller, made, sessions } = setup();
    void controller.send('old', 'prompt');
    await tick();
    sessions[0]!.settle();
    assert.equal(controller.state.messages.length, 1);
    await controller.branching.newSession();
    assert.deepEqual(made, [{ fresh: false }, { fresh: true }]);
    assert.equal(controller.state.messages.length, 0);
    assert.equal(sessions[0]!.disposed, true);
    assert.equal(sessions[0]!.listenerCount, 0);
  });

  it('shows the resumed session history, replayed into its state in one step rather than as events', async () => {
    const s = new FakeSession();
    s.messages = [
      { role: 'user', content: 'earlier question', timestamp: 0 },
      { role: 'assistant', content: [{ type: 'text', text: 'earlier answer' }], stopReason: 'stop' },
    ];
    const { controller, emitted } = setup({ sessions: [s] });
    let replays = 0;
    controller.onDidReplay(() => replays++);
    await controller.ensureSession();
    assert.equal(replays, 1);
    assert.deepEqual(emitted, []);
    assert.deepEqual(
      controller.state.messages.map((m) => [m.role, m.blocks[0]!.text]),
      [
        ['user', 'earlier question'],
        ['assistant', 'earlier answer'],
      ],
    );
  });

  it('says "no response" after a silent minute, but not while a tool runs quietly', async () => {
    const { controller, fake, clock } = setup();
    void controller.send('go', 'prompt');
    await tick();
    fake.emit({ type: 'tool_execution_start', toolCallId: 't1', toolName: 'bash', args: { command: 'sleep 90' } });
    clock.advance(61_000);
    assert.equal(controller.state.run.stalled, false, 'a quiet tool is not a stall');
    fake.emit({ type: 'tool_execution_end', toolCallId: 't1', toolName: 'bash', result: { content: [] }, isError: false });
    clock.advance(59_999);
    assert.equal(controller.state.run.stalled, false);
    clock.advance(1);
    assert.equal(controller.state.run.stalled, true);
    fake.emit({ type: 'turn_start' });
    assert.equal(controller.state.run.stalled, false);
  });

  it('re-sends the last prompt on Retry', async () => {
    const { controller, fake } = setup();
    void controller.send('do it', 'prompt');
    await tick();
    fake.settle();
    await tick();
    void controller.prompting.retryLast();
    await tick();
    assert.deepEqual(
      fake.calls.filter((c) => c.startsWith('prompt')),
      ['prompt:do it', 'prompt:do it'],
    );
  });

  it('says a key the provider refused (401) is wrong and offers to replace it, not to retry', async () => {
    const { controller, fake } = setup();
    void controller.send('go', 'prompt');
    await tick();
    fake.emit({ type: 'message_start', message: { role: 'assistant', content: [] } });
    fake.emit({ type: 'message_end', message: { role: 'assistant', content: [], stopReason: 'error', errorMessage: '401 invalid api key' } });
    fake.settle();
    const notice = anyRow(controller.state.messages.at(-1)!);
    assert.equal(notice.code, 'noKey');
    assert.match(notice.blocks[0]!.text, /refused the API key \(401\).*Replace it/);
  });

  it('offers Retry after a run ends on another provider error (the provider is down)', async () => {
    const { controller, fake } = setup();
    void controller.send('go', 'prompt');
    await tick();
    fake.emit({ type: 'message_start', message: { role: 'assistant', content: [] } });
    fake.emit({ type: 'message_end', message: { role: 'assistant', content: [], stopReason: 'error', errorMessage: 'Connection error.' } });
    fake.settle();
    const notice = anyRow(controller.state.messages.at(-1)!);
    assert.equal(notice.code, 'providerError');
    assert.match(notice.blocks[0]!.text, /provider error.*Retry/);
  });

  it('adds no provider-error notice to a run that ended well or was cancelled', async () => {
    const { controller, fake } = setup();
    void controller.send('go', 'prompt');
    await tick();
    fake.settle(true);
    assert.ok(!controller.state.messages.some((m) => anyRow(m).code === 'providerError'));
  });

  it('cancels a stalled run before retrying it', async () => {
    const { controller, fake, clock } = setup();
    void controller.send('do it', 'prompt');
    await tick();
    clock.advance(60_000);
    assert.equal(controller.state.run.stalled, true);
    void controller.prompting.retryLast();
    await tick();
    await tick();
    const order = fake.calls.filter((c) => c.startsWith('prompt') || c.startsWith('abort') || c === 'clearQueue');
    assert.deepEqual(order, ['prompt:do it', 'clearQueue', 'abort(queued=0)', 'prompt:do it']);
  });

  it('reopens the session when settings or trust change, keeping the transcript', async () => {
    const { controller, made, sessions } = setup();
    void controller.send('hello', 'prompt');
    await tick();
    sessions[0]!.settle();
    const shown = controller.state.messages.length;
    assert.equal(await controller.reload(), true);
    assert.deepEqual(made, [{ fresh: false }, { fresh: false }]);
    assert.equal(sessions[0]!.disposed, true);
    assert.equal(controller.state.messages.length, shown);
    assert.equal(controller.session, sessions[1]!.asSession());
  });

  it('applies trust granted mid-run at the next idle moment, reopening the same session file, and says so', async () => {
    const { controller, made, sessions, clock } = setup();
    sessions[0]!.sessionFile = '/sessions/current.jsonl';
    void controller.send('hello', 'prompt');
    await tick();
    assert.equal(await controller.reload('The workspace is trusted now.'), false, 'a run is active');
    assert.equal(made.length, 1, 'nothing reopens mid-run');
    assert.equal(sessions[0]!.disposed, false);
    sessions[0]!.settle();
    clock.advance(0);
    await tick();
    await tick();
    assert.deepEqual(made, [{ fresh: false }, { fresh: false, open: '/sessions/current.jsonl' }]);
    assert.equal(sessions[0]!.disposed, true);
    assert.equal(controller.session, sessions[1]!.asSession());
    const last = anyRow(controller.state.messages.at(-1)!);
    assert.equal(last.role, 'notice');
    assert.equal(last.blocks[0]!.text, 'The workspace is trusted now.');
  });

  it('disposes the session and unsubscribes on dispose', async () => {
    const { controller, fake } = setup();
    await controller.ensureSession();
    controller.dispose();
    assert.equal(fake.disposed, true);
    assert.ok(fake.calls.includes('unsubscribe'));
  });
});
