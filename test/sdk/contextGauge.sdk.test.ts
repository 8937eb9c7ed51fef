/** The context breakdown and Drop from context on the real Pi SDK and the scripted model. */

import { strict as assert } from 'node:assert';
import type { PiModule } from '../../src/pi/piEntry.ts';
import { droppedPlaceholder } from '../../src/shared/contextGauge.ts';
import type { AgentSessionLike } from '../../src/worker/agentSession.ts';
import { dropFromContext, type ContextSource } from '../../src/worker/contextBreakdown.ts';
import { runPhase } from '../../src/shared/run/runState.ts';
import { loadBundledPi, startHarness, type Harness } from './harness.ts';
import { noticesSent, useClientHarness } from './workerHarness.ts';

/** 1,000 lines of 40 Z's: a tool output of some 10,000 tokens. */
const BIG = 'yes ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ | head -n 1000';

const scenario = {
  name: 'big-tool-output',
  steps: [
    {
      chunks: [{ toolCall: { id: 'call_big', name: 'bash', arguments: { command: BIG } } }],
      finish: 'tool_calls' as const,
      usage: { prompt_tokens: 150, completion_tokens: 20 },
    },
    { chunks: [{ text: 'That was long.' }], finish: 'stop' as const, usage: { prompt_tokens: 10_190, completion_tokens: 10 } },
    { chunks: [{ text: 'Still here.' }], finish: 'stop' as const, usage: { prompt_tokens: 300, completion_tokens: 5 } },
  ],
};

/** How many lines of the big output a request holds (the command itself names the line once). */
const bigLines = (request: unknown): number => JSON.stringify(request).split('Z'.repeat(39)).length - 1;

type PiSession = AgentSessionLike & ContextSource & { getSessionStats(): { cost: number; contextUsage?: { tokens: number | null } } };

describe('context gauge on the real Pi SDK', function () {
  this.timeout(60_000);
  let pi: PiModule;
  let h: Harness | undefined;

  before(() => {
    pi = loadBundledPi();
  });

  afterEach(async () => {
    await h?.dispose();
    h = undefined;
  });

  it("gives Pi's own context size, cost and last reply's usage, and lists the big tool output first", async () => {
    h = await startHarness(pi, scenario);
    await h.controller.send('Print a lot.', 'prompt');
    await h.settled();
    const session = h.controller.session as PiSession;
    const b = h.controller.sessionInfo.context;
    assert.ok(b, 'a breakdown');
    assert.equal(b.used, session.getContextUsage()?.tokens);
    assert.equal(b.contextWindow, session.getContextUsage()?.contextWindow);
    assert.equal(b.session.cost, session.getSessionStats().cost);
    assert.equal(b.lastReply?.input, 10_190);
    assert.equal(b.usedEstimated, false, 'the last reply carries usage');
    assert.equal(b.largest[0]?.toolCallId, 'call_big');
    assert.ok(b.largest[0]!.tokens >= 10_000, `tool output of ${b.largest[0]!.tokens} tokens`);
    assert.ok(b.parts.find((p) => p.part === 'system')!.tokens > 0, 'the system prompt is counted');
    assert.ok(b.parts.find((p) => p.part === 'tools')!.tokens > 0, 'the tool definitions are counted');
    assert.equal(b.canDrop, true);
  });

  it('drops the big output from the next request with a placeholder, and it stays dropped after a reload', async () => {
    h = await startHarness(pi, scenario);
    await h.controller.send('Print a lot.', 'prompt');
    await h.settled();
    const item = h.controller.sessionInfo.context!.largest[0]!;
    assert.ok(bigLines(h.model.requests[1]) > 1000, 'the output went to the model before the drop');
    assert.equal(dropFromContext(h.controller.session as PiSession, item.entryId), true);
    // After an edit Pi no longer trusts the last reply's usage and estimates the whole context (chars/4): the parts add up to it.
    const after = h.controller.sessionInfo.context!;
    assert.equal(after.usedEstimated, true);
    const counted = after.parts.filter((p) => p.part !== 'free').reduce((n, p) => n + p.tokens, 0);
    assert.ok(Math.abs(counted - after.used!) <= 10, `parts ${counted} against Pi's estimate ${after.used}`);
    assert.ok(after.parts.find((p) => p.part === 'toolResults')!.tokens < 50, 'the output no longer counts');
    const settles = h.emitted.filter((e) => e.type === 'settled').length;
    await h.controller.send('And now?', 'prompt');
    await h.until(() => h!.emitted.filter((e) => e.type === 'settled').length > settles, 20_000, 'the second prompt to settle');
    const next = JSON.stringify(h.model.requests[2]);
    assert.ok(bigLines(h.model.requests[2]) < 5, 'the next request no longer holds the output');
    assert.ok(next.includes(droppedPlaceholder(item.tokens).replace(/"/g, '\\"')), 'it holds the placeholder instead');
    h = await h.reload();
    await h.controller.ensureSession();
    assert.deepEqual(h.controller.sessionInfo.context?.dropped, ['call_big']);
  });

  describe('through the worker (the view’s dropFromContext command)', () => {
    const harness = useClientHarness();

    it('drops the output and tells the view, but refuses while a run is active', async () => {
      const h = await harness.start({ ...scenario, steps: [...scenario.steps.slice(0, 2), { hang: true }] }, []);
      await h.settledAfter(() => h.client.send('Print a lot.', 'prompt'), 'the first run');
      const item = h.client.sessionInfo.context!.largest[0]!;
      void h.client.send('Wait here.', 'prompt');
      await h.until(() => runPhase(h.client.state.run) === 'running' && h.model.requests.length === 3, 'the hanging run');
      await h.client.request({ name: 'dropFromContext', params: { entryId: item.entryId } });
      await h.until(() => noticesSent(h.emitted).some((text) => /drop from context once the run has ended/.test(text)), 'the refusal');
      assert.deepEqual(h.client.sessionInfo.context?.dropped, []);
      await h.client.cancel();
      await h.until(() => runPhase(h.client.state.run) === 'idle', 'the cancel');
      await h.client.request({ name: 'dropFromContext', params: { entryId: item.entryId } });
      await h.until(() => h.client.sessionInfo.context?.dropped.includes('call_big') === true, 'the drop to reach the view');
      assert.equal(
        h.client.sessionInfo.context?.largest.some((i) => i.entryId === item.entryId),
        false,
      );
    });
  });
});
