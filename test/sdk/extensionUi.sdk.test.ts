import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { DialogView } from '../../src/shared/wire/events.ts';
import { runPhase } from '../../src/shared/run/runState.ts';
import { toolOf } from '../../src/shared/transcript/rows.ts';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { useClientHarness, type ClientHarness } from './workerHarness.ts';

const writeThenAnswer: Scenario = {
  name: 'write-then-answer',
  steps: [
    { chunks: [{ toolCall: { id: 'call_w', name: 'write', arguments: { path: 'out.txt', content: 'hello\n' } } }], finish: 'tool_calls' },
    { chunks: [{ text: 'Done with the file.' }], finish: 'stop' },
  ],
} as Scenario;

const answers = (n: number): Scenario =>
  ({ name: 'answers', steps: Array.from({ length: n }, (_, i) => ({ chunks: [{ text: `Answer ${i + 1}.` }], finish: 'stop' })) }) as Scenario;

const openDialog = (h: ClientHarness): DialogView | undefined => h.client.state.ui?.dialogs[0];
const notices = (h: ClientHarness) => h.client.state.messages.filter((m) => m.role === 'notice').map((m) => m.blocks[0]?.text ?? '');

describe("Pi's extensions with the panel's UI (real worker, real Pi)", function () {
  this.timeout(90_000);
  const harnesses = useClientHarness();

  for (const choice of ['Allow', 'Block'] as const) {
    it(`a permission gate asks in the chat and the answer ${choice} decides the write`, async () => {
      const h = await harnesses.start(writeThenAnswer, ['gate.js']);
      await h.settledAfter(async () => {
        void h.client.send('Write the file.', 'prompt');
        await h.until(() => openDialog(h) !== undefined, 'the gate to ask');
        const d = openDialog(h)!;
        assert.equal(d.kind, 'select');
        assert.match(d.title, /Allow Pi to write out\.txt\?/);
        assert.deepEqual(d.options, ['Allow', 'Block']);
        assert.equal(runPhase(h.client.state.run), 'waiting', 'the run waits for the user');
        assert.equal((await h.client.call('answerDialog', { id: d.id, value: choice }))?.answered, true);
      }, 'the run to settle');
      const card = toolOf(h.client.state.tools, 'call_w');
      const file = join(h.cwd, 'out.txt');
      if (choice === 'Allow') {
        assert.equal(card?.status, 'done');
        assert.equal(readFileSync(file, 'utf8'), 'hello\n');
      } else {
        assert.equal(card?.status, 'error');
        assert.match(card?.output ?? '', /Blocked by the user/);
        assert.equal(existsSync(file), false, 'the blocked write left no file');
      }
      assert.equal(h.client.state.ui?.dialogs.length, 0);
      assert.ok(h.emitted.some((e) => e.type === 'dialogClose' && e.outcome === `answered ${choice}`));
    });
  }

  it('Cancel while a dialog is open answers it as dismissed and the run settles', async () => {
    const h = await harnesses.start(writeThenAnswer, ['gate.js']);
    await h.settledAfter(async () => {
      void h.client.send('Write the file.', 'prompt');
      await h.until(() => openDialog(h) !== undefined, 'the gate to ask');
      await h.client.cancel();
    }, 'the cancelled run to settle');
    assert.ok(h.emitted.some((e) => e.type === 'dialogClose' && e.outcome === 'cancelled'));
    assert.equal(h.client.state.ui?.dialogs.length, 0);
    assert.equal(h.client.state.run.dialogs ?? 0, 0);
    assert.equal(existsSync(join(h.cwd, 'out.txt')), false);
  });

  it('a confirm with a timeout answers itself as declined and the run goes on', async () => {
    const h = await harnesses.start(answers(1), ['uiShowcase.js']);
    await h.settledAfter(() => h.client.send('CONFIRM-TIMEOUT please', 'prompt'), 'the run to settle');
    const opened = h.emitted.find((e) => e.type === 'dialogOpen');
    assert.equal(opened?.type === 'dialogOpen' && opened.dialog.kind, 'confirm');
    assert.equal(opened?.type === 'dialogOpen' && opened.dialog.timeoutMs, 300);
    assert.ok(h.emitted.some((e) => e.type === 'dialogClose' && e.outcome === 'timed out'));
    assert.ok(h.notifications.some((n) => n.message === 'confirm answered false'));
  });

  it('status, widget and title set at session start reach their surfaces, as plain text', async () => {
    const h = await harnesses.start(answers(1), ['uiShowcase.js']);
    assert.equal(await h.client.ensureSession(), true);
    await h.until(() => h.surfaces.some((s) => s.kind === 'title'), 'the title');
    assert.deepEqual(
      h.surfaces.filter((s) => s.kind === 'status' || s.kind === 'title'),
      [
        { kind: 'status', key: 'showcase', text: 'showcase ready' },
        { kind: 'title', title: 'Showcase title' },
      ],
    );
    assert.deepEqual(h.client.state.ui?.widgets, [{ key: 'showcase', lines: ['Showcase widget', 'second line'] }]);
    assert.ok(
      h.surfaces.some((s) => s.kind === 'bound' && s.count === 1),
      'the view is told to report the composer',
    );
  });

  it('notify becomes a notification; custom() resolves dismissed with a notice naming the extension', async () => {
    const h = await harnesses.start(answers(1), ['uiShowcase.js']);
    await h.settledAfter(() => h.client.send('NOTIFY and CUSTOM', 'prompt'), 'the run to settle');
    assert.ok(h.notifications.some((n) => n.level === 'info' && n.message === 'custom resolved undefined'));
    assert.ok(h.notifications.some((n) => n.level === 'warning' && n.message.startsWith('Heads up')));
    assert.ok(
      notices(h).some((t) => t.includes('"uiShowcase.js"') && t.includes('custom component')),
      `a notice names the extension: ${JSON.stringify(notices(h))}`,
    );
  });

  it("an extension's error is logged and shown in the view, naming the extension", async () => {
    const h = await harnesses.start(answers(1), ['uiShowcase.js']);
    await h.settledAfter(() => h.client.send('FAIL now', 'prompt'), 'the run to settle');
    assert.ok(
      notices(h).some((t) => t.includes('"uiShowcase.js" failed (before_agent_start): the showcase failed on purpose')),
      JSON.stringify(notices(h)),
    );
    assert.ok(h.log.lines.some((l) => l.includes('the showcase failed on purpose')));
  });

  it('setEditorText reaches the composer and getEditorText reads what the user typed', async () => {
    const h = await harnesses.start(answers(1), ['uiShowcase.js']);
    assert.equal(await h.client.ensureSession(), true);
    void h.client.request({ name: 'composerText', params: { text: 'typed so far' } });
    await h.settledAfter(() => h.client.send('EDITOR', 'prompt'), 'the run to settle');
    assert.ok(h.surfaces.some((s) => s.kind === 'editorText' && s.text === 'draft from the extension (was "typed so far")' && !s.paste));
  });
});

