import { strict as assert } from 'node:assert';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PiClient } from '../../src/extension/piClient.ts';
import { ViewFeed } from '../../src/extension/viewFeed.ts';
import { realScheduler } from '../../src/shared/batcher.ts';
import type { HostToWebview } from '../../src/shared/wire/webviewProtocol.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import type { ExtensionUiState } from '../../src/shared/transcript/dialogsAndWidgets.ts';
import { runPhase } from '../../src/shared/run/runState.ts';
import { SNAPSHOT_ROWS } from '../../src/shared/transcript/paging.ts';
import type { MessageView } from '../../src/shared/transcript/rows.ts';
import type { RestoredInput, WorkerConfig } from '../../src/shared/wire/workerProtocol.ts';
import { startScriptedModel, type ScriptedModel } from '../scriptedModel/server.ts';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { makePiAgentDir } from '../support/piConfig.ts';
import { MemoryLog } from '../support/memoryLog.ts';
import { loadBundledPi, scenarioFile } from './harness.ts';
import { pollUntil } from '../support/poll.ts';
import { writeSession } from '../support/sessionFile.ts';
import { anyRow } from '../support/anyRow.ts';
import { tempDir } from '../support/tempDir.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const workerFile = join(root, 'dist', 'worker.js');

const answers = (n: number): Scenario =>
  ({
    name: 'worker-answers',
    steps: Array.from({ length: n }, (_, i) => ({ chunks: [{ text: `Answer number ${i + 1}.`, split: 4 }], finish: 'stop' })),
  }) as Scenario;

