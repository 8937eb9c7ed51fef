import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { PiModule } from '../../src/pi/piEntry.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { toolOf, type TranscriptState } from '../../src/shared/transcript/rows.ts';
import { listSessionInfos, listSessionPage } from '../../src/worker/sessionRuntime.ts';
import { exportSessionHtml, type ExportableSession } from '../../src/worker/sessionFiles.ts';
import { sessionDirFor } from '../../src/worker/piSessions.ts';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { loadBundledPi, scenarioFile, startHarness, type Harness } from './harness.ts';
import { tempDir } from '../support/tempDir.ts';
import { userEntry } from '../support/userEntry.ts';
import { useClientHarness, type ClientHarness } from './workerHarness.ts';

const answers = (n: number): Scenario =>
  ({
    name: 'session-answers',
    steps: Array.from({ length: n }, (_, i) => ({ chunks: [{ text: `Answer number ${i + 1}.`, split: 4 }], finish: 'stop' })),
  }) as Scenario;

/** What the view shows: (role, text) of each user and assistant row. */
function shown(state: TranscriptState): string[] {
  return state.messages.filter((m) => m.role === 'user' || m.role === 'assistant').map((m) => `${m.role}: ${m.blocks.map((b) => b?.text ?? '').join('')}`);
}

/** What Pi holds for the session's current leaf, in the same form. */
function piShows(h: Harness): string[] {
  const messages = h.controller.session!.messages as { role: string; content: unknown }[];
  return messages
    .filter((m) => m.role === 'user' || m.role === 'assistant')
    .map((m) => {
      const text =
        typeof m.content === 'string'
          ? m.content
          : (m.content as { type: string; text?: string }[])
              .filter((c) => c.type === 'text')
              .map((c) => c.text)
              .join('');
      return `${m.role}: ${text}`;
    });
}