describe('slash commands on the real worker', function () {
  this.timeout(90_000);
  const harnesses = useClientHarness();

  it("lists an extension's command as Pi lists it for RPC clients", async () => {
    const h = await harnesses.start(answers(1), ['hello.js']);
    const commands = (await h.client.call('listCommands', null))?.commands ?? [];
    assert.deepEqual(
      commands.filter((c) => c.source === 'extension'),
      [
        { name: 'hello', description: 'Say hello from an extension', source: 'extension' },
        // Pi's built-in MCP extension's, as in the CLI.
        { name: 'mcp', description: 'Manage MCP servers: sign in, reconnect, enable or disable, and change exposure', source: 'extension' },
      ],
    );
  });

  it('a command that throws is reported by the extension that registered it, not as "command:NAME"', async () => {
    const h = await harnesses.start(answers(1), ['hello.js']);
    await h.client.send('/hello fail', 'prompt');
    await h.until(() => h.client.state.messages.some((m) => m.role === 'notice' && m.level === 'error'), 'the notice');
    const notice = h.client.state.messages.find((m) => m.role === 'notice' && m.level === 'error');
    assert.equal(notice?.blocks[0]?.text, 'The Pi extension "hello.js" failed (/hello): hello failed on purpose');
  });

  it('runs an extension command typed while a run is active at once, never as text for the model', async () => {
    const slow = {
      name: 'slow-answer',
      steps: [{ chunks: [{ text: 'A slow answer that streams for a while. '.repeat(3), split: 2, delayMs: 40 }], finish: 'stop' }],
    } as Scenario;
    const h = await harnesses.start(slow, ['hello.js']);
    await h.settledAfter(async () => {
      void h.client.send('Tell me slowly.', 'prompt');
      await h.until(() => h.emitted.some((e) => e.type === 'patch'), 'the answer to stream');
      await h.client.send('/hello panel', 'steer');
      await h.until(() => h.notifications.some((n) => n.message === 'Hello panel!'), 'the command to run');
      assert.equal(h.client.isActive, true, 'it ran while the answer was still streaming');
    }, 'the run to settle');
    assert.equal(h.model.requests.length, 1, 'the model got no second request');
    assert.equal(JSON.stringify(h.model.requests).includes('/hello'), false);
  });
});

