/** Stopping the worker on purpose keeps the turn: the real worker and Pi against the scripted model, the run held mid-stream. */

import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PiClient } from '../../src/extension/piClient.ts';
import { TurnJournalFile } from '../../src/extension/turnJournalFile.ts';
import { realScheduler } from '../../src/shared/batcher.ts';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { MemoryLog } from '../support/memoryLog.ts';
import { pollUntil } from '../support/poll.ts';
import { useClientHarness } from './workerHarness.ts';
import { tempDir } from '../support/tempDir.ts';

const workerFile = fileURLToPath(new URL('../../dist/worker.js', import.meta.url));

const STREAMED = 'Streamed before the stop, word by word. ';

/** One reply that streams a sentence, then waits at gate `mid` until the test releases it. */
const held: Scenario = {
  name: 'held-reply',
  steps: [
    { chunks: [{ text: STREAMED, split: 6 }, { hold: 'mid' }, { text: 'Never sent.' }], finish: 'stop' },
    { chunks: [{ text: 'Second answer.' }], finish: 'stop' },
  ],
} as Scenario;

/** The messages Pi saved in `file`. */
function savedMessages(file: string): { role: string; stopReason?: string; content?: unknown }[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; message?: { role: string; stopReason?: string; content?: unknown } })
    .flatMap((e) => (e.type === 'message' && e.message ? [e.message] : []));
}

function textOf(content: unknown): string {
  return Array.isArray(content) ? content.map((c: { type?: string; text?: string }) => (c.type === 'text' ? (c.text ?? '') : '')).join('') : String(content);
}

