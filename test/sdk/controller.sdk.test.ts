import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import type { PiModule } from '../../src/pi/piEntry.ts';
import { Batcher, realScheduler } from '../../src/shared/batcher.ts';
import { runPhase } from '../../src/shared/run/runState.ts';
import { initialTranscript, reduce } from '../../src/shared/transcript/reduce.ts';
import type { TranscriptState } from '../../src/shared/transcript/rows.ts';
import { loadBundledPi, scenarioFile, startHarness, type Harness } from './harness.ts';
import { anyRow } from '../support/anyRow.ts';

describe('SessionController on the real Pi SDK', function () {
  this.timeout(60_000);
  let pi: PiModule;
  let h: Harness | undefined;

  before(() => {
    pi = loadBundledPi();
  });

  afterEach(async () => {
    await h?.dispose();
    h = undefined;
  });

  /** Pi's final assistant messages, as (kind, text) per block. */
  function piAssistants(): { stopReason: string; blocks: { kind: string; text: string }[] }[] {
    const session = h!.controller.session as unknown as { messages: Record<string, unknown>[] };
    return session.messages
      .filter((m) => m.role === 'assistant')
      .map((m) => ({
        stopReason: String(m.stopReason),
        blocks: (m.content as Record<string, unknown>[]).map((c) =>
          c.type === 'thinking'
            ? { kind: 'thinking', text: String(c.thinking) }
            : c.type === 'toolCall'
              ? { kind: 'toolCall', text: JSON.stringify(c.arguments) }
              : { kind: 'text', text: String(c.text) },
        ),
      }));
  }

  function ourAssistants(state: TranscriptState) {
    return state.messages
      .filter((m) => m.role === 'assistant')
      .map((m) => ({
        stopReason: String(m.stopReason),
        blocks: m.blocks.map((b) => ({ kind: b!.kind, text: b!.kind === 'toolCall' ? JSON.stringify(JSON.parse(b!.text)) : b!.text })),
      }));
  }

  it("streams a reply into the host store equal to Pi's final message", async () => {
    h = await startHarness(pi, scenarioFile('thinking-then-text'));
    await h.controller.send('Think, then answer.', 'prompt');
    await h.settled();
    assert.deepEqual(ourAssistants(h.controller.state), piAssistants());
    assert.ok(
      h.emitted.some((e) => e.type === 'delta'),
      'text arrived as deltas',
    );
    assert.ok(ourAssistants(h.controller.state)[0]!.blocks.some((b) => b.kind === 'thinking'));
  });

  it('runs a tool turn: card done with output, then the answer', async () => {
    h = await startHarness(pi, scenarioFile('tool-then-answer'));
    await h.controller.send('List the files.', 'prompt');
    await h.settled();
    const cards = Object.values(h.controller.state.tools);
    assert.equal(cards.length, 1);
    assert.equal(cards[0]!.status, 'done');
    assert.deepEqual(ourAssistants(h.controller.state), piAssistants());
  });

  it('keeps partial text, returns queued texts and settles when cancelled mid-stream', async () => {
    // Held after Paragraph 3 until the cancel: no race with the stream's end.
    h = await startHarness(pi, scenarioFile('long-stream-held'));
    const run = h.controller.send('Talk for a long time.', 'prompt');
    await h.model.held('mid');
    await h.until(() => (h!.controller.state.messages.at(-1)?.blocks[0]?.text.length ?? 0) > 40, 20_000, 'some streamed text');
    await h.controller.send('Then summarise.', 'followUp');
    await h.until(() => h!.controller.state.queue.followUp.length === 1, 5000, 'the follow-up in the queue');
    await h.controller.cancel();
    await h.settled(5000);
    await run;
    const last = anyRow(h.controller.state.messages.at(-1)!);
    assert.equal(last.stopReason, 'aborted');
    assert.ok(last.blocks[0]!.text.length > 40, 'partial text kept');
    assert.deepEqual(h.restored, [['Then summarise.']]);
    assert.deepEqual(h.controller.state.queue, { steering: [], followUp: [] });
    assert.equal(h.emitted.filter((e) => e.type === 'settled').length, 1);
    assert.equal(h.controller.state.run.outcome?.kind, 'cancelled');
    assert.deepEqual(ourAssistants(h.controller.state), piAssistants());
  });

  it('retries after HTTP 500 twice, then succeeds and ends idle', async () => {
    h = await startHarness(pi, scenarioFile('retry-500-twice'));
    await h.controller.send('Try hard.', 'prompt');
    await h.settled();
    const attempts = h.emitted.filter((e) => e.type === 'retryStart').map((e) => (e.type === 'retryStart' ? `${e.attempt}/${e.maxAttempts}` : ''));
    assert.deepEqual(attempts, ['1/3', '2/3']);
    assert.equal(h.controller.state.run.outcome?.kind, 'completed');
    assert.equal(runPhase(h.controller.state.run), 'idle');
  });

  it('cancels a running bash tool and leaves no process behind', async () => {
    h = await startHarness(pi, scenarioFile('bash-sleep'));
    void h.controller.send('Run the long command.', 'prompt');
    await h.until(() => Object.values(h!.controller.state.tools).some((c) => c.status === 'running'), 20_000, 'the bash tool to run');
    // Only this test's sleep runs in its own workspace (other suites on the machine run `sleep 60` too).
    const ours = (): string[] => {
      let pids: string[] = [];
      try {
        pids = execFileSync('pgrep', ['-f', '^sleep 60$'], { encoding: 'utf8' }).split('\n').filter(Boolean);
      } catch {
        // none
      }
      return pids.filter((pid) => {
        try {
          return realpathSync(`/proc/${pid}/cwd`) === realpathSync(h!.cwd);
        } catch {
          return false;
        }
      });
    };
    await h.until(() => ours().length > 0, 20_000, 'the sleep to start');
    await h.controller.cancel();
    await h.settled(5000);
    const card = Object.values(h.controller.state.tools)[0]!;
    assert.equal(card.status, 'error');
    await h.until(() => ours().length === 0, 10_000, 'no sleep 60 process left in this workspace');
  });

  it('returns a steer queued during a running tool to the composer instead of delivering it', async () => {
    h = await startHarness(pi, scenarioFile('bash-sleep'));
    void h.controller.send('Run the long command.', 'prompt');
    await h.until(() => Object.values(h!.controller.state.tools).some((c) => c.status === 'running'), 20_000, 'the bash tool to run');
    await h.controller.send('change of plan', 'steer');
    await h.until(() => h!.controller.state.queue.steering.length === 1, 5000, 'the steer in the queue');
    await h.controller.cancel();
    await h.settled(5000);
    await h.until(() => h!.restored.length > 0, 5000, 'the steer back in the composer');
    assert.deepEqual(h.restored, [['change of plan']]);
    const users = h.controller.state.messages.filter((m) => m.role === 'user').map((m) => m.blocks[0]!.text);
    assert.deepEqual(users, ['Run the long command.'], 'the steer was not delivered');
    assert.equal(h.model.requests.length, 1);
  });

  it('runs no tools in an untrusted workspace', async () => {
    h = await startHarness(pi, scenarioFile('tool-then-answer'), undefined, { trusted: false });
    await h.controller.send('List the files.', 'prompt');
    await h.settled();
    const cards = Object.values(h.controller.state.tools);
    assert.equal(cards.length, 1);
    assert.equal(cards[0]!.status, 'error', 'the call is refused, not run');
    assert.ok(h.controller.state.messages.some((m) => m.role === 'notice' && /not trusted/.test(m.blocks[0]!.text)));
    const request = h.model.requests[0] as { tools?: unknown[] };
    assert.equal(request.tools?.length ?? 0, 0, 'no tool is offered to the model');
  });

  it('cancels during a retry wait: "Retry cancelled", idle, no further request', async () => {
    h = await startHarness(
      pi,
      {
        name: 'slow-retry',
        steps: [
          { status: 500, body: 'overloaded' },
          { chunks: [{ text: 'late' }], finish: 'stop' },
        ],
      },
      // A wait far longer than the cancel takes, however busy the machine.
      { retry: { enabled: true, maxRetries: 3, baseDelayMs: 30_000 } },
    );
    void h.controller.send('Try.', 'prompt');
    await h.until(() => h!.controller.state.run.retry?.waiting === true, 20_000, 'the retry wait');
    await h.controller.cancel();
    await h.settled(5000);
    const end = h.emitted.find((e) => e.type === 'retryEnd');
    assert.equal(end?.type === 'retryEnd' && end.finalError, 'Retry cancelled');
    assert.equal(h.model.requests.length, 1);
    assert.equal(h.controller.state.run.outcome?.kind, 'cancelled');
  });

  it('cancels while the model is thinking', async () => {
    h = await startHarness(pi, {
      name: 'slow-thinking',
      steps: [
        { chunks: [{ thinking: 'Considering every option very carefully. '.repeat(40), split: 5 }, { hold: 'thinking' }, { text: 'Answer.' }], finish: 'stop' },
      ],
    });
    void h.controller.send('Think hard.', 'prompt');
    await h.model.held('thinking');
    await h.until(() => (h!.controller.state.messages.at(-1)?.blocks[0]?.text.length ?? 0) > 20, 20_000, 'thinking to stream');
    await h.controller.cancel();
    await h.settled(5000);
    const last = anyRow(h.controller.state.messages.at(-1)!);
    assert.equal(last.blocks[0]!.kind, 'thinking');
    assert.equal(last.stopReason, 'aborted');
    assert.ok(!last.blocks.some((b) => b?.kind === 'text' && b.text === 'Answer.'));
  });

  it('compacts on request, and cancels a compaction in progress', async () => {
    h = await startHarness(
      pi,
      {
        name: 'compaction',
        steps: [
          { chunks: [{ text: 'First answer, with enough words to be worth summarizing later on.' }], finish: 'stop' },
          { chunks: [{ text: 'Second answer, also long enough to matter for a summary.' }], finish: 'stop' },
          { hang: true },
        ],
      },
      { compaction: { enabled: true, keepRecentTokens: 1, reserveTokens: 16384 } },
    );
    await h.controller.send('First question?', 'prompt');
    await h.settled();
    h.emitted.length = 0;
    await h.controller.send('Second question?', 'prompt');
    await h.settled();
    const compacting = h.controller.prompting.compact();
    await h.until(
      () => h!.controller.state.run.compaction !== undefined || h!.controller.state.messages.at(-1)?.role === 'notice',
      10_000,
      'compaction to start',
    );
    assert.ok(h.controller.state.run.compaction, `compaction started (last row: ${JSON.stringify(h.controller.state.messages.at(-1)?.blocks[0]?.text)})`);
    assert.equal(h.controller.isActive, true);
    await h.controller.cancel();
    await compacting;
    await h.until(() => h!.controller.state.run.compaction === undefined, 5000, 'compaction to end');
    assert.equal(h.controller.state.run.lastCompaction?.ok, false);
    assert.equal(h.controller.isActive, false);
  });

  it('says plainly when there is nothing to compact', async () => {
    h = await startHarness(pi, scenarioFile('plain-text'));
    await h.controller.prompting.compact();
    const last = anyRow(h.controller.state.messages.at(-1)!);
    assert.equal(last.role, 'notice');
    assert.match(last.blocks[0]!.text, /^Compaction did not run: /);
    assert.ok(!/\n\s+at /.test(last.blocks[0]!.text), 'no stack trace');
  });

  it('puts about one wire byte per reply character through the real pipeline', async () => {
    const reply = 'The panel streams deltas, not snapshots. '.repeat(2500).slice(0, 100_000);
    h = await startHarness(pi, { name: 'long', steps: [{ chunks: [{ text: reply, split: 10 }], finish: 'stop' }] });
    let bytes = 0;
    let webview = initialTranscript;
    const batcher = new Batcher((events) => {
      const json = JSON.stringify({ type: 'batch', events });
      bytes += Buffer.byteLength(json);
      webview = reduce(webview, JSON.parse(json).events);
    }, realScheduler);
    h.controller.onDidEmit((evs) => evs.forEach((e) => batcher.push(e)));
    await h.controller.send('Write a lot.', 'prompt');
    await h.settled(30_000);
    batcher.flush();
    const text = webview.messages.find((m) => m.role === 'assistant')!.blocks[0]!.text;
    assert.equal(text, reply);
    const userBytes = Buffer.byteLength('Write a lot.');
    const ratio = (bytes - userBytes) / reply.length;
    console.log(`      wire bytes per reply character (real Pi, scripted model, 10-char deltas): ${ratio.toFixed(3)}`);
    assert.ok(ratio < 1.2, `ratio ${ratio}`);
  });
});
