/** The commands table: each command the worker answers is declared once, and its check, rule and handler follow from it. */

import { strict as assert } from 'node:assert';
import { REQUEST_RULES } from '../../src/extension/workerRequests.ts';
import { COMMANDS, commandOf, isCommandMessage, isViewCommand, type CommandResult, type ViewCommandName } from '../../src/shared/wire/commands.ts';
import { parseWebviewMessage } from '../../src/shared/wire/parseWebviewMessage.ts';
import type { CreatedSession } from '../../src/worker/agentSession.ts';
import { SessionController } from '../../src/worker/sessionController.ts';
import { FakeSession } from '../support/fakeSession.ts';
import { MemoryLog } from '../support/memoryLog.ts';
import { TestClock } from '../support/testClock.ts';

/** `true` when A and B are the same type, else `false`: an assignment of `true` checks it at compile time. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** What each command the webview may send is answered with. */
type ViewAnswers = { [K in ViewCommandName]: CommandResult<K> };

function parsed(raw: unknown) {
  const r = parseWebviewMessage(raw);
  assert.ok(r.ok, r.ok ? '' : r.reason);
  return r.msg;
}

describe('commands table', () => {
  it('passes Edit and resend from the webview to the worker untouched, as the table names it', () => {
    const msg = parsed({ type: 'editResend', entryId: 'a1b2c3d4', extra: 'dropped' });
    assert.ok(isCommandMessage(msg));
    assert.deepEqual(commandOf(msg), { name: 'editResend', params: { entryId: 'a1b2c3d4' } });
  });

  it('passes a command without a payload as one without params', () => {
    const msg = parsed({ type: 'undoRestore', extra: 1 });
    assert.deepEqual(msg, { type: 'undoRestore' });
    assert.ok(isCommandMessage(msg));
    assert.deepEqual(commandOf(msg), { name: 'undoRestore', params: null });
  });

  it("rejects a command whose payload fails the table's check, naming the field", () => {
    const r = parseWebviewMessage({ type: 'editResend', entryId: { toString: 1 } });
    assert.deepEqual(r, { ok: false, reason: 'editResend.entryId is not an entry id' });
  });

  it('passes a shell command with its flag, and refuses an empty one', () => {
    const msg = parsed({ type: 'bash', command: 'ls', excluded: true });
    assert.ok(isCommandMessage(msg));
    assert.deepEqual(commandOf(msg), { name: 'bash', params: { command: 'ls', excluded: true } });
    assert.deepEqual(parseWebviewMessage({ type: 'bash', command: '  ', excluded: false }), {
      ok: false,
      reason: 'bash.command is not a non-empty string of sensible length',
    });
  });

  it("passes an extension dialog's answer to the worker as the table names it, the reason only beside a value", () => {
    const msg = parsed({ type: 'answerDialog', id: 'dialog-1', value: 'Deny', reason: 'use make' });
    assert.ok(isCommandMessage(msg));
    assert.deepEqual(commandOf(msg), { name: 'answerDialog', params: { id: 'dialog-1', value: 'Deny', reason: 'use make' } });
    assert.deepEqual(parsed({ type: 'answerDialog', id: 'dialog-1', reason: 'dropped' }), { type: 'answerDialog', id: 'dialog-1' });
    assert.deepEqual(parseWebviewMessage({ type: 'answerDialog', id: 7 }), { ok: false, reason: 'answerDialog.id is not a short string' });
  });

  it("passes a move in the session tree to the worker as the table names it, and refuses an id that is no entry's", () => {
    const msg = parsed({ type: 'navigateTree', entryId: 'a1b2c3d4' });
    assert.ok(isCommandMessage(msg));
    assert.deepEqual(commandOf(msg), { name: 'navigateTree', params: { entryId: 'a1b2c3d4' } });
    assert.deepEqual(parseWebviewMessage({ type: 'navigateTree', entryId: '../x' }), { ok: false, reason: 'navigateTree.entryId is not an entry id' });
  });

  it('takes none of the commands only the host sends from the webview', () => {
    for (const name of ['setModel', 'compact', 'exportHtml', 'clearCheckpoints', 'setMcpEnabled']) {
      assert.ok(name in COMMANDS, name);
      assert.equal(isViewCommand(name), false, name);
    }
    assert.equal(parseWebviewMessage({ type: 'setModel', provider: 'a', id: 'b' }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'exportHtml', file: '/tmp/x.html' }).ok, false);
  });

  it("puts every request with a rule on the table but the client's own (the worker's lifecycle, prompts, paging)", () => {
    const own = Object.keys(REQUEST_RULES).filter((name) => !Object.hasOwn(COMMANDS, name));
    assert.deepEqual(own.sort(), ['cancel', 'configure', 'earlierRows', 'ensureSession', 'findRows', 'forceIdle', 'ping', 'reload', 'send', 'shutdown']);
    for (const name of Object.keys(COMMANDS)) assert.ok(Object.hasOwn(REQUEST_RULES, name), `${name} has no rule`);
  });

  it("answers the webview's commands with null, but a dialog's answer with whether it was still open (the compiler checks)", () => {
    const nothing: Same<ViewAnswers[Exclude<ViewCommandName, 'answerDialog'>], null> = true;
    const answered: Same<ViewAnswers['answerDialog'], { readonly answered: boolean }> = true;
    assert.ok(nothing && answered);
  });

  it('leaves the messages the host answers itself out of the table', () => {
    assert.equal(isCommandMessage(parsed({ type: 'showTree' })), false);
    assert.equal(isCommandMessage(parsed({ type: 'ready' })), false);
  });

  it("sends each command to the worker by its table entry's rule", () => {
    for (const [name, spec] of Object.entries(COMMANDS)) {
      const rule = REQUEST_RULES[name as keyof typeof REQUEST_RULES];
      assert.deepEqual(
        { when: rule.when, timeout: rule.timeout, failure: rule.failure },
        { when: spec.when, timeout: spec.timeout, failure: spec.failure },
        name,
      );
    }
  });

  it("registers the worker's handlers of the session's commands from the parts that do them", () => {
    const fake = new FakeSession();
    const controller = new SessionController(
      async () => ({ session: fake.asSession(), cwd: '/work' }) satisfies CreatedSession,
      new MemoryLog(),
      new TestClock(),
      { settleTimeoutMs: 5000, noResponseMs: 60_000 },
    );
    // The rest (the extension UI's, plan mode's, the providers', the shell, Retry) `main.ts` registers beside these, the type checking that none is left out.
    assert.deepEqual(Object.keys(controller.commands).sort(), [
      'clearCheckpoints',
      'compact',
      'compactWith',
      'editQueue',
      'editResend',
      'fileBefore',
      'forkHere',
      'importSession',
      'navigateTree',
      'newSession',
      'restore',
      'resumeSession',
      'sessionTree',
      'undo',
      'undoRestore',
    ]);
    controller.dispose();
  });
});