describe('stopping the worker on purpose (SDK, real worker)', function () {
  this.timeout(60_000);
  const harness = useClientHarness();

  it("saves the reply streamed so far in Pi's session as aborted, and tells Pi's extensions session_shutdown", async () => {
    const h = await harness.start(held, ['shutdownMarker.js']);
    void h.client.send('Tell me something long.', 'prompt');
    await h.model.held('mid');
    await h.until(() => h.client.state.messages.some((m) => m.role === 'assistant' && JSON.stringify(m).includes('word by word')), 'the streamed text');
    const file = h.client.sessionFile;
    assert.ok(file, 'the session has a file');
    await h.client.shutdown();
    assert.equal(h.client.workerStarted, false, 'the worker is gone');
    const saved = savedMessages(file);
    const last = saved.at(-1);
    assert.equal(last?.role, 'assistant');
    assert.equal(last?.stopReason, 'aborted');
    assert.equal(textOf(last?.content), STREAMED);
    assert.equal(saved.filter((m) => m.role === 'user').length, 1, 'the prompt is saved too');
    const marker = join(h.cwd, 'session-shutdown.txt');
    assert.ok(existsSync(marker), 'session_shutdown reached the extension');
    assert.equal(readFileSync(marker, 'utf8'), 'quit\n', 'exactly once, as Pi says on exit');
  });

  it('Restart keeps the turn too, and the next message is answered in the fresh worker', async () => {
    const h = await harness.start(held, ['shutdownMarker.js']);
    void h.client.send('Tell me something long.', 'prompt');
    await h.model.held('mid');
    await h.until(() => JSON.stringify(h.client.state.messages).includes('word by word'), 'the streamed text');
    const file = h.client.sessionFile!;
    await h.client.worker.restart();
    assert.equal(savedMessages(file).at(-1)?.stopReason, 'aborted');
    await h.settledAfter(() => h.client.send('And now?', 'prompt'), 'the second run');
    assert.ok(JSON.stringify(h.client.state.messages).includes('Second answer.'));
    assert.equal(textOf(savedMessages(file).at(-1)?.content), 'Second answer.');
  });

  it('gives a queued follow-up back (for the composer after the reload)', async () => {
    const h = await harness.start(held, []);
    const restored: string[] = [];
    h.client.onDidRestoreInput((r) => restored.push(...r.texts));
    void h.client.send('Tell me something long.', 'prompt');
    await h.model.held('mid');
    await h.client.send('Then this, please.', 'followUp');
    await h.until(() => h.client.state.queue.followUp.includes('Then this, please.'), 'the follow-up in the queue');
    await h.client.shutdown();
    assert.deepEqual(restored, ['Then this, please.']);
  });

  it('answers a question waiting at the stop as dismissed (nothing written), and the next start says so', async () => {
    const scenario: Scenario = {
      name: 'write-at-stop',
      steps: [
        { chunks: [{ toolCall: { id: 'call_w', name: 'write', arguments: { path: 'out.txt', content: 'hello\n' } } }], finish: 'tool_calls' },
        { chunks: [{ text: 'After the reload.' }], finish: 'stop' },
      ],
    } as Scenario;
    const journalFile = join(tempDir('pi-journal-'), 'turn-journal.json');
    const log = new MemoryLog();
    const h = await harness.start(scenario, ['gate.js'], { journal: new TurnJournalFile(journalFile, log) });
    void h.client.send('Write the file.', 'prompt');
    await h.until(() => (h.client.state.ui?.dialogs.length ?? 0) > 0, 'the gate to ask');
    await h.client.shutdown();
    assert.equal(existsSync(join(h.cwd, 'out.txt')), false, 'fail-closed: the write was not allowed');
    const next = new PiClient(
      (workerData) => new Worker(workerFile, { workerData }),
      () => ({ cwd: h.cwd, agentDir: h.agentDir, trusted: true, tools: [], settleTimeoutMs: 5000, noResponseMs: 0, collapseThinking: true }),
      log,
      realScheduler,
      { requestTimeoutMs: 10_000, pingMs: 1000, hangMs: 5_000 },
      new TurnJournalFile(journalFile, log),
    );
    try {
      assert.equal(await next.ensureSession(), true);
      await pollUntil(() => next.sessionInfo.ready, 'the session info', 30_000);
      const said = next.state.messages.filter((m) => m.role === 'notice').map((m) => m.blocks[0]?.text ?? '');
      assert.ok(
        said.some((t) => t.includes('Allow Pi to write out.txt?') && t.includes('answered as dismissed')),
        said.join('\n'),
      );
      assert.equal(existsSync(journalFile), false, 'said once');
    } finally {
      next.dispose();
    }
  });

  describe('a kill (the extension host ends without deactivate)', () => {
    let next: PiClient | undefined;
    afterEach(() => {
      next?.dispose();
      next = undefined;
    });

    it("leaves a journal the next start shows as an interrupted reply, not in Pi's session, and Continue hands its text to Pi", async () => {
      const scenario: Scenario = {
        name: 'answer-then-held',
        steps: [
          { chunks: [{ text: 'Warm.' }], finish: 'stop' },
          { chunks: [{ text: STREAMED, split: 6 }, { hold: 'mid' }, { text: 'Never sent.' }], finish: 'stop' },
          { chunks: [{ text: 'Continued.' }], finish: 'stop' },
        ],
      } as Scenario;
      const journalFile = join(tempDir('pi-journal-'), 'turn-journal.json');
      const log = new MemoryLog();
      const h = await harness.start(scenario, [], { journal: new TurnJournalFile(journalFile, log) });
      await h.settledAfter(() => h.client.send('Warm up', 'prompt'), 'the first run');
      void h.client.send('Tell me something long.', 'prompt');
      await h.model.held('mid');
      await h.until(() => existsSync(journalFile) && readFileSync(journalFile, 'utf8').includes('word by word'), 'the journal to hold the streamed text');
      const file = h.client.sessionFile!;
      // The extension host is gone at once: no graceful stop, the worker is terminated.
      h.client.dispose();
      assert.equal(
        savedMessages(file).some((m) => m.role === 'assistant' && textOf(m.content).includes('word by word')),
        false,
        'Pi never saved the reply',
      );
      next = new PiClient(
        (workerData) => new Worker(workerFile, { workerData }),
        () => ({ cwd: h.cwd, agentDir: h.agentDir, trusted: true, tools: [], settleTimeoutMs: 5000, noResponseMs: 0, collapseThinking: true }),
        log,
        realScheduler,
        { requestTimeoutMs: 10_000, pingMs: 1000, hangMs: 5_000 },
        new TurnJournalFile(journalFile, log),
      );
      const client = next;
      assert.equal(await client.ensureSession(), true);
      await pollUntil(() => client.sessionInfo.ready, 'the session info', 30_000);
      const notice = client.state.messages.find((m) => m.role === 'notice' && m.code === 'interrupted');
      assert.ok(notice, 'an interrupted row');
      const shown = notice.blocks.map((b) => b?.text ?? '').join('');
      assert.ok(shown.includes("Interrupted — not saved in Pi's session"), shown);
      assert.ok(shown.includes(STREAMED.trim()), shown);
      assert.equal(existsSync(journalFile), false, 'shown once: the journal is gone');
      await client.continueInterrupted();
      await pollUntil(() => JSON.stringify(client.state.messages).includes('Continued.'), 'the continued answer', 30_000);
      assert.ok(JSON.stringify(h.model.requests.at(-1)).includes(STREAMED.trim()), 'Pi was given the text it had written');
    });
  });
});
