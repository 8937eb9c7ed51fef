/**
 * Pi's own example extensions, loaded from its package (not copies) through the real worker and PiClient with
 * the scripted model: what a `pi` CLI user would see of each (docs/extension-compatibility.md).
 */

import { strict as assert } from 'node:assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { useClientHarness, type ClientHarness } from './workerHarness.ts';

const examples = fileURLToPath(new URL('../../node_modules/@earendil-works/pi-coding-agent/examples/extensions/', import.meta.url));

/** Points the agent directory's settings at Pi's examples named, by absolute path. */
function loading(...names: string[]): { prepare: (dirs: { agentDir: string; cwd: string }) => void } {
  return {
    prepare: ({ agentDir }) => {
      mkdirSync(agentDir, { recursive: true });
      const file = join(agentDir, 'settings.json');
      const settings = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      writeFileSync(file, JSON.stringify({ ...settings, extensions: names.map((n) => join(examples, n)) }, null, 2));
    },
  };
}

const answers = (n: number): Scenario =>
  ({ name: 'answers', steps: Array.from({ length: n }, (_, i) => ({ chunks: [{ text: `Answer ${i + 1}.` }], finish: 'stop' })) }) as Scenario;

function notices(h: ClientHarness): string[] {
  return h.client.state.messages.filter((m) => m.role === 'notice').map((m) => m.blocks[0]?.text ?? '');
}

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
    await h.client.newSession();
    await h.until(() => h.surfaces.slice(seen).some((s) => s.kind === 'reset'), 'the surfaces reset');
  });

  it('! goes through user_bash: an extension that answers it (interactive-shell has no TTY here) ends the row', async () => {
    const h = await harnesses.start(answers(1), [], loading('interactive-shell.ts'));
    assert.equal(await h.client.ensureSession(), true);
    await h.client.bash('echo plain', false);
    await h.client.bash('vim notes.txt', false);
    const rows = h.client.state.messages.filter((m) => m.role === 'bash');
    assert.deepEqual(
      rows.map((m) => [m.command, m.blocks[0]?.text.trim(), m.exitCode]),
      [
        ['echo plain', 'plain', 0],
        ['vim notes.txt', '(interactive commands require TUI)', 1],
      ],
    );
  });
});
