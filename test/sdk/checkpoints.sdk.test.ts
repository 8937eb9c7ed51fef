/** Checkpoints on the real Pi SDK: the Changes row covers a shell command's file and Pi's writes outside the workspace, Undo asks before it overwrites later edits, Restore brings back code, conversation or both, and every restore can be undone, also after a reload. */

import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PanelQuestion } from '../../src/worker/restoring.ts';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { anyRow } from '../support/anyRow.ts';
import { tempDir } from '../support/tempDir.ts';
import { userEntry } from '../support/userEntry.ts';
import { call, say, useSdkSuite } from './sdkSuite.ts';

describe('checkpoints on the real Pi SDK', function () {
  this.timeout(90_000);
  const suite = useSdkSuite();

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
    const h = suite.h;
    const settledBefore = h.emitted.filter((e) => e.type === 'settled').length;
    await h.controller.send(text, 'prompt');
    await h.until(() => h.emitted.filter((e) => e.type === 'settled').length > settledBefore, 30_000, 'the run settled');
  }

  const userTexts = () =>
    suite.h.controller.state.messages
      .filter((m) => m.role === 'user')
      .map((m) => m.blocks.map((b) => (b as { text?: string } | undefined)?.text ?? '').join(''));

  /** Answers the panel's questions from `answers`, in order, and keeps what was asked (a new controller after a reload needs it again). */
  function answerFrom(answers: string[], asked: PanelQuestion[] = []): PanelQuestion[] {
    suite.h.controller.setAsker(async (q) => {
      asked.push(q);
      return answers.shift();
    });
    return asked;
  }

  /** A harness with checkpoints, a.txt written, and the first run (a shell command creates gen.txt, an edit changes a.txt) done with its Changes row. */
  async function firstRun(): Promise<{ a: string; gen: string }> {
    const h = await suite.start(scenario, { checkpoints: true });
    const a = join(h.cwd, 'a.txt');
    writeFileSync(a, 'one\ntwo\n');
    await run('First: generate and edit.');
    await h.until(() => h.controller.state.messages.at(-1)?.role === 'changes', 20_000, 'the Changes row');
    return { a, gen: join(h.cwd, 'gen.txt') };
  }

  it('lists a file a shell command created with the edited one, restores code, conversation or both, and undoes a restore', async () => {
    const { a, gen } = await firstRun();
    const h = suite.h;
    const answers: string[] = [];
    const asked = answerFrom(answers);
    assert.equal(readFileSync(a, 'utf8'), 'one\nTWO\n');
    assert.equal(readFileSync(gen, 'utf8'), 'generated\n');
    const row = anyRow(h.controller.state.messages.at(-1));
    assert.deepEqual(
      row?.files?.map((f) => f.path),
      ['a.txt', 'gen.txt'],
      "the Changes row has the shell command's file",
    );
    assert.match(String(row?.runId), /^[0-9a-f]{40}$/);
    // The host gives each chat a storage folder of its own (chats.ts: storage/chats/KEY), so each chat's checkpoints are its own.
    assert.equal(readdirSync(join(suite.storage, 'checkpoints')).length, 1, "the checkpoints are in the chat's storage folder");
    assert.deepEqual(await h.controller.review.fileBefore('a.txt', row?.runId), { kind: 'text', text: 'one\ntwo\n' });
    assert.deepEqual(await h.controller.review.fileBefore('gen.txt', row?.runId), { kind: 'absent' });

    await run('Second message.');
    assert.deepEqual(userTexts(), ['First: generate and edit.', 'Second message.']);

    // Code only: the files go back, the conversation stays.
    answers.push('Code only');
    await h.controller.commands.restore(userEntry(h.controller.state, 'First: generate and edit.'));
    assert.deepEqual(asked.at(-1)?.options, ['Code and conversation', 'Conversation only', 'Code only']);
    assert.deepEqual(
      asked.at(-1)?.restore?.files.map((f) => f.path),
      ['a.txt', 'gen.txt'],
    );
    assert.equal(readFileSync(a, 'utf8'), 'one\ntwo\n');
    assert.equal(existsSync(gen), false);
    assert.deepEqual(userTexts(), ['First: generate and edit.', 'Second message.']);

    await h.controller.commands.undoRestore(null);
    assert.equal(readFileSync(a, 'utf8'), 'one\nTWO\n');
    assert.equal(readFileSync(gen, 'utf8'), 'generated\n');

    // Conversation only: the files stay, the conversation goes back to before the message.
    answers.push('Conversation only');
    await h.controller.commands.restore(userEntry(h.controller.state, 'First: generate and edit.'));
    assert.equal(readFileSync(a, 'utf8'), 'one\nTWO\n');
    assert.ok(existsSync(gen));
    assert.deepEqual(userTexts(), []);
    await h.controller.commands.undoRestore(null);
    assert.deepEqual(userTexts(), ['First: generate and edit.', 'Second message.']);

    // Code and conversation.
    answers.push('Code and conversation');
    await h.controller.commands.restore(userEntry(h.controller.state, 'First: generate and edit.'));
    assert.equal(readFileSync(a, 'utf8'), 'one\ntwo\n');
    assert.equal(existsSync(gen), false);
    assert.deepEqual(userTexts(), []);
    await h.controller.commands.undoRestore(null);
    assert.equal(readFileSync(a, 'utf8'), 'one\nTWO\n');
    assert.ok(existsSync(gen));
    assert.deepEqual(userTexts(), ['First: generate and edit.', 'Second message.']);
  });

  it('names a file the user changed after the last run and restores nothing when the user says No', async () => {
    const { a } = await firstRun();
    const asked = answerFrom(['Code only', 'No']);
    writeFileSync(a, 'mine\n');
    await suite.h.controller.commands.restore(userEntry(suite.h.controller.state, 'First: generate and edit.'));
    assert.equal(asked.length, 2);
    assert.equal(asked[1]?.kind, 'confirm');
    assert.match(String(asked[1]?.message), /a\.txt/);
    assert.doesNotMatch(String(asked[1]?.message), /gen\.txt/, 'only what changed after the run is named');
    assert.equal(readFileSync(a, 'utf8'), 'mine\n', 'No leaves the file as it is');
  });

  it("undoes an earlier run's file after a later run", async () => {
    const { a } = await firstRun();
    const h = suite.h;
    const first = anyRow(h.controller.state.messages.at(-1))!;
    await run('Second message.');
    const result = await h.controller.review.undo('gen.txt', first.runId);
    assert.equal(result.ok, true, result.message);
    assert.equal(existsSync(join(h.cwd, 'gen.txt')), false);
    assert.equal(readFileSync(a, 'utf8'), 'one\nTWO\n', 'only the file asked for');
    const shown = h.controller.state.messages.find((m) => m.role === 'changes' && anyRow(m)?.runId === first.runId);
    assert.ok(anyRow(shown)?.files?.find((f) => f.path === 'gen.txt')?.undone);
  });

  it("asks in the panel's card before an older run's Undo overwrites the user's later edit, and Undo restore brings the edit back", async () => {
    const { a } = await firstRun();
    const h = suite.h;
    const first = anyRow(h.controller.state.messages.at(-1))!;
    await run('Second message.');
    writeFileSync(a, 'mine\n');
    const asked = answerFrom(['No', 'Yes']);
    const refused = await h.controller.review.undo('a.txt', first.runId);
    assert.equal(refused.ok, false);
    assert.equal(asked[0]?.kind, 'confirm');
    assert.match(String(asked[0]?.message), /a\.txt/);
    assert.equal(readFileSync(a, 'utf8'), 'mine\n', 'No leaves the file as it is');

    const done = await h.controller.review.undo('a.txt', first.runId);
    assert.equal(done.ok, true, done.message);
    assert.equal(readFileSync(a, 'utf8'), 'one\ntwo\n');
    const notice = h.controller.state.messages.at(-1);
    assert.equal(anyRow(notice)?.code, 'restored', 'the notice offers Undo restore');
    await h.controller.commands.undoRestore(null);
    assert.equal(readFileSync(a, 'utf8'), 'mine\n', "Undo restore brought the user's edit back");
    const shown = h.controller.state.messages.find((m) => m.role === 'changes' && anyRow(m)?.runId === first.runId);
    assert.equal(anyRow(shown)?.files?.find((f) => f.path === 'a.txt')?.undone, undefined, 'and the row shows a.txt as the run left it');
  });

  it('undoes every restore, latest first, not only the last one', async () => {
    const { a, gen } = await firstRun();
    const h = suite.h;
    await run('Second message.');
    answerFrom(['Code only', 'Conversation only']);
    await h.controller.commands.restore(userEntry(h.controller.state, 'First: generate and edit.'));
    assert.equal(readFileSync(a, 'utf8'), 'one\ntwo\n');
    await h.controller.commands.restore(userEntry(h.controller.state, 'Second message.'));
    assert.deepEqual(userTexts(), ['First: generate and edit.']);

    await h.controller.commands.undoRestore(null);
    assert.deepEqual(userTexts(), ['First: generate and edit.', 'Second message.'], 'the latest restore (the conversation) is undone first');
    assert.equal(readFileSync(a, 'utf8'), 'one\ntwo\n', 'the earlier restore still holds');
    await h.controller.commands.undoRestore(null);
    assert.equal(readFileSync(a, 'utf8'), 'one\nTWO\n', 'then the earlier one (the code)');
    assert.equal(readFileSync(gen, 'utf8'), 'generated\n');
    await h.controller.commands.undoRestore(null);
    const said = h.emitted.filter((e) => e.type === 'noticeMessage').at(-1);
    assert.match(said?.type === 'noticeMessage' ? said.text : '', /There is no restore to undo/, 'and then there is none left');
  });

  it('undoes a restore after a reload, and shows the undone files of a run again after a reload', async () => {
    const { a, gen } = await firstRun();
    const row = anyRow(suite.h.controller.state.messages.at(-1))!;
    assert.equal((await suite.h.controller.review.undo('gen.txt', row.runId)).ok, true);
    answerFrom(['Code only']);
    await suite.h.controller.commands.restore(userEntry(suite.h.controller.state, 'First: generate and edit.'));
    assert.equal(readFileSync(a, 'utf8'), 'one\ntwo\n');

    const h = await suite.reload();
    await h.controller.ensureSession();
    await h.until(() => anyRow(h.controller.state.messages.at(-1))?.runId === row.runId, 20_000, "the last run's Changes row again");
    assert.deepEqual(
      anyRow(h.controller.state.messages.at(-1))?.files?.map((f) => [f.path, f.undone === true]),
      [
        ['a.txt', false],
        ['gen.txt', true],
      ],
      'the file undone before the reload is still shown undone',
    );
    await h.controller.commands.undoRestore(null);
    assert.equal(readFileSync(a, 'utf8'), 'one\nTWO\n', 'Undo restore after the reload put the file back');
    assert.equal(existsSync(gen), false, 'as it was just before the restore');
  });

  it("lists Pi's write outside the workspace (a ~/dotfile) with the checkpoints' row, and Undo all puts it back too", async () => {
    const outside = join(realpathSync(tempDir('pi-outside-')), '.dotfile');
    writeFileSync(outside, 'mine\n');
    const h = await suite.start(
      {
        name: 'edit-and-write-outside',
        steps: [
          call('c1', 'edit', { path: 'a.txt', edits: [{ oldText: 'two', newText: 'TWO' }] }),
          call('c2', 'write', { path: outside, content: 'from pi\n' }),
          say('Done.'),
        ],
      } as unknown as Scenario,
      { checkpoints: true },
    );
    const a = join(h.cwd, 'a.txt');
    writeFileSync(a, 'one\ntwo\n');
    await run('Edit a.txt and the dotfile.');
    await h.until(() => /^[0-9a-f]{40}$/.test(String(anyRow(h.controller.state.messages.at(-1))?.runId)), 20_000, "the checkpoints' Changes row");
    assert.equal(readFileSync(outside, 'utf8'), 'from pi\n');
    const row = anyRow(h.controller.state.messages.at(-1))!;
    assert.deepEqual(
      row.files?.map((f) => [f.path, f.added, f.removed]),
      [
        ['a.txt', 1, 1],
        [outside, 1, 1],
      ],
      'the file outside the workspace is in the row',
    );
    assert.deepEqual(await h.controller.review.fileBefore(outside, row.runId), { kind: 'text', text: 'mine\n' });
    const result = await h.controller.review.undo(undefined, row.runId);
    assert.equal(result.ok, true, result.message);
    assert.equal(readFileSync(a, 'utf8'), 'one\ntwo\n');
    assert.equal(readFileSync(outside, 'utf8'), 'mine\n', 'Undo all put the file outside the workspace back');
    const shown = h.controller.state.messages.find((m) => m.role === 'changes' && anyRow(m)?.runId === row.runId);
    assert.ok(anyRow(shown)?.files?.every((f) => f.undone));
  });

  it('answers a prompt, its checkpoint taken, in a workspace whose .git/info/exclude is a FIFO', async function () {
    if (process.platform === 'win32') this.skip();
    const h = await suite.start({ name: 'fifo-exclude', steps: [say('Answered.')] } as unknown as Scenario, { checkpoints: true });
    // Before the session opens: its checkpoints read the user's excludes when they first start.
    mkdirSync(join(h.cwd, '.git', 'info'), { recursive: true });
    execFileSync('mkfifo', [join(h.cwd, '.git', 'info', 'exclude')]);
    writeFileSync(join(h.cwd, 'a.txt'), 'a\n');
    await run('Hello.');
    assert.ok(h.emitted.some((e) => e.type === 'noticeMessage') === false, 'no notice: the checkpoint was taken, not given up');
    assert.equal(readdirSync(join(suite.storage, 'checkpoints')).length, 1);
  });

  it('takes no checkpoints when they are off, and keeps the per-tool Changes row', async () => {
    const h = await suite.start(scenario);
    writeFileSync(join(h.cwd, 'a.txt'), 'one\ntwo\n');
    await run('First: generate and edit.');
    await h.until(() => h.controller.state.messages.at(-1)?.role === 'changes', 20_000, 'the Changes row');
    const row = anyRow(h.controller.state.messages.at(-1));
    assert.deepEqual(
      row?.files?.map((f) => f.path),
      ['a.txt'],
    );
    assert.equal(existsSync(join(suite.storage, 'checkpoints')), false);
  });
});
