/** Checkpoints on the real Pi SDK: the Changes row covers a shell command's file, Restore brings back code, conversation or both, and Undo restore. */

import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PiModule } from '../../src/pi/piEntry.ts';
import type { PanelQuestion } from '../../src/worker/restoring.ts';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { loadBundledPi, startHarness, type Harness } from './harness.ts';
import { anyRow } from '../support/anyRow.ts';

const call = (id: string, name: string, args: Record<string, unknown>) => ({ chunks: [{ toolCall: { id, name, arguments: args } }], finish: 'tool_calls' });
const say = (text: string) => ({ chunks: [{ text }], finish: 'stop' });

describe('checkpoints on the real Pi SDK', function () {
  this.timeout(90_000);
  let pi: PiModule;
  let h: Harness | undefined;
  let storage: string;

  before(() => {
    pi = loadBundledPi();
  });
  beforeEach(() => {
    storage = mkdtempSync(join(tmpdir(), 'pi-storage-'));
  });
  afterEach(async () => {
    await h?.dispose();
    h = undefined;
    rmSync(storage, { recursive: true, force: true });
  });

  const scenario = {
    name: 'bash-and-edit-then-second',
    steps: [
      call('c1', 'bash', { command: "printf 'generated\\n' > gen.txt" }),
      call('c2', 'edit', { path: 'a.txt', edits: [{ oldText: 'two', newText: 'TWO' }] }),
      say('Done.'),
      say('Second answer.'),
      say('Third answer.'),
    ],
  } as unknown as Scenario;

  /** Sends `text` and waits until its run settled and its checkpoint work is done (the Changes row, if any, is shown). */
  async function run(text: string): Promise<void> {
    const settledBefore = h!.emitted.filter((e) => e.type === 'settled').length;
    await h!.controller.send(text, 'prompt');
    await h!.until(() => h!.emitted.filter((e) => e.type === 'settled').length > settledBefore, 30_000, 'the run settled');
  }

  const userTexts = () =>
    h!.controller.state.messages.filter((m) => m.role === 'user').map((m) => m.blocks.map((b) => (b as { text?: string } | undefined)?.text ?? '').join(''));

  it('lists a file a shell command created with the edited one, restores code, conversation or both, and undoes a restore', async () => {
    h = await startHarness(pi, scenario, undefined, { storageDir: storage, checkpoints: true });
    const answers: string[] = [];
    const asked: PanelQuestion[] = [];
    h.controller.setAsker(async (q) => {
      asked.push(q);
      return answers.shift();
    });
    const a = join(h.cwd, 'a.txt');
    const gen = join(h.cwd, 'gen.txt');
    writeFileSync(a, 'one\ntwo\n');

    await run('First: generate and edit.');
    assert.equal(readFileSync(a, 'utf8'), 'one\nTWO\n');
    assert.equal(readFileSync(gen, 'utf8'), 'generated\n');
    await h.until(() => h!.controller.state.messages.at(-1)?.role === 'changes', 20_000, 'the Changes row');
    const row = anyRow(h.controller.state.messages.at(-1));
    assert.deepEqual(
      row?.files?.map((f) => f.path),
      ['a.txt', 'gen.txt'],
      "the Changes row has the shell command's file",
    );
    assert.match(String(row?.runId), /^[0-9a-f]{40}$/);
    assert.deepEqual(await h.controller.fileBefore('a.txt', row?.runId), { kind: 'text', text: 'one\ntwo\n' });
    assert.deepEqual(await h.controller.fileBefore('gen.txt', row?.runId), { kind: 'absent' });

    await run('Second message.');
    assert.deepEqual(userTexts(), ['First: generate and edit.', 'Second message.']);

    // Code only: the files go back, the conversation stays.
    answers.push('Code only');
    await h.controller.restore(1, 'First: generate and edit.');
    assert.deepEqual(asked.at(-1)?.options, ['Code and conversation', 'Conversation only', 'Code only']);
    assert.deepEqual(
      asked.at(-1)?.restore?.files.map((f) => f.path),
      ['a.txt', 'gen.txt'],
    );
    assert.equal(readFileSync(a, 'utf8'), 'one\ntwo\n');
    assert.equal(existsSync(gen), false);
    assert.deepEqual(userTexts(), ['First: generate and edit.', 'Second message.']);

    await h.controller.undoRestore();
    assert.equal(readFileSync(a, 'utf8'), 'one\nTWO\n');
    assert.equal(readFileSync(gen, 'utf8'), 'generated\n');

    // Conversation only: the files stay, the conversation goes back to before the message.
    answers.push('Conversation only');
    await h.controller.restore(1, 'First: generate and edit.');
    assert.equal(readFileSync(a, 'utf8'), 'one\nTWO\n');
    assert.ok(existsSync(gen));
    assert.deepEqual(userTexts(), []);
    await h.controller.undoRestore();
    assert.deepEqual(userTexts(), ['First: generate and edit.', 'Second message.']);

    // Code and conversation.
    answers.push('Code and conversation');
    await h.controller.restore(1, 'First: generate and edit.');
    assert.equal(readFileSync(a, 'utf8'), 'one\ntwo\n');
    assert.equal(existsSync(gen), false);
    assert.deepEqual(userTexts(), []);
    await h.controller.undoRestore();
    assert.equal(readFileSync(a, 'utf8'), 'one\nTWO\n');
    assert.ok(existsSync(gen));
    assert.deepEqual(userTexts(), ['First: generate and edit.', 'Second message.']);
  });

  it('names a file the user changed after the last run and restores nothing when the user says No', async () => {
    h = await startHarness(pi, scenario, undefined, { storageDir: storage, checkpoints: true });
    const answers: string[] = [];
    const asked: PanelQuestion[] = [];
    h.controller.setAsker(async (q) => {
      asked.push(q);
      return answers.shift();
    });
    const a = join(h.cwd, 'a.txt');
    writeFileSync(a, 'one\ntwo\n');
    await run('First: generate and edit.');
    await h.until(() => h!.controller.state.messages.at(-1)?.role === 'changes', 20_000, 'the Changes row');
    writeFileSync(a, 'mine\n');
    answers.push('Code only', 'No');
    await h.controller.restore(0, 'First: generate and edit.');
    assert.equal(asked.length, 2);
    assert.equal(asked[1]?.kind, 'confirm');
    assert.match(String(asked[1]?.message), /a\.txt/);
    assert.doesNotMatch(String(asked[1]?.message), /gen\.txt/, 'only what changed after the run is named');
    assert.equal(readFileSync(a, 'utf8'), 'mine\n', 'No leaves the file as it is');
  });

  it("undoes an earlier run's file after a later run", async () => {
    h = await startHarness(pi, scenario, undefined, { storageDir: storage, checkpoints: true });
    const a = join(h.cwd, 'a.txt');
    writeFileSync(a, 'one\ntwo\n');
    await run('First: generate and edit.');
    await h.until(() => h!.controller.state.messages.at(-1)?.role === 'changes', 20_000, 'the Changes row');
    const first = anyRow(h.controller.state.messages.at(-1))!;
    await run('Second message.');
    const result = await h.controller.undo('gen.txt', first.runId);
    assert.equal(result.ok, true, result.message);
    assert.equal(existsSync(join(h.cwd, 'gen.txt')), false);
    assert.equal(readFileSync(a, 'utf8'), 'one\nTWO\n', 'only the file asked for');
    const shown = h.controller.state.messages.find((m) => m.role === 'changes' && anyRow(m)?.runId === first.runId);
    assert.ok(anyRow(shown)?.files?.find((f) => f.path === 'gen.txt')?.undone);
  });

  it('takes no checkpoints when they are off, and keeps the per-tool Changes row', async () => {
    h = await startHarness(pi, scenario, undefined, { storageDir: storage });
    writeFileSync(join(h.cwd, 'a.txt'), 'one\ntwo\n');
    await run('First: generate and edit.');
    await h.until(() => h!.controller.state.messages.at(-1)?.role === 'changes', 20_000, 'the Changes row');
    const row = anyRow(h.controller.state.messages.at(-1));
    assert.deepEqual(
      row?.files?.map((f) => f.path),
      ['a.txt'],
    );
    assert.equal(existsSync(join(storage, 'checkpoints')), false);
  });
});
