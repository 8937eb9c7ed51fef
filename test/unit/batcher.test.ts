import { strict as assert } from 'node:assert';
import { Batcher, FRAME_MS } from '../../src/shared/batcher.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { TestClock } from '../support/testClock.ts';

function setup() {
  const clock = new TestClock();
  const posts: WireEvent[][] = [];
  const batcher = new Batcher((events) => posts.push(events), clock);
  return { clock, posts, batcher };
}

describe('Batcher', () => {
  it('posts at most once per frame however many events arrive', () => {
    const { clock, posts, batcher } = setup();
    for (let frame = 0; frame < 10; frame++) {
      for (let i = 0; i < 50; i++) batcher.push({ type: 'toolStart', toolCallId: `c${frame}-${i}`, toolName: 'bash', args: '{}', at: 0 });
      clock.advance(FRAME_MS);
    }
    assert.equal(posts.length, 10);
    assert.equal(posts.flat().length, 500);
  });

  it('keeps events in order across frames', () => {
    const { clock, posts, batcher } = setup();
    const sent: string[] = [];
    for (let i = 0; i < 200; i++) {
      const id = `call${i}`;
      sent.push(id);
      batcher.push({ type: 'toolEnd', toolCallId: id, isError: false, output: '' });
      if (i % 7 === 0) clock.advance(5);
    }
    clock.advance(100);
    assert.deepEqual(
      posts.flat().map((e) => (e as { toolCallId: string }).toolCallId),
      sent,
    );
  });

  it('merges adjacent deltas of the same block and keeps other blocks apart', () => {
    const { clock, posts, batcher } = setup();
    batcher.push({ type: 'delta', index: 0, text: 'Hel' });
    batcher.push({ type: 'delta', index: 0, text: 'lo' });
    batcher.push({ type: 'delta', index: 1, text: '{"a"' });
    batcher.push({ type: 'delta', index: 0, text: '!' });
    clock.advance(FRAME_MS);
    assert.deepEqual(posts, [
      [
        { type: 'delta', index: 0, text: 'Hello' },
        { type: 'delta', index: 1, text: '{"a"' },
        { type: 'delta', index: 0, text: '!' },
      ],
    ]);
  });

  it('does not merge deltas across a block boundary', () => {
    const { clock, posts, batcher } = setup();
    batcher.push({ type: 'delta', index: 0, text: 'a' });
    batcher.push({ type: 'blockEnd', index: 0, at: 1 });
    batcher.push({ type: 'delta', index: 0, text: 'b' });
    clock.advance(FRAME_MS);
    assert.equal(posts[0]!.length, 3);
  });

  it('replaces an older queued output snapshot of the same tool, even when parallel updates interleave', () => {
    const { clock, posts, batcher } = setup();
    batcher.push({ type: 'toolUpdate', toolCallId: 'a', output: 'a1' });
    batcher.push({ type: 'toolUpdate', toolCallId: 'b', output: 'b1' });
    batcher.push({ type: 'toolUpdate', toolCallId: 'a', output: 'a1a2' });
    clock.advance(FRAME_MS);
    assert.deepEqual(posts[0], [
      { type: 'toolUpdate', toolCallId: 'a', output: 'a1a2' },
      { type: 'toolUpdate', toolCallId: 'b', output: 'b1' },
    ]);
  });

  it('never moves an output snapshot past the end of its tool', () => {
    const { clock, posts, batcher } = setup();
    batcher.push({ type: 'toolUpdate', toolCallId: 'a', output: 'partial' });
    batcher.push({ type: 'toolEnd', toolCallId: 'a', isError: false, output: 'final' });
    batcher.push({ type: 'toolUpdate', toolCallId: 'a', output: 'late' });
    clock.advance(FRAME_MS);
    assert.deepEqual(
      posts[0]!.map((e) => e.type),
      ['toolUpdate', 'toolEnd', 'toolUpdate'],
    );
  });

  it('sends the first event of a quiet period without waiting a frame', () => {
    const { clock, posts, batcher } = setup();
    batcher.push({ type: 'turnStart' });
    clock.advance(0);
    assert.equal(posts.length, 1);
  });

  it('forwards a batch gathered elsewhere at once after a quiet frame, and the next one not before a frame has passed', () => {
    const { clock, posts, batcher } = setup();
    batcher.pushBatch([
      { type: 'delta', index: 0, text: 'a' },
      { type: 'delta', index: 0, text: 'b' },
    ]);
    // No timer: a timer's delay would carry over into every later frame.
    assert.deepEqual(posts, [[{ type: 'delta', index: 0, text: 'ab' }]]);
    clock.advance(5);
    batcher.pushBatch([{ type: 'delta', index: 0, text: 'c' }]);
    batcher.pushBatch([{ type: 'delta', index: 0, text: 'd' }]);
    assert.equal(posts.length, 1, 'a second post in the same frame waits');
    clock.advance(FRAME_MS - 6);
    assert.equal(posts.length, 1);
    clock.advance(1);
    assert.deepEqual(posts[1], [{ type: 'delta', index: 0, text: 'cd' }]);
    clock.advance(FRAME_MS);
    batcher.pushBatch([{ type: 'turnStart' }]);
    assert.equal(posts.length, 3);
  });

  it('drops queued events on discard and sends nothing after dispose', () => {
    const { clock, posts, batcher } = setup();
    batcher.push({ type: 'turnStart' });
    batcher.discard();
    clock.advance(FRAME_MS);
    batcher.dispose();
    batcher.push({ type: 'turnEnd' });
    clock.advance(FRAME_MS);
    assert.equal(posts.length, 0);
  });
});
