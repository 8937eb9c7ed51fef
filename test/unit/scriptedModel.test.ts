/** The scripted model speaks OpenAI chat-completions SSE the way each scenario step says. */
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScenarioError, validateScenario } from '../scriptedModel/scenario.ts';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { startScriptedModel } from '../scriptedModel/server.ts';
import type { ScriptedModel } from '../scriptedModel/server.ts';

interface Sse {
  readonly status: number;
  readonly frames: unknown[];
  readonly done: boolean;
  readonly raw: string;
}

async function post(url: string, body: unknown = { model: 'scripted-model', stream: true, messages: [] }, signal?: AbortSignal): Promise<Response> {
  return fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer scripted-key' },
    body: JSON.stringify(body),
    signal,
  });
}

async function readSse(response: Response): Promise<Sse> {
  const raw = await response.text();
  const frames: unknown[] = [];
  let done = false;
  for (const block of raw.split('\n\n')) {
    if (!block.trim()) continue;
    assert.ok(block.startsWith('data: '), `every SSE block starts with "data: ", got ${JSON.stringify(block)}`);
    const data = block.slice('data: '.length);
    if (data === '[DONE]') done = true;
    else frames.push(JSON.parse(data));
  }
  return { status: response.status, frames, done, raw };
}

type Delta = Record<string, unknown>;
function deltas(sse: Sse): Delta[] {
  return sse.frames.flatMap((f) => ((f as { choices: { delta: Delta }[] }).choices ?? []).map((c) => c.delta));
}
function finishReason(sse: Sse): unknown {
  const withFinish = sse.frames.flatMap((f) => (f as { choices: { finish_reason: unknown }[] }).choices).filter((c) => c.finish_reason);
  assert.equal(withFinish.length, 1, 'exactly one chunk carries finish_reason');
  return withFinish[0]?.finish_reason;
}