describe('Sessions through the runtime on the real Pi SDK', function () {
  this.timeout(90_000);
  let pi: PiModule;
  let h: Harness | undefined;

  before(() => {
    pi = loadBundledPi();
  });

  afterEach(async () => {
    await h?.dispose();
    h = undefined;
  });

  async function run(text: string): Promise<void> {
    const settles = h!.emitted.filter((e) => e.type === 'settled').length;
    await h!.controller.send(text, 'prompt');
    await h!.until(() => h!.emitted.filter((e) => e.type === 'settled').length > settles && !h!.controller.isActive, 30_000, `"${text}" to settle`);
  }

  /**
   * Arms a probe on the session open now: while the runtime tears it down (after its shutdown, before it
   * is disposed, when Pi still delivers its events) it emits a run of its own. Returns the check that none
   * of it reached the host store or the view, and that it stays deaf afterwards too.
   */
  function probeOldSession(): () => void {
    const old = h!.controller.session as unknown as { _emit(e: unknown): void };
    const runtime = (h!.controller as unknown as { _lifecycle: { runtime: { setBeforeSessionInvalidate(f?: () => void): void } } })._lifecycle.runtime;
    let fired = false;
    const from = h!.emitted.length;
    const emitOld = () => {
      old._emit({ type: 'agent_start' });
      old._emit({ type: 'message_start', message: { role: 'user', content: 'from the old session', timestamp: 0 } });
    };
    runtime.setBeforeSessionInvalidate(() => {
      runtime.setBeforeSessionInvalidate(undefined);
      fired = true;
      emitOld();
    });
    return () => {
      assert.ok(fired, 'the probe ran during the switch');
      const before = h!.emitted.length;
      emitOld();
      assert.equal(h!.emitted.length, before, 'nothing from the old session after the switch either');
      const leaked = h!.emitted.slice(from).filter((e) => e.type === 'runStart' || (e.type === 'userMessage' && e.text === 'from the old session'));
      assert.deepEqual(leaked, [], 'no event of the old session reached the view');
      assert.ok(!shown(h!.controller.state).includes('user: from the old session'));
    };
  }

  it('switches sessions: the view shows the new one, the old one emits nothing', async () => {
    h = await startHarness(pi, answers(2));
    await run('First session question');
    const first = h.controller.session!;
    const firstFile = first.sessionFile!;
    const firstSilent = probeOldSession();
    await h.controller.branching.newSession();
    assert.notEqual(h.controller.session, first);
    assert.deepEqual(shown(h.controller.state), []);
    firstSilent();
    await run('Second session question');
    const secondSilent = probeOldSession();
    await h.controller.branching.resumeSession(firstFile);
    assert.equal(h.controller.sessionFile, firstFile);
    assert.deepEqual(shown(h.controller.state), ['user: First session question', 'assistant: Answer number 1.']);
    assert.deepEqual(shown(h.controller.state), piShows(h));
    secondSilent();
  });

  it('switched mid-run: cancels first, then nothing of the old run reaches the view', async () => {
    h = await startHarness(pi, scenarioFile('long-stream'));
    const running = h.controller.send('Talk for a long time.', 'prompt');
    await h.until(() => (h!.controller.state.messages.at(-1)?.blocks[0]?.text.length ?? 0) > 40, 20_000, 'some streamed text');
    const oldSilent = probeOldSession();
    await h.controller.branching.newSession();
    await running;
    const reset = h.emitted.map((e) => e.type).lastIndexOf('reset');
    assert.ok(reset >= 0, 'the view was reset');
    const settledAt = h.emitted.findIndex((e) => e.type === 'settled');
    assert.ok(settledAt >= 0 && settledAt < reset, 'the old run settled (cancelled) before the switch');
    const after: WireEvent[] = h.emitted.slice(reset + 1);
    assert.deepEqual(after, [], 'no event of the old run came after the switch');
    assert.equal(h.controller.isActive, false);
    assert.deepEqual(shown(h.controller.state), []);
    oldSilent();
  });

  it('forks from a user message into a new file; the original keeps every message', async () => {
    h = await startHarness(pi, answers(2));
    await run('One');
    await run('Two');
    const oldFile = h.controller.sessionFile!;
    const oldSilent = probeOldSession();
    await h.controller.commands.forkHere(userEntry(h.controller.state, 'One'));
    assert.notEqual(h.controller.sessionFile, oldFile);
    assert.deepEqual(shown(h.controller.state), ['user: One', 'assistant: Answer number 1.']);
    assert.deepEqual(shown(h.controller.state), piShows(h));
    oldSilent();
    const oldLines = readFileSync(oldFile, 'utf8');
    assert.match(oldLines, /"Two"/, 'the original session file still has the second exchange');
  });

  it('edit and resend rewinds in the same file: the composer gets the text, the old branch stays in the tree', async () => {
    h = await startHarness(pi, answers(3));
    const inputs: string[] = [];
    h.controller.onDidSetInput((t) => inputs.push(t));
    await run('One');
    await run('Two');
    const file = h.controller.sessionFile;
    await h.controller.commands.editResend(userEntry(h.controller.state, 'Two'));
    assert.equal(h.controller.sessionFile, file, 'same session file');
    assert.deepEqual(inputs, ['Two']);
    assert.deepEqual(shown(h.controller.state), ['user: One', 'assistant: Answer number 1.']);
    assert.deepEqual(shown(h.controller.state), piShows(h));
    await run('Two, edited');
    assert.deepEqual(shown(h.controller.state), piShows(h));
    const tree = h.controller.branching.tree();
    const users = tree.filter((n) => n.kind === 'user').map((n) => n.text);
    assert.deepEqual(users.sort(), ['One', 'Two', 'Two, edited']);
    const oldAnswer = tree.find((n) => n.text === 'Answer number 2.')!;
    assert.equal(oldAnswer.onPath, false);
    assert.ok(oldAnswer.depth > 0, 'the abandoned branch is indented under the fork point');
    assert.deepEqual(
      tree.filter((n) => n.branchStart).map((n) => n.text),
      ['Two', 'Two, edited'],
      'each branch is marked where it starts',
    );
    // Back to the old branch through the tree.
    await h.controller.branching.navigateTree(oldAnswer.id);
    assert.deepEqual(shown(h.controller.state), ['user: One', 'assistant: Answer number 1.', 'user: Two', 'assistant: Answer number 2.']);
    assert.deepEqual(shown(h.controller.state), piShows(h));
    assert.equal(h.controller.branching.tree().find((n) => n.id === oldAnswer.id)!.isLeaf, true);
  });

  it('renames the session: the header and the saved list carry the name', async () => {
    h = await startHarness(pi, answers(1));
    await run('Name me');
    await h.controller.branching.rename('  Refactor the parser ');
    assert.equal(h.controller.sessionInfo.name, 'Refactor the parser');
    assert.equal(h.controller.state.sessionName, 'Refactor the parser');
    const listed = await pi.SessionManager.list(h.cwd, join(h.controller.sessionFile!, '..'));
    assert.equal(listed.find((s) => s.path === h!.controller.sessionFile)?.name, 'Refactor the parser');
  });

  it('imports a JSONL export and shows it; the session it replaced emits nothing', async () => {
    h = await startHarness(pi, answers(1));
    await run('Export me');
    const out = join(tempDir('pi-export-'), 'exported.jsonl');
    h.controller.session!.exportToJsonl!(out);
    assert.ok(existsSync(out));
    await h.controller.branching.newSession();
    const oldSilent = probeOldSession();
    await h.controller.branching.importSession(out);
    assert.deepEqual(shown(h.controller.state), ['user: Export me', 'assistant: Answer number 1.']);
    assert.deepEqual(shown(h.controller.state), piShows(h));
    assert.notEqual(h.controller.sessionFile, out, 'imported as a copy among the workspace sessions');
    oldSilent();
  });

  it("imports a session whose header names another folder into the workspace: that folder's extensions and AGENTS.md never load", async () => {
    h = await startHarness(pi, answers(2));
    await run('Export me');
    const exported = join(tempDir('pi-export-'), 'exported.jsonl');
    h.controller.session!.exportToJsonl!(exported);
    // A hostile repository next door: an extension that leaves a mark when it loads, and context for the model.
    const other = tempDir('pi-other-');
    const mark = join(other, 'LOADED');
    mkdirSync(join(other, '.pi', 'extensions'), { recursive: true });
    writeFileSync(
      join(other, '.pi', 'extensions', 'mark.ts'),
      `import { writeFileSync } from 'node:fs';\nexport default function () { writeFileSync(${JSON.stringify(mark)}, 'x'); }\n`,
    );
    writeFileSync(join(other, 'AGENTS.md'), 'OTHER-FOLDER-CONTEXT');
    const lines = readFileSync(exported, 'utf8').split('\n');
    lines[0] = JSON.stringify({ ...JSON.parse(lines[0]!), cwd: other });
    writeFileSync(exported, lines.join('\n'));
    await h.controller.branching.importSession(exported);
    assert.deepEqual(shown(h.controller.state), ['user: Export me', 'assistant: Answer number 1.']);
    const session = h.controller.session as unknown as { sessionManager: { getCwd(): string } };
    assert.equal(session.sessionManager.getCwd(), h.cwd, 'the imported session runs in the workspace');
    await run('And now?');
    assert.equal(existsSync(mark), false, "the other folder's extension did not run");
    assert.doesNotMatch(JSON.stringify(h.model.requests), /OTHER-FOLDER-CONTEXT/, "the other folder's AGENTS.md did not reach the model");
  });

  it('imports a crafted session (object text, HTML in number fields): it replays and the HTML export carries numbers', async () => {
    h = await startHarness(pi, answers(1));
    await run('Export me');
    const exported = join(tempDir('pi-export-'), 'crafted.jsonl');
    h.controller.session!.exportToJsonl!(exported);
    const lines = readFileSync(exported, 'utf8').trim().split('\n');
    const last = JSON.parse(lines[lines.length - 1]!) as { id: string };
    const first = JSON.parse(lines[1]!) as { id: string };
    const at = new Date().toISOString();
    const xss = '<img src=x onerror=alert(1)>';
    lines.push(
      JSON.stringify({
        type: 'message',
        id: 'c1',
        parentId: last.id,
        timestamp: at,
        message: { role: 'bashExecution', command: 'ls', output: '', exitCode: xss, cancelled: false, truncated: false, timestamp: 0 },
      }),
      JSON.stringify({
        type: 'message',
        id: 'c2',
        parentId: 'c1',
        timestamp: at,
        message: { role: 'user', content: [{ type: 'text', text: { toString: 1 } }], timestamp: 0 },
      }),
      JSON.stringify({ type: 'compaction', id: 'c3', parentId: 'c2', timestamp: at, summary: 'sum', firstKeptEntryId: first.id, tokensBefore: xss }),
    );
    writeFileSync(exported, `${lines.join('\n')}\n`);
    await h.controller.branching.importSession(exported);
    assert.notEqual(h.controller.sessionFile, undefined);
    assert.ok(!h.log.lines.some((l) => /Could not import/.test(l)), 'the import did not fail');
    const html = readFileSync(await exportSessionHtml(h.controller.session as unknown as ExportableSession, join(dirname(exported), 'out.html')), 'utf8');
    const data = /id="session-data"[^>]*>([^<]+)</.exec(html)?.[1];
    assert.ok(data, 'the export embeds the session data');
    const decoded = Buffer.from(data, 'base64').toString('utf8');
    assert.doesNotMatch(decoded, /onerror/, 'no markup reaches the template through a number field');
  });

  it('reports the session totals from getSessionStats, in the header and the Sessions list', async () => {
    h = await startHarness(pi, scenarioFile('plain-text'));
    await run('Count me');
    const stats = h.controller.sessionInfo.stats!;
    assert.equal(stats.input, 120);
    assert.equal(stats.output, 16);
    // The Sessions list carries the same totals and the model, read from the file.
    const listed = await listSessionPage(pi, h.cwd, dirname(h.controller.sessionFile!), { query: '', offset: 0 });
    const row = listed.sessions.find((x) => x.path === h!.controller.sessionFile)!;
    assert.equal(row.stats?.input, 120);
    assert.equal(row.stats?.output, 16);
    assert.equal(row.model, h.controller.sessionInfo.modelId);
  });

  it("finds a session by its reply's text on demand, and the kept listing holds no session's text", async () => {
    h = await startHarness(pi, scenarioFile('plain-text'));
    await run('Count me');
    const dir = dirname(h.controller.sessionFile!);
    const reply = h.controller.state.messages.find((m) => m.role === 'assistant')!.blocks.find((b) => b?.kind === 'text')!.text;
    const word = reply.split(/\W+/).find((w) => w.length > 3)!;
    const found = await listSessionPage(pi, h.cwd, dir, { query: word, offset: 0 });
    assert.ok(
      found.sessions.some((x) => x.path === h!.controller.sessionFile),
      `found by "${word}"`,
    );
    const none = await listSessionPage(pi, h.cwd, dir, { query: 'zz-no-session-says-this', offset: 0 });
    assert.equal(none.total, 0);
    for (const info of await listSessionInfos(pi, h.cwd, dir)) assert.equal(info.allMessagesText, '');
  });
});

