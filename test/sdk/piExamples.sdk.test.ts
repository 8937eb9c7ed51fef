/**
 * Pi's own example extensions, loaded from its package (not copies) through the real worker and PiClient with
 * the scripted model: what a `pi` CLI user would see of each (docs/extension-compatibility.md).
 */

import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { runPhase } from '../../src/shared/run/runState.ts';
import { toolOf } from '../../src/shared/transcript/rows.ts';
import { useClientHarness, type ClientHarness } from './workerHarness.ts';
import { tempDir } from '../support/tempDir.ts';

const examples = fileURLToPath(new URL('../../node_modules/@earendil-works/pi-coding-agent/examples/extensions/', import.meta.url));

type Dirs = { agentDir: string; cwd: string };

/** Points the agent directory's settings at Pi's examples named (or absolute paths), then runs `more`. */
function loading(names: string | string[], more?: (dirs: Dirs) => void): { prepare: (dirs: Dirs) => void } {
  return {
    prepare: (dirs) => {
      mkdirSync(dirs.agentDir, { recursive: true });
      const file = join(dirs.agentDir, 'settings.json');
      const settings = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      const paths = (Array.isArray(names) ? names : [names]).map((n) => (n.startsWith('/') ? n : join(examples, n)));
      writeFileSync(file, JSON.stringify({ ...settings, extensions: paths }, null, 2));
      more?.(dirs);
    },
  };
}

const tool = (id: string, name: string, args: Record<string, unknown>) => ({ chunks: [{ toolCall: { id, name, arguments: args } }], finish: 'tool_calls' });
const say = (text: string) => ({ chunks: [{ text }], finish: 'stop' });
const steps = (name: string, ...list: unknown[]): Scenario => ({ name, steps: list }) as unknown as Scenario;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

const answers = (n: number): Scenario =>
  ({ name: 'answers', steps: Array.from({ length: n }, (_, i) => ({ chunks: [{ text: `Answer ${i + 1}.` }], finish: 'stop' })) }) as Scenario;

function notices(h: ClientHarness): string[] {
  return h.client.state.messages.filter((m) => m.role === 'notice').map((m) => m.blocks[0]?.text ?? '');
}

/** The text of every tool result the model was sent in request `i`. */
function toolResultsSent(h: ClientHarness, i: number): string {
  const body = h.model.requests[i] as { messages?: { role: string; content?: unknown }[] } | undefined;
  return JSON.stringify((body?.messages ?? []).filter((m) => m.role === 'tool'));
}

const openDialog = (h: ClientHarness) => h.client.state.ui?.dialogs[0];

