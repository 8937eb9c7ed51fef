/** The approval extension's decisions in each mode: Allow once, Allow for session (tool or command prefix), Deny with a reason, Cancel while asking. */

import { strict as assert } from 'node:assert';
import { ALLOW, ALLOW_SESSION, Approvals, commandPrefix, DENY, type ApprovalAsker, type ApprovalMode } from '../../src/worker/approvalExtension.ts';

/** Answers each question from a script and records what was asked. */
class ScriptedAsker implements ApprovalAsker {
  readonly asked: { title: string; message: string; choices?: readonly string[] }[] = [];
  private readonly answers: (string | undefined)[];
  constructor(answers: (string | undefined)[]) {
    this.answers = answers;
  }
  async choose(title: string, message: string, choices: readonly string[]) {
    this.asked.push({ title, message, choices });
    return this.answers.shift();
  }
  async input(title: string, message: string) {
    this.asked.push({ title, message });
    return this.answers.shift();
  }
}

describe('approvals', () => {
  const make = (mode: ApprovalMode, answers: (string | undefined)[]) => {
    const asker = new ScriptedAsker(answers);
    return { approvals: new Approvals(() => mode, asker), asker };
  };

  it('asks nothing when off, and only about the tools the mode names', () => {
    assert.equal(make('off', []).approvals.asks('bash'), false);
    const writes = make('writes', []).approvals;
    assert.deepEqual(
      ['edit', 'write', 'bash', 'read'].map((t) => writes.asks(t)),
      [true, true, false, false],
    );
    const commands = make('commands', []).approvals;
    assert.deepEqual(
      ['edit', 'bash'].map((t) => commands.asks(t)),
      [false, true],
    );
    const all = make('all', []).approvals;
    assert.deepEqual(
      ['edit', 'bash', 'mcp_tool', 'read', 'grep', 'find', 'ls'].map((t) => all.asks(t)),
      [true, true, true, false, false, false, false],
    );
  });

  it('Allow once lets this call run and asks again next time', async () => {
    const { approvals, asker } = make('commands', [ALLOW, ALLOW]);
    assert.equal(await approvals.decide('bash', { command: 'npm test' }, undefined), undefined);
    assert.equal(await approvals.decide('bash', { command: 'npm test' }, undefined), undefined);
    assert.equal(asker.asked.length, 2);
    assert.match(asker.asked[0]!.message, /^npm test\n/);
    assert.deepEqual(asker.asked[0]!.choices, ['Allow', 'Allow for session', 'Deny']);
  });

  it('Allow for session covers the command prefix, not other commands or compound ones', async () => {
    const { approvals, asker } = make('commands', [ALLOW_SESSION, ALLOW, ALLOW]);
    assert.equal(await approvals.decide('bash', { command: 'git status' }, undefined), undefined);
    assert.equal(await approvals.decide('bash', { command: 'git status --short' }, undefined), undefined);
    assert.equal(asker.asked.length, 1, 'the same prefix is not asked again');
    await approvals.decide('bash', { command: 'git push' }, undefined);
    await approvals.decide('bash', { command: 'git status; rm -rf x' }, undefined);
    assert.equal(asker.asked.length, 3, 'another subcommand and a compound command are asked');
    approvals.reset();
    await approvals.decide('bash', { command: 'git status' }, undefined).catch(() => undefined);
    assert.equal(asker.asked.length, 4, 'a new session asks again');
  });

  it('Allow for session covers a write tool for the session, with a diff preview in the question', async () => {
    const { approvals, asker } = make('writes', [ALLOW_SESSION]);
    assert.equal(await approvals.decide('edit', { path: 'a.ts', edits: [{ oldText: 'x = 1', newText: 'x = 2' }] }, undefined), undefined);
    assert.equal(await approvals.decide('edit', { path: 'b.ts', edits: [] }, undefined), undefined);
    assert.equal(asker.asked.length, 1);
    assert.equal(asker.asked[0]!.title, 'Pi wants to edit a.ts');
    assert.match(asker.asked[0]!.message, /^- x = 1\n\+ x = 2\n/);
  });

  it('Deny blocks the call and sends the reason back to Pi', async () => {
    const { approvals } = make('commands', [DENY, 'use the Makefile instead']);
    assert.deepEqual(await approvals.decide('bash', { command: 'rm -rf build' }, undefined), {
      block: true,
      reason: 'The user denied this tool call: use the Makefile instead',
    });
    const bare = make('commands', [DENY, undefined]).approvals;
    assert.deepEqual(await bare.decide('bash', { command: 'ls' }, undefined), { block: true, reason: 'The user denied this tool call.' });
  });

  it('Cancel while asking blocks the call (the dialog is dismissed and the run can settle)', async () => {
    const controller = new AbortController();
    controller.abort();
    const { approvals } = make('all', [undefined]);
    const decision = await approvals.decide('write', { path: 'x', content: 'y' }, controller.signal);
    assert.deepEqual(decision, { block: true, reason: 'The run was cancelled before the user answered.' });
  });

  it('takes the prefix of a simple command only', () => {
    assert.equal(commandPrefix('npm run build'), 'npm run');
    assert.equal(commandPrefix('ls -la'), 'ls');
    assert.equal(commandPrefix('git -C x status'), 'git');
    assert.equal(commandPrefix('echo $(whoami)'), undefined);
    assert.equal(commandPrefix('a | b'), undefined);
  });
});
