/** "Edit and resend" in the worker: a prompt sent while the rewind is still under way runs on the rewound branch. */

import { strict as assert } from 'node:assert';
import type { CreatedSession } from '../../src/worker/agentSession.ts';
import { SessionController } from '../../src/worker/sessionController.ts';
import { FakeSession } from '../support/fakeSession.ts';
import { MemoryLog } from '../support/memoryLog.ts';
import { TestClock } from '../support/testClock.ts';

/** A session with two user messages in its file, whose tree move waits until the test releases it. */
class RewindableSession extends FakeSession {
  private _release: (() => void) | undefined;
  readonly sessionManager = {
    getBranch: () => [
      { type: 'message', id: 'u1', message: { role: 'user', content: 'First question' } },
      { type: 'message', id: 'a1', message: { role: 'assistant', content: [{ type: 'text', text: 'One' }] } },
      { type: 'message', id: 'u2', message: { role: 'user', content: 'Second question' } },
      { type: 'message', id: 'a2', message: { role: 'assistant', content: [{ type: 'text', text: 'Two' }] } },
    ],
    getLeafId: () => 'a2',
    getSessionId: () => 'rewindable',
  };

  navigateTree(entryId: string): Promise<{ cancelled: boolean; editorText?: string }> {
    this.calls.push(`navigateTree:${entryId}`);
    return new Promise((resolve) => {
      this._release = () => {
        this.calls.push('navigated');
        resolve({ cancelled: false, editorText: 'First question' });
      };
    });
  }

  /** The rewind lands. */
  releaseRewind(): void {
    assert.ok(this._release, 'no tree move is waiting');
    this._release();
    this._release = undefined;
  }
}

function setup() {
  const fake = new RewindableSession();
  const controller = new SessionController(
    async () => ({ session: fake.asSession(), cwd: '/work' }) satisfies CreatedSession,
    new MemoryLog(),
    new TestClock(),
    { settleTimeoutMs: 5000, noResponseMs: 60_000 },
  );
  const setInput: string[] = [];
  controller.onDidSetInput((text) => setInput.push(text));
  return { fake, controller, setInput };
}

/** Lets pending promise callbacks run. */
const tick = () => new Promise((r) => setImmediate(r));

describe('Edit and resend (worker)', () => {
  it('runs a prompt sent before the rewind landed after the rewind, on the rewound branch', async () => {
    const { fake, controller } = setup();
    await controller.ensureSession();
    const rewind = controller.commands.editResend({ fromEnd: 1, text: 'First question' });
    await tick();
    assert.deepEqual(fake.calls.slice(1), ['navigateTree:u1']);
    const sent = controller.send('First question, edited', 'prompt');
    await tick();
    await tick();
    assert.deepEqual(fake.calls.slice(1), ['navigateTree:u1'], 'the prompt must wait for the rewind');
    fake.releaseRewind();
    await rewind;
    await tick();
    assert.deepEqual(fake.calls.slice(1), ['navigateTree:u1', 'navigated', 'prompt:First question, edited']);
    fake.settle();
    await sent;
  });

  it('still sends a prompt when the rewind finds no such message', async () => {
    const { fake, controller, setInput } = setup();
    await controller.ensureSession();
    await controller.commands.editResend({ fromEnd: 0, text: 'A message the file has not got' });
    const sent = controller.send('Hello', 'prompt');
    await tick();
    assert.deepEqual(fake.calls.slice(1), ['prompt:Hello']);
    assert.deepEqual(setInput, []);
    fake.settle();
    await sent;
  });
});
