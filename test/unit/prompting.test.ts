/** The checkpoint before a prompt never holds the prompt back: one that fails, hangs or meets a FIFO lets the prompt go, with a notice. */

import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IDisposable } from '../../src/shared/disposable.ts';
import type { TranscriptState } from '../../src/shared/transcript/rows.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import type { AgentSessionLike } from '../../src/worker/agentSession.ts';
import { SessionCheckpoints } from '../../src/worker/checkpoints/sessionCheckpoints.ts';
import { CHECKPOINT_WAIT_MS, Prompting, type PromptTarget } from '../../src/worker/prompting.ts';
import { RunWatchdog } from '../../src/worker/runWatchdog.ts';
import { SessionNotices } from '../../src/worker/sessionNotices.ts';
import { FakeSession } from '../support/fakeSession.ts';
import { MemoryLog } from '../support/memoryLog.ts';
import { TestClock } from '../support/testClock.ts';

/** A session owner whose checkpoint before a prompt is whatever the test makes it. */
class FakeTarget implements PromptTarget {
  readonly fake = new FakeSession();
  readonly events: WireEvent[] = [];
  dropped = 0;
  private readonly _listeners = new Set<(e: readonly WireEvent[]) => void>();
  readonly checkpoint: () => Promise<string | void>;
  constructor(checkpoint: () => Promise<string | void>) {
    this.checkpoint = checkpoint;
  }
  state(): TranscriptState {
    return { run: { cancelling: false } } as unknown as TranscriptState;
  }
  session(): AgentSessionLike {
    return this.fake.asSession();
  }
  isActive(): boolean {
    return this.fake.isStreaming;
  }
  noModel(): boolean {
    return false;
  }
  async ensureSession(): Promise<AgentSessionLike> {
    return this.fake.asSession();
  }
  async reopenQuietly(): Promise<AgentSessionLike> {
    return this.fake.asSession();
  }
  apply(events: readonly WireEvent[]): void {
    this.events.push(...events);
    for (const l of this._listeners) l(events);
  }
  onDidEmit(listener: (events: readonly WireEvent[]) => void): IDisposable {
    this._listeners.add(listener);
    return { dispose: () => this._listeners.delete(listener) };
  }
  willCancel(): void {}
  beforePrompt(): Promise<string | void> {
    return this.checkpoint();
  }
  promptDropped(): void {
    this.dropped++;
  }
  notices(): string[] {
    return this.events.flatMap((e) => (e.type === 'noticeMessage' ? [e.text] : []));
  }
}

function setup(checkpoint: () => Promise<string | void>) {
  const clock = new TestClock();
  const log = new MemoryLog();
  const target = new FakeTarget(checkpoint);
  const options = { settleTimeoutMs: 5000, noResponseMs: 60_000 };
  const notices = new SessionNotices({ state: () => target.state(), apply: (e) => target.apply(e), notify: () => undefined, restore: () => undefined }, log);
  const prompting = new Prompting(target, notices, new RunWatchdog(target, clock, options), log, clock, options);
  return { clock, target, prompting };
}

/** Lets pending promise callbacks run. */
const tick = () => new Promise((r) => setImmediate(r));

describe('prompting: the checkpoint before a prompt', function () {
  this.timeout(30_000);

  it('sends the prompt with a notice when the checkpoint takes longer than its time limit', async () => {
    const { clock, target, prompting } = setup(() => new Promise(() => undefined));
    void prompting.send('hi', 'prompt');
    await tick();
    assert.deepEqual(target.fake.calls, []);
    clock.advance(CHECKPOINT_WAIT_MS);
    await tick();
    assert.deepEqual(target.fake.calls, ['prompt:hi']);
    // The run must not diff against a checkpoint taken while it already changed files.
    assert.equal(target.dropped, 1);
    assert.equal(target.notices().length, 1);
    assert.match(target.notices()[0]!, /checkpoint/i);
  });

  it('sends the prompt with a notice when the checkpoint fails', async () => {
    for (const checkpoint of [() => Promise.resolve('the disk is full'), () => Promise.reject(new Error('the disk is full'))]) {
      const { target, prompting } = setup(checkpoint);
      void prompting.send('hi', 'prompt');
      await tick();
      assert.deepEqual(target.fake.calls, ['prompt:hi']);
      assert.equal(target.notices().length, 1);
      assert.match(target.notices()[0]!, /the disk is full/);
    }
  });

  it('sends the prompt without a notice when the checkpoint was taken', async () => {
    const { target, prompting } = setup(() => Promise.resolve());
    void prompting.send('hi', 'prompt');
    await tick();
    assert.deepEqual(target.fake.calls, ['prompt:hi']);
    assert.deepEqual(target.notices(), []);
  });

  describe('with real checkpoints', () => {
    let ws: string;
    let storage: string;
    beforeEach(() => {
      ws = mkdtempSync(join(tmpdir(), 'pi-prompting-ws-'));
      storage = mkdtempSync(join(tmpdir(), 'pi-prompting-storage-'));
    });
    afterEach(() => {
      rmSync(ws, { recursive: true, force: true });
      rmSync(storage, { recursive: true, force: true });
    });

    /** Sends 'hi' with real checkpoints stored in `store`; resolves once Pi got it. */
    async function sendWithCheckpoints(store: string) {
      const checkpoints = new SessionCheckpoints(new MemoryLog(), () => undefined);
      checkpoints.open(ws, store, true);
      const { target, prompting } = setup(() => checkpoints.beforePrompt('s1', undefined));
      // The test clock never moves: only a checkpoint that ends (taken or failed) lets the prompt go.
      const sent = new Promise<void>((resolve) => {
        const sub = target.fake.asSession().subscribe(() => {
          sub();
          resolve();
        });
      });
      void prompting.send('hi', 'prompt');
      await sent;
      return { checkpoints, target };
    }

    it("is not held back by a FIFO at the workspace's .git/info/exclude", async function () {
      if (process.platform === 'win32') this.skip();
      mkdirSync(join(ws, '.git', 'info'), { recursive: true });
      execFileSync('mkfifo', [join(ws, '.git', 'info', 'exclude')]);
      writeFileSync(join(ws, 'a.txt'), 'a\n');
      const { checkpoints, target } = await sendWithCheckpoints(storage);
      assert.ok(target.fake.calls.includes('prompt:hi'));
      assert.equal(checkpoints.capturing, true);
      assert.deepEqual(target.notices(), []);
    });

    it('sends the prompt with a notice when the checkpoint store fails, and the run starts from no checkpoint', async () => {
      // A file where the checkpoint store's folder goes: git runs, but every checkpoint fails.
      const notAFolder = join(storage, 'file');
      writeFileSync(notAFolder, '');
      writeFileSync(join(ws, 'a.txt'), 'a\n');
      const { checkpoints, target } = await sendWithCheckpoints(notAFolder);
      assert.ok(target.fake.calls.includes('prompt:hi'));
      assert.equal(target.notices().length, 1);
      assert.match(target.notices()[0]!, /No checkpoint was taken before this message \(.*not a directory/);
      assert.equal(checkpoints.capturing, false, "the run's row is the per-tool one");
    });
  });
});