describe("Pi's example extensions in the panel (real worker, real Pi)", function () {
  this.timeout(90_000);
  const harnesses = useClientHarness();

  it('shutdown-command: /quit ends the session once idle, with a notice, and a new session takes its place', async () => {
    const h = await harnesses.start(answers(2), [], loading('shutdown-command.ts'));
    await h.settledAfter(() => h.client.send('Hello', 'prompt'), 'the first answer');
    const before = h.client.sessionFile;
    await h.client.send('/quit', 'prompt');
    await h.until(() => notices(h).some((t) => t.includes('ctx.shutdown()')), 'the shutdown notice');
    assert.notEqual(h.client.sessionFile, before, 'another session file');
    assert.equal(
      h.client.state.messages.some((m) => m.role === 'user'),
      false,
      'the old conversation is gone from the view',
    );
  });

  it("bash-spawn-hook: the extension's bash override runs, not the panel's", async () => {
    const scenario = {
      name: 'spawn hook',
      steps: [
        { chunks: [{ toolCall: { id: 'call_b', name: 'bash', arguments: { command: 'echo hook=$PI_SPAWN_HOOK' } } }], finish: 'tool_calls' },
        { chunks: [{ text: 'Done.' }], finish: 'stop' },
      ],
    } as unknown as Scenario;
    const h = await harnesses.start(scenario, [], loading('bash-spawn-hook.ts'));
    await h.settledAfter(() => h.client.send('Run it', 'prompt'), 'the run');
    const request = JSON.stringify(h.model.requests[1]);
    assert.ok(request.includes('hook=1'), `the hook's environment reached the command: ${request.slice(0, 2000)}`);
  });

  it('titlebar-spinner: the title names the workspace folder, from process.cwd() in the worker', async () => {
    const h = await harnesses.start(answers(1), [], loading('titlebar-spinner.ts'));
    await h.settledAfter(() => h.client.send('Hello', 'prompt'), 'the answer');
    await h.until(() => h.surfaces.some((s) => s.kind === 'title'), 'a title');
    const title = h.surfaces.find((s) => s.kind === 'title');
    assert.ok(title?.kind === 'title' && title.title.endsWith(basename(h.cwd)), JSON.stringify(title));
  });

  it('a new session clears the status items and title the last one set (reset before its extensions bind)', async () => {
    const h = await harnesses.start(answers(1), [], loading('titlebar-spinner.ts'));
    await h.settledAfter(() => h.client.send('Hello', 'prompt'), 'the answer');
    await h.until(() => h.surfaces.some((s) => s.kind === 'title'), 'a title');
    const seen = h.surfaces.length;
    await h.client.request({ name: 'newSession', params: null });
    await h.until(() => h.surfaces.slice(seen).some((s) => s.kind === 'reset'), 'the surfaces reset');
  });

  it('! goes through user_bash: an extension that answers it (interactive-shell has no TTY here) ends the row', async () => {
    const h = await harnesses.start(answers(1), [], loading('interactive-shell.ts'));
    assert.equal(await h.client.ensureSession(), true);
    await h.client.request({ name: 'bash', params: { command: 'echo plain', excluded: false } });
    await h.client.request({ name: 'bash', params: { command: 'vim notes.txt', excluded: false } });
    const rows = h.client.state.messages.filter((m) => m.role === 'bash');
    assert.deepEqual(
      rows.map((m) => [m.command, m.blocks[0]?.text.trim(), m.exitCode]),
      [
        ['echo plain', 'plain', 0],
        ['vim notes.txt', '(interactive commands require TUI)', 1],
      ],
    );
  });

  it('permission-gate: a dangerous command asks in the chat, and No blocks it with the reason Pi gives the model', async () => {
    const h = await harnesses.start(steps('gate', tool('call_rm', 'bash', { command: 'rm -rf build' }), say('Understood.')), [], loading('permission-gate.ts'));
    const run = h.settledAfter(() => h.client.send('Clean up', 'prompt'), 'the run');
    await h.until(() => openDialog(h) !== undefined, 'the question');
    const d = openDialog(h)!;
    assert.equal(d.kind, 'select');
    assert.match(d.title, /Dangerous command:[\s\S]*rm -rf build[\s\S]*Allow\?/);
    assert.deepEqual(d.options, ['Yes', 'No']);
    assert.equal((await h.client.call('answerDialog', { id: d.id, value: 'No' }))?.answered, true);
    await run;
    assert.equal(toolOf(h.client.state.tools, 'call_rm')?.status, 'error');
    assert.ok(toolResultsSent(h, 1).includes('Blocked by user'), toolResultsSent(h, 1));
  });

  it('confirm-destructive: New Session asks "Clear session?", and No keeps the session with a "Clear cancelled" notification', async () => {
    const h = await harnesses.start(answers(1), [], loading('confirm-destructive.ts'));
    await h.settledAfter(() => h.client.send('Hello', 'prompt'), 'the answer');
    const before = h.client.sessionFile;
    const asked = h.client.request({ name: 'newSession', params: null });
    await h.until(() => openDialog(h) !== undefined, 'the question');
    const d = openDialog(h)!;
    assert.equal(d.kind, 'confirm');
    assert.equal(d.title, 'Clear session?');
    assert.equal(d.message, 'This will delete all messages in the current session.');
    await h.client.call('answerDialog', { id: d.id, value: 'No' });
    await asked;
    await h.until(() => h.notifications.some((n) => n.message === 'Clear cancelled'), 'the notification');
    assert.equal(h.client.sessionFile, before, 'the same session');
    assert.ok(
      h.client.state.messages.some((m) => m.role === 'user'),
      'the conversation stays',
    );
  });

  it('plan-mode: /plan shows its status, the plan is offered as a choice, and Execute runs it with a progress widget', async () => {
    const plan = 'Plan:\n1. Read the config file\n2. Fix the typo';
    const h = await harnesses.start(steps('plan', say(plan), say('Noted.'), say('[DONE:1] Read it.')), [], loading('plan-mode'));
    await h.client.send('/plan', 'prompt');
    await h.until(() => h.notifications.some((n) => n.message.startsWith('Plan mode enabled.')), 'the notification');
    assert.ok(
      h.surfaces.some((s) => s.kind === 'status' && s.key === 'plan-mode' && s.text === '⏸ plan'),
      JSON.stringify(h.surfaces),
    );
    const run = h.settledAfter(() => h.client.send('Fix the typo', 'prompt'), 'the plan');
    await h.until(() => openDialog(h) !== undefined, 'the choice');
    const d = openDialog(h)!;
    assert.equal(d.title, 'Plan mode - what next?');
    assert.equal((await h.client.call('answerDialog', { id: d.id, value: 'Execute the plan (track progress)' }))?.answered, true);
    await run;
    // Pi delivers the two follow-ups the choice queued (the steps, then the order to execute) as two turns.
    await h.until(() => h.model.requests.length === 3 && runPhase(h.client.state.run) === 'idle', 'the execution turn');
    assert.ok(JSON.stringify(h.model.requests[0]).includes('[PLAN MODE ACTIVE]'), 'the plan-mode context reached the model');
    assert.ok(JSON.stringify(h.model.requests[2]).includes('Execute the plan.'), 'the execute message triggered a turn');
    // Its messages show as the CLI shows them: `[customType]` over the Markdown.
    const labelled = h.client.state.messages.flatMap((m) => (m.role === 'notice' && m.markdown ? [m.label] : []));
    assert.deepEqual(labelled, ['plan-todo-list', 'plan-mode-execute']);
    await h.until(() => (h.client.state.ui?.widgets ?? []).some((w) => w.key === 'plan-todos'), 'the progress widget');
    const widget = h.client.state.ui!.widgets.find((w) => w.key === 'plan-todos')!;
    assert.deepEqual(
      widget.lines.map((l) => l.slice(0, 2)),
      ['☑ ', '☐ '],
      JSON.stringify(widget.lines),
    );
    assert.ok(
      h.surfaces.some((s) => s.kind === 'status' && s.key === 'plan-mode' && s.text === '📋 1/2'),
      JSON.stringify(h.surfaces),
    );
  });

  it('auto-commit-on-exit: closing the window (a graceful stop) commits the work with the last answer as the message', async () => {
    const h = await harnesses.start(
      answers(1),
      [],
      loading('auto-commit-on-exit.ts', ({ cwd }) => {
        git(cwd, 'init', '-q');
        git(cwd, 'config', 'user.email', 'test@example.com');
        git(cwd, 'config', 'user.name', 'Test');
        writeFileSync(join(cwd, 'notes.txt'), 'work\n');
      }),
    );
    await h.settledAfter(() => h.client.send('Hello', 'prompt'), 'the answer');
    await h.client.shutdown();
    assert.equal(git(h.cwd, 'log', '-1', '--format=%s'), '[pi] Answer 1.');
    assert.equal(git(h.cwd, 'status', '--porcelain'), '');
  });

  for (const [name, examples] of [
    ['handoff', loading('handoff.ts')],
    ['qna', loading('qna.ts')],
  ] as const) {
    it(`${name}: /${name} refuses with "${name} requires interactive mode" (it checks ctx.mode) before any custom() component`, async () => {
      const h = await harnesses.start(answers(1), [], examples);
      await h.settledAfter(() => h.client.send('Hello', 'prompt'), 'the answer');
      await h.client.send(`/${name} ${name === 'handoff' ? 'write the tests' : ''}`.trim(), 'prompt');
      await h.until(() => h.notifications.some((n) => n.message.includes('interactive mode')), 'the refusal');
      assert.deepEqual(
        h.notifications.map((n) => [n.level, n.message]),
        [['error', `${name} requires interactive mode`]],
      );
      assert.equal(notices(h).filter((t) => t.includes('ctx.ui.custom')).length, 0, 'custom() was never called');
    });
  }

  it('summarize: /summarize asks its model (openai/gpt-5.2) for the summary and, outside the terminal UI, shows nothing of it', async () => {
    const h = await harnesses.start(answers(1), [], loading('summarize.ts'));
    await h.settledAfter(() => h.client.send('Hello', 'prompt'), 'the answer');
    await h.client.send('/summarize', 'prompt');
    await h.until(() => h.notifications.some((n) => n.level === 'warning'), "the extension's warning");
    const said = h.notifications.map((n) => n.message);
    assert.equal(said[0], 'Preparing summary...');
    // The scripted setup has no key for its model; with one, the summary is made and then not shown (ctx.mode is not "tui").
    assert.match(said[1] ?? '', /^(Model openai\/gpt-5\.2 not found|No authentication configured for openai\/gpt-5\.2)$/);
    assert.equal(notices(h).filter((t) => t.includes('ctx.ui.custom')).length, 0, 'custom() was never called');
  });

  it('debug-provider: /debug-provider shows its status item, and a new session clears it as the CLI does', async () => {
    const h = await harnesses.start(answers(1), [], loading('debug-provider.ts'));
    await h.client.send('/debug-provider on', 'prompt');
    await h.until(() => h.notifications.some((n) => n.message === 'Provider event capture enabled'), 'the notification');
    const at = h.surfaces.findIndex((s) => s.kind === 'status' && s.key === 'debug-provider' && s.text === 'provider debug');
    assert.ok(at >= 0, JSON.stringify(h.surfaces));
    await h.client.request({ name: 'newSession', params: null });
    await h.until(() => h.surfaces.slice(at).some((s) => s.kind === 'reset'), 'the surfaces reset');
  });

  it('subagent: the subagent tool starts `pi` (the bundled CLI) as a child process, which answers through the same model', async () => {
    const h = await harnesses.start(
      steps('subagent', tool('call_sub', 'subagent', { agent: 'echo', task: 'Say hello' }), say('Hello from the child.'), say('The subagent said hello.')),
      [],
      loading('subagent', ({ agentDir }) => {
        mkdirSync(join(agentDir, 'agents'), { recursive: true });
        writeFileSync(join(agentDir, 'agents', 'echo.md'), '---\nname: echo\ndescription: Answers the task\ntools: read\n---\n\nAnswer briefly.\n');
      }),
    );
    // A second Pi starts (a cold process loading the whole SDK): slow on a loaded machine, so a wide bound.
    const settles = () => h.emitted.filter((e) => e.type === 'settled').length;
    const before = settles();
    void h.client.send('Ask a subagent', 'prompt');
    await h.until(() => settles() > before && runPhase(h.client.state.run) === 'idle', 'the run', 150_000);
    assert.equal(h.model.requests.length, 3, 'the parent, the child, the parent again');
    assert.ok(JSON.stringify(h.model.requests[1]).includes('Task: Say hello'), 'the child pi asked the model');
    assert.ok(toolResultsSent(h, 2).includes('Hello from the child.'), toolResultsSent(h, 2));
    assert.equal(toolOf(h.client.state.tools, 'call_sub')?.status, 'done');
  }).timeout(180_000);

  it('with-deps: with its dependency installed it loads and its tool runs', async () => {
    const h = await harnesses.start(steps('deps', tool('call_ms', 'parse_duration', { duration: '2 days' }), say('Two days.')), [], loading('with-deps'));
    await h.settledAfter(() => h.client.send('How long is 2 days?', 'prompt'), 'the run');
    assert.ok(toolResultsSent(h, 1).includes('2 days = 172800000 milliseconds'), toolResultsSent(h, 1));
  });

  it('with-deps without `npm install`: a notice names the file and the missing package, and the chat still works', async () => {
    // Pi's own file, in a folder with no node_modules above it: what a user who copied the example sees.
    const dir = tempDir('pi-with-deps-');
    copyFileSync(join(examples, 'with-deps', 'index.ts'), join(dir, 'index.ts'));
    const h = await harnesses.start(answers(1), [], loading(join(dir, 'index.ts')));
    await h.settledAfter(() => h.client.send('Hello', 'prompt'), 'the answer');
    const notice = notices(h).find((t) => t.includes('Failed to load extension'));
    assert.ok(notice, JSON.stringify(notices(h)));
    assert.ok(notice.includes(join(dir, 'index.ts')) && notice.includes('ms'), notice);
    assert.ok(
      h.log.lines.some((l) => l.includes('Failed to load extension') && l.includes(dir)),
      'logged',
    );
  });

  it('load problems of skills and themes are shown too, each once, and again after a reload (as the CLI after /reload)', async () => {
    const h = await harnesses.start(
      answers(1),
      [],
      loading([], ({ agentDir }) => {
        mkdirSync(join(agentDir, 'skills', 'broken'), { recursive: true });
        writeFileSync(join(agentDir, 'skills', 'broken', 'SKILL.md'), '---\nname: broken\n---\n\nNo description.\n');
        mkdirSync(join(agentDir, 'themes'), { recursive: true });
        writeFileSync(join(agentDir, 'themes', 'bad.json'), '{ not json');
      }),
    );
    const skill = (t: string) => t.includes(join('skills', 'broken', 'SKILL.md')) && t.includes('description is required');
    const theme = (t: string) => t.includes(join('themes', 'bad.json'));
    await h.settledAfter(() => h.client.send('Hello', 'prompt'), 'the answer');
    assert.equal(notices(h).filter(skill).length, 1, JSON.stringify(notices(h)));
    assert.equal(notices(h).filter(theme).length, 1, JSON.stringify(notices(h)));
    await h.client.request({ name: 'newSession', params: null });
    assert.equal(notices(h).filter(skill).length, 0, 'a new session starts a clean view; Pi reported them already');
    assert.equal(await h.client.reload(), true);
    await h.until(() => notices(h).filter(skill).length === 1 && notices(h).filter(theme).length === 1, 'the problems again');
  });
});
