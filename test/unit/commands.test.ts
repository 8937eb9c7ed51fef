/** The commands table: each command the worker answers is declared once, and its check, rule and handler follow from it. */

import { strict as assert } from 'node:assert';
import { REQUEST_RULES } from '../../src/extension/workerRequests.ts';
import { COMMANDS, commandOf, isCommandMessage } from '../../src/shared/wire/commands.ts';
import { parseWebviewMessage } from '../../src/shared/wire/parseWebviewMessage.ts';
import type { CreatedSession } from '../../src/worker/agentSession.ts';
import { SessionController } from '../../src/worker/sessionController.ts';
import { FakeSession } from '../support/fakeSession.ts';
import { MemoryLog } from '../support/memoryLog.ts';
import { TestClock } from '../support/testClock.ts';

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
    // The rest (the shell, the composer's text, Retry) `main.ts` registers beside these, the type checking that none is left out.
    assert.deepEqual(Object.keys(controller.commands).sort(), ['editQueue', 'editResend', 'forkHere', 'newSession', 'restore', 'undoRestore']);
    controller.dispose();
  });
});