describe('! shell commands on the real worker', function () {
  this.timeout(90_000);
  const harnesses = useClientHarness();

  it("runs !command in Pi's shell, streams its output into a shell row, and !! keeps it out of the context", async () => {
    const h = await harnesses.start(answers(1), []);
    assert.equal(await h.client.ensureSession(), true);
    await h.client.request({ name: 'bash', params: { command: 'echo first; echo second', excluded: false } });
    await h.client.request({ name: 'bash', params: { command: 'echo private', excluded: true } });
    const rows = h.client.state.messages.filter((m) => m.role === 'bash');
    assert.deepEqual(
      rows.map((m) => [m.command, m.blocks[0]?.text.trim(), m.exitCode, m.excluded]),
      [
        ['echo first; echo second', 'first\nsecond', 0, false],
        ['echo private', 'private', 0, true],
      ],
    );
    assert.ok(
      h.emitted.some((e) => e.type === 'bashOutput' && e.delta.includes('first')),
      'output streamed as it came',
    );
    // The next prompt carries the first command's output to the model, not the second's.
    await h.settledAfter(() => h.client.send('What did it print?', 'prompt'), 'the prompt to settle');
    const request = JSON.stringify(h.model.requests[0]);
    assert.ok(request.includes('second'), 'the ! output reached the model');
    assert.equal(request.includes('private'), false, 'the !! output did not');
  });

  it('a ! command that takes over the screen (as vim does) is stopped at once and its row says it needs a terminal', async () => {
    const h = await harnesses.start(answers(1), []);
    assert.equal(await h.client.ensureSession(), true);
    // What vim does with no terminal: switch to the alternate screen, then wait for keys forever.
    await h.client.request({ name: 'bash', params: { command: "printf 'start\\033[?1049h'; sleep 600", excluded: false } });
    const row = h.client.state.messages.find((m) => m.role === 'bash');
    assert.equal(row?.role === 'bash' && row.exitCode, 126);
    assert.match(row?.blocks[0]?.text ?? '', /printf needs a terminal, and ! commands in the panel have none: it was stopped\. Run it in VS Code's terminal\./);
    assert.equal(row?.role === 'bash' && row.cancelled, false);
  });

  it('Cancel stops a running ! command and its row says it was cancelled', async () => {
    const h = await harnesses.start(answers(1), []);
    assert.equal(await h.client.ensureSession(), true);
    const running = h.client.request({ name: 'bash', params: { command: 'echo started; sleep 30', excluded: false } });
    await h.until(() => h.client.state.ui?.shell?.output.includes('started') === true, 'the command to start');
    assert.equal(runPhase(h.client.state.run), 'running');
    await h.client.cancel();
    await running;
    const row = h.client.state.messages.find((m) => m.role === 'bash');
    assert.equal(row?.cancelled, true);
    assert.equal(runPhase(h.client.state.run), 'idle');
  });
});

describe("a Pi extension's command that moves in the session (real worker, real Pi)", function () {
  this.timeout(90_000);
  const harnesses = useClientHarness();

  /** Two exchanges, then the composer's texts as the worker sets them from here on. */
  async function twoExchanges(): Promise<{ harness: ClientHarness; inputs: string[] }> {
    const harness = await harnesses.start(answers(2), ['branching.js']);
    await harness.settledAfter(() => harness.client.send('First question.', 'prompt'), 'the first answer');
    await harness.settledAfter(() => harness.client.send('Second question.', 'prompt'), 'the second answer');
    const inputs: string[] = [];
    harness.client.onDidSetInput((t) => inputs.push(t));
    return { harness, inputs };
  }

  const userRows = (harness: ClientHarness) => harness.client.state.messages.filter((m) => m.role === 'user').map((m) => m.blocks[0]?.text);

  it('ctx.navigateTree moves the view back before the first question, which returns to the composer; the session file stays', async () => {
    const { harness, inputs } = await twoExchanges();
    const file = harness.client.sessionFile;
    assert.deepEqual(userRows(harness), ['First question.', 'Second question.']);
    await harness.client.send('/back-to-first', 'prompt');
    await harness.until(() => inputs.includes('First question.'), 'the first question to return to the composer');
    assert.deepEqual(userRows(harness), [], 'the branch now ends before the first question');
    assert.equal(harness.client.sessionFile, file);
    assert.equal(harness.notifications.filter((n) => /cancelled/.test(n.message)).length, 0);
    const labels = readFileSync(file!, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"type":"label"'));
    assert.equal(labels.length, 1, 'the label the command gave is saved');
  });

  it('ctx.fork opens a new session file with the branch before the first question, and runs its withSession there', async () => {
    const { harness, inputs } = await twoExchanges();
    const file = harness.client.sessionFile;
    await harness.client.send('/fork-first', 'prompt');
    await harness.until(() => harness.client.sessionFile !== file, 'the forked session to open');
    await harness.until(() => harness.notifications.some((n) => /^forked: \d+ entries$/.test(n.message)), "the command's withSession to run");
    await harness.until(() => inputs.includes('First question.'), 'the first question to return to the composer');
    assert.deepEqual(userRows(harness), []);
    assert.equal(existsSync(file!), true, 'the original session file is untouched');
    assert.match(readFileSync(file!, 'utf8'), /Second question\./);
  });

  it('ctx.newSession and ctx.switchSession replace the session and run their withSession in the new one', async () => {
    const { harness } = await twoExchanges();
    const first = harness.client.sessionFile!;
    await harness.client.send('/new-child', 'prompt');
    await harness.until(() => harness.client.sessionFile !== first, 'the new session to open');
    const name = basename(first);
    await harness.until(
      () => harness.notifications.some((n) => n.message.startsWith('new: ') && n.message.endsWith(` entries, parent ${name}`)),
      "the new session's withSession to run",
    );
    assert.deepEqual(userRows(harness), [], 'the new session is empty');
    await harness.client.send(`/switch-to ${first}`, 'prompt');
    await harness.until(() => harness.client.sessionFile === first, 'the first session to open again');
    await harness.until(() => harness.notifications.some((n) => /^switched: [1-9]\d* entries$/.test(n.message)), "the switch's withSession to run");
    assert.equal(userRows(harness).length, 2, 'its two questions are back');
    assert.equal(harness.notifications.filter((n) => /cancelled/.test(n.message)).length, 0);
  });
});