/** A Pi session file (JSONL) of `messages` in `dir`, each a message entry chained to the one before, then the raw `entries`. */
function craftedSession(dir: string, name: string, cwd: string, messages: readonly unknown[], entries: readonly Record<string, unknown>[] = []): string {
  const at = new Date().toISOString();
  const lines = [JSON.stringify({ type: 'session', version: 3, id: `crafted-${name}`, timestamp: at, cwd })];
  messages.forEach((message, i) => lines.push(JSON.stringify({ type: 'message', id: `m${i}`, parentId: i ? `m${i - 1}` : null, timestamp: at, message })));
  for (const e of entries) lines.push(JSON.stringify({ timestamp: at, ...e }));
  const file = join(dir, `${name}.jsonl`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const assistantBase = {
  api: 'openai-completions',
  provider: 'scripted',
  model: 'scripted-model',
  usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
  timestamp: 0,
};

/** The session files of the harness's workspace. */
function sessionFilesOf(h: ClientHarness): string[] {
  const dir = sessionDirFor(h.cwd, h.agentDir);
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.jsonl')) : [];
}

describe('Crafted session files through the worker', function () {
  this.timeout(90_000);
  const harness = useClientHarness();
  const texts = (h: ClientHarness, role: string) =>
    h.client.state.messages.filter((m) => m.role === role).map((m) => m.blocks.map((b) => b?.text ?? '').join(''));

  it('imports and reloads a session whose ids and names are objects: the worker lives, the good rows and the tree show', async () => {
    const h = await harness.start(answers(1), []);
    await h.client.ensureSession();
    const hostile = { toString: 1 };
    const file = craftedSession(
      tempDir('pi-crafted-'),
      'hostile-ids',
      h.cwd,
      [
        { role: 'user', content: 'Before the bad result', timestamp: 0 },
        { role: 'assistant', content: [{ type: 'toolCall', id: hostile, name: hostile, arguments: {} }], ...assistantBase, stopReason: 'toolUse' },
        { role: 'toolResult', toolCallId: hostile, toolName: hostile, content: [{ type: 'text', text: 'out' }], isError: false, timestamp: 0 },
        { role: 'assistant', content: [{ type: 'text', text: 'After the bad result' }], ...assistantBase, stopReason: 'stop' },
      ],
      [
        { type: 'label', id: 'l1', parentId: 'm3', targetId: 'm0', label: hostile },
        { type: 'message', id: hostile, parentId: 'l1', message: { role: 'user', content: [{ type: 'text', text: hostile }], timestamp: 0 } },
      ],
    );
    const before = sessionFilesOf(h);
    await h.client.call('importSession', { file: file });
    await h.until(() => texts(h, 'assistant').includes('After the bad result'), 'the imported history');
    assert.deepEqual(texts(h, 'user')[0], 'Before the bad result');
    assert.ok(
      h.client.state.messages.some((m) => m.role === 'notice' && /could not be shown/.test(m.blocks[0]?.text ?? '')),
      'the skipped messages are said',
    );
    assert.equal(sessionFilesOf(h).length, before.length + 1, 'the imported copy');
    const tree = (await h.client.ask('sessionTree', null)).nodes;
    assert.ok(tree.some((n) => n.text === 'Before the bad result'));
    assert.ok(tree.every((n) => typeof n.id === 'string' && (n.label === undefined || typeof n.label === 'string')));
    // A reload opens the imported copy (the most recent session) again.
    await h.client.worker.restart();
    await h.until(() => texts(h, 'assistant').includes('After the bad result'), 'the history after a restart');
    await h.settledAfter(() => h.client.send('Still there?', 'prompt'), 'a prompt after the restart');
    assert.equal(texts(h, 'assistant').at(-1), 'Answer number 1.');
    assert.ok(!h.notifications.some((n) => n.code === 'workerStopped'), 'the worker never stopped');
  });

  it('a worker that dies while showing an imported session leaves no copy: the next start removes it, says so and does not open it', async () => {
    const h = await harness.start(answers(1), ['exitsOnImport.js'], { storageDir: tempDir('pi-storage-') });
    await h.client.ensureSession();
    const before = sessionFilesOf(h);
    const file = craftedSession(tempDir('pi-crafted-'), 'deadly-import', h.cwd, [
      { role: 'user', content: 'Imported question', timestamp: 0 },
      { role: 'assistant', content: [{ type: 'text', text: 'Imported answer' }], ...assistantBase, stopReason: 'stop' },
    ]);
    // A Pi extension ends the worker once the copy is shown, before the import has finished.
    await h.client.call('importSession', { file }).catch(() => undefined);
    await h.until(() => h.notifications.some((n) => n.code === 'workerStopped'), 'the worker stopped');
    assert.equal(sessionFilesOf(h).length, before.length + 1, 'the copy is there while no worker runs');
    await h.client.ensureSession();
    assert.deepEqual(sessionFilesOf(h), before, 'the copy is gone');
    await h.until(
      () => h.client.state.messages.some((m) => m.role === 'notice' && /deadly-import/.test(m.blocks[0]?.text ?? '')),
      'the notice of the removed copy',
    );
    assert.ok(!texts(h, 'user').includes('Imported question'), 'the imported session is not open');
    assert.ok(!/deadly/.test(h.client.sessionFile ?? ''), h.client.sessionFile);
    // A second start finds nothing left to remove.
    await h.client.worker.restart();
    await h.client.ensureSession();
    assert.deepEqual(sessionFilesOf(h), before);
  });
});

describe('Tool calls a reply never ran, through the worker', function () {
  this.timeout(90_000);
  const harness = useClientHarness();

  it('a reply cancelled after its tool call streamed shows the call failed, not pending, live and after a restart replays it', async () => {
    const scenario = {
      name: 'call-then-cancel',
      steps: [{ chunks: [{ toolCall: { id: 'call_never', name: 'bash', arguments: { command: 'ls' } } }, { hold: 'after-call' }] }],
    } as Scenario;
    const h = await harness.start(scenario, []);
    await h.settledAfter(async () => {
      void h.client.send('List the files', 'prompt');
      await h.model.held('after-call');
      await h.until(() => h.client.state.messages.some((m) => m.blocks.some((b) => b?.toolCallId === 'call_never')), 'the streamed call');
      await h.client.cancel();
    }, 'the cancelled run');
    assert.equal(toolOf(h.client.state.tools, 'call_never')?.status, 'error', 'live');
    await h.client.worker.restart();
    await h.until(() => toolOf(h.client.state.tools, 'call_never') !== undefined, 'the replayed call');
    assert.equal(toolOf(h.client.state.tools, 'call_never')?.status, 'error', 'replayed');
    h.model.release('after-call');
  });
});

describe('A configured agent dir through the worker', function () {
  this.timeout(90_000);
  const harness = useClientHarness();
  const saved = process.env.PI_CODING_AGENT_DIR;
  // The worker copies this process's environment: Pi starts pointed at its default folder, as in VS Code.
  beforeEach(() => delete process.env.PI_CODING_AGENT_DIR);
  afterEach(() => {
    if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
    else process.env.PI_CODING_AGENT_DIR = saved;
  });

  it('continues the most recent session there on the first start, as the CLI does with that folder, also one whose header names another folder', async () => {
    const h = await harness.start(answers(1), [], {
      prepare: ({ agentDir, cwd }) => {
        const dir = sessionDirFor(cwd, agentDir);
        mkdirSync(dir, { recursive: true });
        // Brought from another machine (an import, a synced folder): its header names a folder that is not this one.
        craftedSession(dir, 'recent', tempDir('pi-elsewhere-'), [
          { role: 'user', content: 'Asked in the configured folder', timestamp: 0 },
          { role: 'assistant', content: [{ type: 'text', text: 'Answered there' }], ...assistantBase, stopReason: 'stop' },
        ]);
      },
    });
    await h.client.ensureSession();
    await h.until(() => h.client.state.messages.length > 0, 'the session continued', 10_000);
    assert.deepEqual(
      h.client.state.messages.map((m) => m.blocks.map((b) => b?.text ?? '').join('')),
      ['Asked in the configured folder', 'Answered there'],
    );
  });
});
