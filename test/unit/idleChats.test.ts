/** Idle chats: a worker left idle stops; coming back to its chat (shown again, focused) starts one before the user sends. */

import { strict as assert } from 'node:assert';
import { IdleChats, type IdleChat, type IdleTimers } from '../../src/extension/idleChats.ts';
import type { RunPhase } from '../../src/shared/run/runState.ts';

class FakeChat implements IdleChat {
  phase: RunPhase = 'idle';
  visible = false;
  readonly calls: string[] = [];
  readonly client = {
    workerStarted: true,
    stopIdle: async () => {
      this.calls.push('stop');
      if (this.phase !== 'idle') return false;
      this.client.workerStarted = false;
      return true;
    },
    ensureSession: async () => {
      this.calls.push('start');
      this.client.workerStarted = true;
      return true;
    },
  };
}

class FakeChats {
  all: FakeChat[] = [];
  private readonly _change = new Set<() => void>();
  private readonly _focus = new Set<(c: FakeChat) => void>();
  onDidChange(l: () => void) {
    this._change.add(l);
    return { dispose: () => this._change.delete(l) };
  }
  onDidFocus(l: (c: FakeChat) => void) {
    this._focus.add(l);
    return { dispose: () => this._focus.delete(l) };
  }
  changed(): void {
    for (const l of this._change) l();
  }
  focus(c: FakeChat): void {
    for (const l of this._focus) l(c);
  }
}

/** Timers run when the test says. */
class Timers implements IdleTimers {
  private _pending: { fn: () => void; ms: number }[] = [];
  set(fn: () => void, ms: number) {
    const t = { fn, ms };
    this._pending.push(t);
    return t;
  }
  clear(handle: unknown): void {
    this._pending = this._pending.filter((t) => t !== handle);
  }
  async fire(): Promise<void> {
    const due = this._pending;
    this._pending = [];
    for (const t of due) t.fn();
    await new Promise((r) => setImmediate(r));
  }
  get count(): number {
    return this._pending.length;
  }
}

describe('idle chats', () => {
  function setup(opts: { off?: boolean } = {}) {
    const idleMs = opts.off ? undefined : 15 * 60_000;
    const chats = new FakeChats();
    const timers = new Timers();
    const a = new FakeChat();
    const b = new FakeChat();
    chats.all = [a, b];
    const idle = new IdleChats(chats, () => idleMs, timers);
    return { chats, timers, a, b, idle };
  }

  it('stops the worker of an idle chat after the idle time, and not of one that runs', async () => {
    const { chats, timers, a, b } = setup();
    b.phase = 'running';
    chats.changed();
    assert.equal(timers.count, 1);
    await timers.fire();
    assert.deepEqual(a.calls, ['stop']);
    assert.deepEqual(b.calls, []);
  });

  it('keeps workers running when the idle time is off', () => {
    const { chats, timers } = setup({ off: true });
    chats.changed();
    assert.equal(timers.count, 0);
  });

  it('starts the worker again when the chat it stopped is shown again, once', async () => {
    const { chats, timers, a } = setup();
    chats.changed();
    await timers.fire();
    assert.equal(a.client.workerStarted, false);
    a.visible = true;
    chats.changed();
    assert.deepEqual(a.calls, ['stop', 'start']);
    // Still shown: nothing more, also after the next change.
    chats.changed();
    assert.deepEqual(a.calls, ['stop', 'start']);
  });

  it('starts it again when the user focuses the chat, and never starts one it did not stop', async () => {
    const { chats, timers, a, b } = setup();
    b.client.workerStarted = false;
    chats.focus(b);
    assert.deepEqual(b.calls, [], 'a chat that never needed Pi stays without a worker');
    chats.changed();
    await timers.fire();
    chats.focus(a);
    assert.deepEqual(a.calls, ['stop', 'start']);
  });

  it('does not start one for a chat that was closed meanwhile', async () => {
    const { chats, timers, a } = setup();
    chats.changed();
    await timers.fire();
    chats.all = chats.all.filter((c) => c !== a);
    chats.changed();
    chats.focus(a);
    assert.deepEqual(a.calls, ['stop']);
  });
});
