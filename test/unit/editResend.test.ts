/** "Edit and resend" in the worker: a prompt sent while the rewind is still under way runs on the rewound branch. */

import { strict as assert } from 'node:assert';
import type { CreatedSession } from '../../src/worker/agentSession.ts';
import { SessionController } from '../../src/worker/sessionController.ts';
import { FakeSession } from '../support/fakeSession.ts';
import { MemoryLog } from '../support/memoryLog.ts';
import { TestClock } from '../support/testClock.ts';

/** A session with two user messages in its file, whose tree move waits until the test releases it. */
/** The part of Pi's session manager these sessions have. */
interface Entries {
  getBranch(): readonly { readonly type: string; readonly id: string; readonly message: unknown }[];
  getLeafEntry?(): unknown;
  getLeafId(): string | null;
  getSessionId(): string;
}

class RewindableSession extends FakeSession {
  private _release: (() => void) | undefined;
  readonly sessionManager: Entries = {
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

/** Two user messages with the same text in the file, which the panel replays. */
class TwinSession extends RewindableSession {
  private static readonly _entries = [
    { type: 'message', id: 'u1', message: { role: 'user', content: 'Same' } },
    { type: 'message', id: 'a1', message: { role: 'assistant', content: [{ type: 'text', text: 'One' }] } },
    { type: 'message', id: 'u2', message: { role: 'user', content: 'Same' } },
    { type: 'message', id: 'a2', message: { role: 'assistant', content: [{ type: 'text', text: 'Two' }] } },
  ];
  override readonly sessionManager: Entries = {
    getBranch: () => TwinSession._entries,
    getLeafId: () => 'a2',
    getSessionId: () => 'twins',
  };
  override messages: unknown[] = TwinSession._entries.map((e) => e.message);
}

/** A session that writes each user message to its file after announcing its end, as Pi does. */
class WritingSession extends RewindableSession {
  private readonly _entries: { type: string; id: string; message: unknown }[] = [];
  override readonly sessionManager: Entries = {
    getBranch: () => this._entries,
    getLeafEntry: () => this._entries.at(-1),
    getLeafId: () => this._entries.at(-1)?.id ?? null,
    getSessionId: () => 'writing',
  };

  override emit(event: unknown): void {
    super.emit(event);
    const e = event as { type?: string; message?: { role?: string } };
    if (e.type === 'message_end' && e.message?.role === 'user') this._entries.push({ type: 'message', id: `e${this._entries.length + 1}`, message: e.message });
  }
}

function setup(fake: RewindableSession = new RewindableSession()) {
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
    const rewind = controller.commands.editResend({ entryId: 'u1' });
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

  it('rewinds to the message whose row was clicked when an older one has the same text and a newer one is still being sent', async () => {
    const fake = new TwinSession();
    const { controller } = setup(fake);
    await controller.ensureSession();
    // A prompt the view shows already but Pi has not written to the file yet.
    fake.emit({ type: 'message_start', message: { role: 'user', content: 'Being sent', timestamp: 0 } });
    const users = controller.state.messages.filter((m) => m.role === 'user');
    assert.deepEqual(
      users.map((m) => [m.blocks[0]?.text, m.entryId]),
      [
        ['Same', 'u1'],
        ['Same', 'u2'],
        ['Being sent', undefined],
      ],
    );
    const rewind = controller.commands.editResend({ entryId: users[1]!.entryId! });
    await tick();
    assert.deepEqual(fake.calls.slice(1), ['navigateTree:u2']);
    fake.releaseRewind();
    await rewind;
  });

  it("names a sent prompt's row by the entry Pi wrote it to, from the next event on, and rewinds to that entry", async () => {
    const fake = new WritingSession();
    const { controller } = setup(fake);
    await controller.ensureSession();
    const sent = controller.send('Hello', 'prompt');
    await tick();
    const row = () => controller.state.messages.find((m) => m.role === 'user');
    assert.equal(row()?.role === 'user' ? row()?.entryId : 'none', undefined, 'not written yet when its end is announced');
    fake.emit({ type: 'turn_start' });
    const named = row();
    assert.equal(named?.role === 'user' ? named.entryId : undefined, 'e1');
    fake.settle();
    await sent;
    const rewind = controller.commands.editResend({ entryId: 'e1' });
    await tick();
    assert.deepEqual(fake.calls.slice(-1), ['navigateTree:e1']);
    fake.releaseRewind();
    await rewind;
  });

  it('moves nowhere and still sends a prompt when the entry named is no user message of the branch', async () => {
    const { fake, controller, setInput } = setup();
    await controller.ensureSession();
    await controller.commands.editResend({ entryId: 'a2' });
    await controller.commands.editResend({ entryId: 'not-in-the-file' });
    const sent = controller.send('Hello', 'prompt');
    await tick();
    assert.deepEqual(fake.calls.slice(1), ['prompt:Hello']);
    assert.deepEqual(setInput, []);
    fake.settle();
    await sent;
  });
});