describe('scripted model', () => {
  let model: ScriptedModel | undefined;
  const start = async (scenario: Scenario, requestsFile?: string): Promise<ScriptedModel> => {
    model = await startScriptedModel({ scenario, requestsFile });
    return model;
  };
  afterEach(async () => {
    await model?.close();
    model = undefined;
  });

  it('splits text into deltas of `split` characters and ends with finish_reason and [DONE]', async () => {
    const m = await start({ name: 't', steps: [{ chunks: [{ text: 'abcdefg', split: 3 }], finish: 'stop' }] });
    const sse = await readSse(await post(m.url));
    assert.equal(sse.status, 200);
    const contents = deltas(sse)
      .map((d) => d.content)
      .filter((c) => c);
    assert.deepEqual(contents, ['abc', 'def', 'g']);
    assert.equal(finishReason(sse), 'stop');
    assert.ok(sse.done, 'stream ends with data: [DONE]');
    assert.ok(sse.raw.endsWith('data: [DONE]\n\n'));
  });

  it('streams thinking as reasoning_content before the text', async () => {
    const m = await start({ name: 't', steps: [{ chunks: [{ thinking: 'hmm', split: 2 }, { text: 'ok' }] }] });
    const ds = deltas(await readSse(await post(m.url)));
    const kinds = ds.filter((d) => d.reasoning_content || d.content).map((d) => (d.reasoning_content ? `r:${d.reasoning_content}` : `c:${d.content}`));
    assert.deepEqual(kinds, ['r:hm', 'r:m', 'c:ok']);
  });

  it('sends parallel tool calls with their own index, id and name, arguments in split pieces', async () => {
    const m = await start({
      name: 't',
      steps: [
        {
          chunks: [
            { toolCall: { id: 'call_a', name: 'bash', arguments: { command: 'echo a' } }, split: 5 },
            { toolCall: { id: 'call_b', name: 'bash', arguments: { command: 'echo b' } } },
          ],
        },
      ],
    });
    const sse = await readSse(await post(m.url));
    const calls = deltas(sse).flatMap((d) => (d.tool_calls as { index: number; id?: string; function: { name?: string; arguments: string } }[]) ?? []);
    const byIndex = new Map<number, { id?: string; name?: string; args: string; pieces: number }>();
    for (const c of calls) {
      const entry = byIndex.get(c.index) ?? { args: '', pieces: 0 };
      if (c.id) entry.id = c.id;
      if (c.function.name) entry.name = c.function.name;
      if (c.function.arguments) {
        entry.args += c.function.arguments;
        entry.pieces++;
      }
      byIndex.set(c.index, entry);
    }
    assert.deepEqual([...byIndex.keys()], [0, 1]);
    assert.equal(byIndex.get(0)?.id, 'call_a');
    assert.equal(byIndex.get(1)?.id, 'call_b');
    assert.equal(byIndex.get(0)?.name, 'bash');
    assert.deepEqual(JSON.parse(byIndex.get(0)?.args ?? ''), { command: 'echo a' });
    assert.deepEqual(JSON.parse(byIndex.get(1)?.args ?? ''), { command: 'echo b' });
    assert.equal(byIndex.get(0)?.pieces, Math.ceil(JSON.stringify({ command: 'echo a' }).length / 5));
    assert.equal(byIndex.get(1)?.pieces, 1);
    assert.equal(finishReason(sse), 'tool_calls', 'a step with tool calls defaults to finish_reason tool_calls');
  });

  it('sends a usage chunk after the finish when the step gives usage', async () => {
    const m = await start({ name: 't', steps: [{ chunks: [{ text: 'x' }], usage: { prompt_tokens: 7, completion_tokens: 3 } }] });
    const sse = await readSse(await post(m.url));
    const last = sse.frames.at(-1) as { choices: unknown[]; usage: unknown };
    assert.deepEqual(last.choices, []);
    assert.deepEqual(last.usage, { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
  });

  it('consumes one step per request: a status step answers that status and body, then the next step streams', async () => {
    const m = await start({ name: 't', steps: [{ status: 500, body: 'overloaded' }, { chunks: [{ text: 'fine' }] }] });
    const first = await post(m.url);
    assert.equal(first.status, 500);
    assert.equal(await first.text(), 'overloaded');
    const second = await readSse(await post(m.url));
    assert.equal(second.status, 200);
    assert.deepEqual(
      deltas(second)
        .map((d) => d.content)
        .filter((c) => c),
      ['fine'],
    );
  });

  it('answers 500 "scenario exhausted" once the steps run out', async () => {
    const m = await start({ name: 'short', steps: [{ chunks: [{ text: 'one' }] }] });
    await (await post(m.url)).text();
    const extra = await post(m.url);
    assert.equal(extra.status, 500);
    assert.match(await extra.text(), /scenario exhausted/);
  });

  it('waits delayMs before each delta', async () => {
    const m = await start({ name: 't', steps: [{ chunks: [{ text: 'abcd', split: 1, delayMs: 40 }] }] });
    const started = Date.now();
    await readSse(await post(m.url));
    assert.ok(Date.now() - started >= 150, `4 deltas x 40 ms took only ${Date.now() - started} ms`);
  });

  it('keeps a hang step open without data until the client disconnects, and close() still returns', async () => {
    const m = await start({ name: 't', steps: [{ hang: true }] });
    const controller = new AbortController();
    let settled = false;
    const pending = post(m.url, undefined, controller.signal).then(
      async (r) => {
        settled = true;
        return r.text();
      },
      (error: unknown) => {
        settled = true;
        throw error;
      },
    );
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(settled, false, 'no response while hanging');
    controller.abort();
    await assert.rejects(pending);
    // A close() that waited for the hung request would never return: mocha's timeout fails it.
    await m.close();
  });

  it('close() ends a stream that hangs after its chunks', async () => {
    const m = await start({ name: 't', steps: [{ chunks: [{ text: 'partial' }], hang: true }] });
    const response = await post(m.url);
    assert.equal(response.status, 200);
    const reader = response.body!.getReader();
    const first = await reader.read();
    assert.match(new TextDecoder().decode(first.value), /data: /);
    await m.close();
    await assert.rejects(async () => {
      for (;;) {
        const { done } = await reader.read();
        if (done) throw new Error('stream ended without [DONE] or finish');
      }
    });
  });

  it('holds a stream at { hold } until the test releases the gate, then finishes it', async () => {
    const m = await start({ name: 't', steps: [{ chunks: [{ text: 'before ' }, { hold: 'mid' }, { text: 'after' }] }] });
    assert.equal(m.hasHeld('mid'), false);
    let finished = false;
    const reading = post(m.url)
      .then(readSse)
      .finally(() => (finished = true));
    await m.held('mid');
    assert.equal(m.hasHeld('mid'), true);
    // A round trip through the server: a stream that did not hold would have ended by now.
    await (await fetch(`${m.url}/models`)).text();
    assert.equal(finished, false, 'the stream ended while held');
    m.release('mid');
    const sse = await reading;
    assert.deepEqual(
      deltas(sse).map((d) => d.content),
      ['', 'before ', 'after', undefined],
    );
    assert.equal(sse.done, true);
  });

  it('lets a stream pass a gate released before it got there', async () => {
    const m = await start({ name: 't', steps: [{ chunks: [{ text: 'a' }, { hold: 'g' }, { text: 'b' }] }] });
    m.release('g');
    const sse = await readSse(await post(m.url));
    assert.equal(sse.done, true);
    assert.ok(deltas(sse).some((d) => d.content === 'b'));
  });

  it('ends a held stream without a finish when the client goes away (a cancel)', async () => {
    const m = await start({ name: 't', steps: [{ chunks: [{ text: 'partial' }, { hold: 'never' }, { text: 'rest' }] }] });
    const controller = new AbortController();
    const response = await post(m.url, undefined, controller.signal);
    await m.held('never');
    controller.abort();
    await assert.rejects(response.text());
    await m.close();
  });

  it('opens a gate and reports a held stream over HTTP for tests in another process', async () => {
    const m = await start({ name: 't', steps: [{ chunks: [{ text: 'x' }, { hold: 'remote' }, { text: 'y' }] }] });
    const held = async (): Promise<unknown> => ((await (await fetch(`${m.url}/control/held/remote`)).json()) as { held: unknown }).held;
    assert.equal(await held(), false);
    const reading = post(m.url).then(readSse);
    await m.held('remote');
    assert.equal(await held(), true);
    const r = await fetch(`${m.url}/control/release/remote`, { method: 'POST' });
    assert.equal(r.status, 200);
    assert.equal((await reading).done, true);
  });

  it('records each request body in order and appends it to requestsFile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scripted-test-'));
    try {
      const file = join(dir, 'requests.jsonl');
      const m = await start({ name: 't', steps: [{ chunks: [{ text: 'a' }] }, { chunks: [{ text: 'b' }] }] }, file);
      await (await post(m.url, { n: 1 })).text();
      await (await post(m.url, { n: 2 })).text();
      assert.deepEqual(m.requests, [{ n: 1 }, { n: 2 }]);
      const lines = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown);
      assert.deepEqual(lines, [{ n: 1 }, { n: 2 }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lists the model at GET /v1/models', async () => {
    const m = await start({ name: 't', steps: [{ chunks: [{ text: 'a' }] }] });
    const body = (await (await fetch(`${m.url}/models`)).json()) as { data: { id: string }[] };
    assert.deepEqual(
      body.data.map((d) => d.id),
      ['scripted-model'],
    );
  });

  it('refuses to listen anywhere but loopback', async () => {
    await assert.rejects(startScriptedModel({ scenario: { name: 't', steps: [{ hang: true }] }, host: '0.0.0.0' }), /loopback/);
  });
});

describe('scenario validation', () => {
  it('names the offending path for a bad chunk', () => {
    assert.throws(
      () => validateScenario({ name: 'x', steps: [{ chunks: [{ text: 'a' }, { txt: 'b' }] }] }),
      (error: unknown) => error instanceof ScenarioError && /steps\[0\]\.chunks\[1\]/.test(error.message),
    );
  });

  it('accepts a hold chunk and rejects a hold without a gate name', () => {
    validateScenario({ name: 'ok', steps: [{ chunks: [{ text: 'a' }, { hold: 'g-1' }] }] });
    assert.throws(() => validateScenario({ name: 'x', steps: [{ chunks: [{ hold: '' }] }] }), /steps\[0\]\.chunks\[0\]\.hold/);
    assert.throws(() => validateScenario({ name: 'x', steps: [{ chunks: [{ hold: 'g', split: 2 }] }] }), /unknown key "split"/);
  });

  it('rejects a non-integer split, an unknown finish and an empty step list', () => {
    assert.throws(() => validateScenario({ name: 'x', steps: [{ chunks: [{ text: 'a', split: 0 }] }] }), /split/);
    assert.throws(() => validateScenario({ name: 'x', steps: [{ chunks: [], finish: 'done' }] }), /finish/);
    assert.throws(() => validateScenario({ name: 'x', steps: [] }), /steps/);
  });

  it('accepts every scenario shipped in test/fixtures/scenarios', async () => {
    const { readdirSync } = await import('node:fs');
    const { loadScenario } = await import('../scriptedModel/scenario.ts');
    const dir = join(process.cwd(), 'test', 'fixtures', 'scenarios');
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    assert.ok(files.length >= 11);
    for (const f of files) await loadScenario(join(dir, f));
  });
});