interface WorkerHarness {
  readonly client: PiClient;
  readonly model: ScriptedModel;
  readonly log: MemoryLog;
  readonly emitted: WireEvent[];
  readonly restored: string[][];
  readonly cwd: string;
  readonly agentDir: string;
  until(predicate: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** Sends a prompt and resolves once the run it starts has settled. */
  run(text: string): Promise<void>;
  dispose(): Promise<void>;
}

async function startWorkerHarness(scenario: Scenario, extensions: string[] = [], requestTimeoutMs = 10_000): Promise<WorkerHarness> {
  // The Pi bundle and the worker must be built; loading the bundle here builds them when missing.
  if (!existsSync(workerFile)) loadBundledPi();
  const model = await startScriptedModel({ scenario });
  const agentDir = await makePiAgentDir({ baseUrl: model.url });
  mkdirSync(join(agentDir, 'extensions'), { recursive: true });
  for (const name of extensions) copyFileSync(join(root, 'test', 'fixtures', 'piExtensions', name), join(agentDir, 'extensions', name));
  const cwd = tempDir('pi-ws-');
  const config: WorkerConfig = { cwd, agentDir, trusted: true, tools: [], settleTimeoutMs: 5000, noResponseMs: 0, collapseThinking: true };
  const log = new MemoryLog();
  const client = new PiClient(
    (workerData) => new Worker(workerFile, { workerData }),
    () => config,
    log,
    realScheduler,
    { requestTimeoutMs, pingMs: 500, hangMs: 2_000 },
  );
  const emitted: WireEvent[] = [];
  const restored: string[][] = [];
  client.onDidEmit((evs) => emitted.push(...evs));
  client.onDidRestoreInput((t) => restored.push([...t.texts]));
  const until = (predicate: () => boolean, what: string, timeoutMs = 30_000) => pollUntil(predicate, what, timeoutMs);
  return {
    client,
    model,
    log,
    emitted,
    restored,
    cwd,
    agentDir,
    until,
    async run(text) {
      const settles = emitted.filter((e) => e.type === 'settled').length;
      void client.send(text, 'prompt');
      await until(() => emitted.filter((e) => e.type === 'settled').length > settles && runPhase(client.state.run) === 'idle', `"${text}" to settle`);
    },
    async dispose() {
      client.dispose();
      await model.close();
    },
  };
}

/** A shell command that starts `sleep` in the background (a grandchild of the worker, in the shell's process group), writes its pid and waits. */
const SLEEPER = 'sleep 300 & echo $! > sleeper.pid; wait';

/** The pid the sleeper wrote into `cwd`, once it has. */
async function sleeperPid(h: WorkerHarness): Promise<number> {
  const file = join(h.cwd, 'sleeper.pid');
  await h.until(() => existsSync(file) && /^\d+\n/.test(readFileSync(file, 'utf8')), 'the sleeper to start');
  const pid = Number(readFileSync(file, 'utf8'));
  assert.ok(running(pid), 'the sleeper runs');
  return pid;
}

/** Whether `pid` is a live process (a zombie waiting for its parent to reap it counts as ended). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return true;
  }
}

/** Messages in the long sessions these tests resume: more than the host's window holds. */
const LONG_SESSION = 3000;

/** Opens the worker's session, then resumes a saved session of `LONG_SESSION` messages and waits for its snapshot. */
async function resumeLongSession(h: WorkerHarness): Promise<void> {
  await h.client.ensureSession();
  await h.client.call('resumeSession', { file: writeSession(h.cwd, h.agentDir, LONG_SESSION) });
  await h.until(() => h.client.pendingEarlier === LONG_SESSION - SNAPSHOT_ROWS, 'the snapshot');
}

/** A page of 400 rows before the first row the host holds: how many came, the last one's id, and that first id. */
async function pageBack(client: PiClient): Promise<{ rows: number; last: number; first: number } | undefined> {
  const first = client.state.messages[0]!.id;
  const page = await client.earlierPage(first, 400);
  return page && { rows: page.messages.length, last: page.messages.at(-1)!.id, first };
}

const texts = (messages: readonly MessageView[], role: string) =>
  messages.filter((m) => m.role === role).map((m) => m.blocks.map((b) => b?.text ?? '').join(''));

describe('Pi in its worker thread', function () {
  this.timeout(90_000);
  let h: WorkerHarness | undefined;

  afterEach(async () => {
    await h?.dispose();
    h = undefined;
  });

  it('streams a reply from a worker started on first use into the host store', async () => {
    h = await startWorkerHarness(answers(1));
    assert.equal(h.client.workerStarted, false, 'nothing starts before it is needed');
    const phases: string[] = [];
    h.client.onDidEmit(() => {
      const p = runPhase(h!.client.state.run);
      if (phases.at(-1) !== p) phases.push(p);
    });
    await h.run('Hello?');
    assert.deepEqual(texts(h.client.state.messages, 'assistant'), ['Answer number 1.']);
    // Never idle between "Starting Pi…" and the run: whoever waits for idle would stop too early.
    assert.deepEqual(phases, ['starting', 'running', 'idle']);
    assert.ok(
      h.emitted.some((e) => e.type === 'patch'),
      'text arrived as patches of the streaming row',
    );
    assert.equal(h.client.sessionInfo.ready, true);
  });

  it('cancels a prompt sent before the session exists: dropped, text back, no request to the model', async () => {
    h = await startWorkerHarness(answers(1));
    const sending = h.client.send('Never mind.', 'prompt');
    assert.equal(runPhase(h.client.state.run), 'starting', 'Starting Pi… while the worker loads');
    await h.client.cancel();
    assert.equal(runPhase(h.client.state.run), 'idle');
    await sending;
    assert.deepEqual(h.restored, [['Never mind.']]);
    assert.equal(await h.client.ensureSession(), true);
    assert.equal(h.model.requests.length, 0);
    assert.equal(texts(h.client.state.messages, 'user').length, 0);
  });

  it('carries images through the worker to the model, and gives back the images of a prompt cancelled before the session exists', async () => {
    h = await startWorkerHarness(answers(1));
    const image = { mimeType: 'image/png' as const, data: readFileSync(join(root, 'test', 'fixtures', 'images', 'red-square.png')).toString('base64') };
    const restored: RestoredInput[] = [];
    h.client.onDidRestoreInput((r) => restored.push(r));
    const sending = h.client.send('', 'prompt', [image]);
    await h.client.cancel();
    await sending;
    assert.deepEqual(restored, [{ texts: [''], images: [image] }]);
    void h.client.send('What is this?', 'prompt', [image]);
    await h.until(() => h!.emitted.some((e) => e.type === 'settled'), 'the prompt with an image to settle');
    assert.match(JSON.stringify(h.model.requests[0]), new RegExp(`"url":"data:image/png;base64,${image.data}"`));
    const user = h.client.state.messages.find((m) => m.role === 'user');
    assert.equal(user?.media?.[0]?.data, image.data, "the host's store shows the image");
  });

  for (const fault of [
    { name: 'throws asynchronously', file: 'throwsAsync.js', prompt: 'THROW-ASYNC please' },
    { name: 'calls process.exit(1)', file: 'exits.js', prompt: 'EXIT-NOW please' },
  ]) {
    it(`survives a Pi extension that ${fault.name}: transcript kept, run failed, next prompt resumes the session`, async () => {
      h = await startWorkerHarness(answers(3), [fault.file]);
      await h.run('First question');
      const notified: string[] = [];
      h.client.onDidNotify((n) => notified.push(n.code ?? ''));
      await h.run(fault.prompt);
      assert.equal(h.client.state.run.outcome?.kind, 'error', 'the run in progress is marked failed');
      const notice = anyRow(h.client.state.messages.at(-1)!);
      assert.equal(notice.code, 'workerStopped', 'the panel says what happened');
      assert.deepEqual(notified, ['workerStopped']);
      assert.deepEqual(texts(h.client.state.messages, 'assistant'), ['Answer number 1.'], 'the transcript survives');
      assert.equal(h.client.workerStarted, false);
      await h.run('Second question');
      assert.deepEqual(texts(h.client.state.messages, 'assistant'), ['Answer number 1.', 'Answer number 2.']);
      // The fresh worker resumed the same session file: the model saw the first exchange again.
      const last = JSON.stringify(h.model.requests.at(-1));
      assert.match(last, /First question/);
      assert.match(last, /Answer number 1\./);
    });
  }

  it('delivers what happened just before a Pi extension ended the worker with process.exit(1)', async () => {
    h = await startWorkerHarness(answers(1), ['exits.js']);
    await h.run('WIDGET-THEN-EXIT please');
    assert.equal(h.client.workerStarted, false, 'the worker is gone');
    // Queued for the next frame when the thread ended: only a flush at exit sends it.
    assert.ok(
      h.emitted.some((e) => e.type === 'state' && (e.set.ui as ExtensionUiState | undefined)?.widgets.some((w) => w.key === 'last-words')),
      'the widget shown in the same tick as the exit arrived',
    );
  });

  it('resumes a long session as a snapshot of its newest rows, and pages the older ones from the worker when the view asks', async () => {
    h = await startWorkerHarness(answers(1));
    await h.client.ensureSession();
    const count = 3000;
    const file = writeSession(h.cwd, h.agentDir, count);
    const client = h.client;
    const posts: HostToWebview[] = [];
    const feed = new ViewFeed(client, (msg) => posts.push(msg), realScheduler);
    feed.open();
    posts.length = 0;
    let atSnapshot: { rows: number; pending: number; first: number } | undefined;
    const sub = client.onDidReplace(() => {
      atSnapshot = { rows: client.state.messages.length, pending: client.pendingEarlier, first: client.state.messages[0]!.id };
    });
    await client.call('resumeSession', { file });
    await h.until(() => atSnapshot !== undefined, 'the snapshot');
    sub.dispose();
    assert.deepEqual(atSnapshot && { rows: atSnapshot.rows, pending: atSnapshot.pending }, { rows: SNAPSHOT_ROWS, pending: count - SNAPSHOT_ROWS });
    // The view got the newest rows as one snapshot, not the history's 6,000 events.
    const snapshots = posts.filter((m) => m.type === 'snapshot');
    assert.equal(snapshots.length, 1);
    const snap = snapshots[0]!;
    assert.ok(snap.type === 'snapshot');
    assert.equal(snap.state.messages.length, SNAPSHOT_ROWS);
    assert.equal(snap.earlier, count - SNAPSHOT_ROWS);
    assert.match(snap.state.messages.at(-1)!.blocks[0]!.text, /^src\/749 holds three files\./);
    const batched = posts.flatMap((m) => (m.type === 'batch' ? m.events : []));
    assert.ok(!batched.some((e) => e.type === 'row' || e.type === 'userMessage' || e.type === 'assistantStart'), 'no history row was posted');
    // The host holds only the newest rows; the view pages the rest from the worker, all of them, in order.
    assert.equal(client.state.messages.length, SNAPSHOT_ROWS);
    let rows = [...client.state.messages];
    let earlier = client.pendingEarlier;
    const cards: Record<string, string> = {};
    while (earlier > 0) {
      const page = await client.earlierPage(rows[0]!.id, 400);
      assert.ok(page && page.messages.length > 0, `rows before ${rows[0]!.id}`);
      assert.equal(page.messages.at(-1)!.id, rows[0]!.id - 1);
      rows = [...page.messages, ...rows];
      for (const [id, card] of Object.entries(page.tools)) cards[id] = card.status;
      earlier = page.earlier;
    }
    assert.equal(rows.length, count);
    assert.match(rows[0]!.blocks[0]!.text, /^Question 0:/);
    assert.ok(rows.every((m, i) => i === 0 || m.id > rows[i - 1]!.id));
    assert.equal(cards['call_0'], 'done');
    assert.equal(client.state.messages.length, SNAPSHOT_ROWS, 'paging back does not grow the host');
    // A view opened now starts from the newest rows too.
    posts.length = 0;
    feed.close();
    feed.open();
    assert.ok(posts[0]?.type === 'snapshot' && posts[0].earlier === count - SNAPSHOT_ROWS);
    feed.dispose();
  });

  it('finds a text in the rows of a resumed long session the worker no longer holds, and pages them back with the ids it found them by', async () => {
    h = await startWorkerHarness(answers(1));
    await resumeLongSession(h);
    const found = await h.client.find('question 3:');
    assert.equal(found.total, 1);
    // The oldest rows: the worker rebuilt them from Pi's session to find them, and pages them with the same ids.
    let rows = [...h.client.state.messages];
    let earlier = h.client.pendingEarlier;
    while (earlier > 0) {
      const page = await h.client.earlierPage(rows[0]!.id, 400);
      assert.ok(page && page.messages.length > 0);
      rows = [...page.messages, ...rows];
      earlier = page.earlier;
    }
    const row = rows.find((m) => m.id === found.matches[0]!.id);
    assert.equal(row?.role, 'user');
    assert.match(row.blocks[0]!.text, /^Question 3: what is in src\/3\?/);
    assert.ok(row.entryId, 'the row names its session entry, as when it was replayed');
  });

  it('pages a long session back after Restart and after an idle stop: the next worker replays it instead of resuming it quietly', async () => {
    h = await startWorkerHarness(answers(1));
    await resumeLongSession(h);
    const client = h.client;

    await client.worker.restart();
    await h.until(() => client.pendingEarlier === LONG_SESSION - SNAPSHOT_ROWS, 'the replayed snapshot after Restart');
    const afterRestart = await pageBack(client);
    assert.equal(afterRestart?.rows, 400, 'rows before the window come from the new worker');
    assert.equal(afterRestart.last, afterRestart.first - 1);

    assert.equal(await client.stopIdle(), true);
    await h.run('A question after the idle stop');
    assert.match(texts(client.state.messages, 'assistant').at(-1) ?? '', /Answer number 1\./);
    assert.ok(client.pendingEarlier > 0, 'the rows before the window are still counted');
    const afterIdle = await pageBack(client);
    assert.equal(afterIdle?.rows, 400);
    assert.equal(afterIdle.last, afterIdle.first - 1);
  });

  it('pages a long session back after a crash mid-reply, and shows the reply the crash cut off again after the replay', async () => {
    h = await startWorkerHarness(scenarioFile('long-stream-held'));
    // A Pi extension that ends the worker once "Paragraph 3" has streamed (it marks that in the workspace's .pi/).
    mkdirSync(join(h.cwd, '.pi'), { recursive: true });
    copyFileSync(
      join(root, 'test', 'fixtures', 'workspaces', 'crash-mid-stream', '.pi', 'extensions', 'crashMidStream.js'),
      join(h.agentDir, 'extensions', 'crashMidStream.js'),
    );
    await resumeLongSession(h);
    const client = h.client;
    const interrupted = () => client.state.messages.filter((m) => anyRow(m).code === 'interrupted').length;
    await h.run('Tell me something long');
    await h.until(() => interrupted() === 1 && !client.workerStarted, 'the crash and the interrupted reply');
    await h.run('And now?');
    assert.match(texts(client.state.messages, 'assistant').at(-1) ?? '', /Follow-up answer after the long stream\./);
    assert.equal(interrupted(), 1, 'the cut-off reply is on screen again after the replay, once');
    assert.match(anyRow(client.state.messages.find((m) => anyRow(m).code === 'interrupted')!).blocks[0]!.text, /Paragraph 3\./);
    assert.ok(client.pendingEarlier > 0);
    const page = await pageBack(client);
    assert.equal(page?.rows, 400, 'rows before the window come from the new worker');
    assert.equal(page.last, page.first - 1);
  });

  describe('leaves no shell running when the worker ends', () => {
    let pids: number[] = [];
    afterEach(() => {
      // A failed test must not leave its sleeper behind either.
      for (const pid of pids) if (running(pid)) process.kill(pid, 'SIGKILL');
      pids = [];
    });

    it('on Restart: a `!` command started in the background by the shell is killed with its process group', async () => {
      h = await startWorkerHarness(answers(1));
      assert.equal(await h.client.ensureSession(), true);
      void h.client.request({ name: 'bash', params: { command: SLEEPER, excluded: false } });
      const pid = await sleeperPid(h);
      pids.push(pid);
      h.client.worker.restart();
      await h.until(() => !running(pid), 'the sleeper to be killed');
    });

    it('when a Pi extension ends the worker with process.exit(1) while a `!` command runs', async () => {
      h = await startWorkerHarness(answers(1), ['exits.js']);
      assert.equal(await h.client.ensureSession(), true);
      void h.client.request({ name: 'bash', params: { command: SLEEPER, excluded: false } });
      const pid = await sleeperPid(h);
      pids.push(pid);
      await h.run('EXIT-NOW please');
      assert.equal(h.client.workerStarted, false, 'the worker is gone');
      await h.until(() => !running(pid), 'the sleeper to be killed');
      const row = h.client.state.messages.find((m) => m.role === 'bash');
      assert.equal(row?.cancelled, true, 'its row ended, marked cancelled');
    });

    it("on dispose (the extension host shutting down): the bash tool's command is killed", async () => {
      h = await startWorkerHarness({
        name: 'bash-sleeper',
        steps: [{ chunks: [{ toolCall: { id: 'call_sleep', name: 'bash', arguments: { command: SLEEPER } } }], finish: 'tool_calls' }],
      } as Scenario);
      void h.client.send('Sleep a while.', 'prompt');
      const pid = await sleeperPid(h);
      pids.push(pid);
      h.client.dispose();
      await h.until(() => !running(pid), 'the sleeper to be killed');
    });
  });

  it('gives up a request the busy worker does not answer within the bound, then Restart resumes the session in a fresh worker', async () => {
    h = await startWorkerHarness(answers(3), ['spins.js'], 1000);
    await h.run('Warm up');
    const cwd = h.cwd;
    void h.client.send('SPIN now', 'prompt');
    await h.until(() => existsSync(join(cwd, 'spin-started')), 'the extension to start spinning');
    await assert.rejects(h.client.call('listModels', null), /did not answer "listModels" within 1 s/);
    await h.until(() => h!.client.state.messages.some((m) => anyRow(m).code === 'workerStopped'), 'the silent worker to be reported');
    // Restart (the notice's button) stops the busy worker at once; the conversation continues in a new one.
    await h.client.worker.forceIdle();
    assert.equal(h.client.state.run.active, false);
    await h.run('After the restart');
    assert.deepEqual(texts(h.client.state.messages, 'assistant').at(-1), 'Answer number 2.');
    assert.match(JSON.stringify(h.model.requests.at(-1)), /Warm up/);
  });

  it('keeps the main thread responsive while a Pi extension blocks the worker for 5 s', async () => {
    h = await startWorkerHarness(answers(2), ['spins.js']);
    await h.run('Warm up');
    const cwd = h.cwd;
    const running = h.run('SPIN now');
    await h.until(() => existsSync(join(cwd, 'spin-started')), 'the extension to start spinning');
    // A timer on the main thread runs while the worker is still busy.
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(existsSync(join(cwd, 'spin-ended')), false, 'the main thread answered while the worker spun');
    await running;
    assert.ok(existsSync(join(cwd, 'spin-ended')));
    assert.deepEqual(texts(h.client.state.messages, 'assistant'), ['Answer number 1.', 'Answer number 2.']);
    assert.ok(
      h.client.state.messages.some((m) => m.role === 'notice' && /has not answered/.test(m.blocks[0]?.text ?? '')),
      'the silent worker was reported',
    );
  });
});
