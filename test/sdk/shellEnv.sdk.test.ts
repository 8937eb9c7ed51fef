/** The agent's bash, on the real Pi SDK, sees a terminal's environment and none of the editor's private variables. */

import { strict as assert } from 'node:assert';
import type { PiModule } from '../../src/pi/piEntry.ts';
import { cleanProcessEnv } from '../../src/worker/cleanEnv.ts';
import { HOST_PRIVATE_ENV, USER_ENV } from '../support/hostEnv.ts';
import { loadBundledPi, startHarness, type Harness } from './harness.ts';

describe("the agent's shell environment, on the real Pi SDK", function () {
  this.timeout(60_000);
  let pi: PiModule;
  let h: Harness | undefined;
  const planted = { ...HOST_PRIVATE_ENV, ...USER_ENV };
  const saved: Record<string, string | undefined> = {};

  let whole: NodeJS.ProcessEnv = {};

  before(() => {
    pi = loadBundledPi();
    for (const [name, value] of Object.entries(planted)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
    // Pi's own bash runs (an extension may override it): the protection is the worker's environment, cleaned at start.
    whole = { ...process.env };
    cleanProcessEnv();
  });

  after(async () => {
    await h?.dispose();
    Object.assign(process.env, whole);
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it(`passes none of the ${Object.keys(HOST_PRIVATE_ENV).length} editor-private variables to bash, and keeps the user's own`, async () => {
    h = await startHarness(pi, {
      name: 'env',
      steps: [
        { chunks: [{ toolCall: { id: 'call_env', name: 'bash', arguments: { command: 'env -0 | base64 -w0' } } }], finish: 'tool_calls' },
        { chunks: [{ text: 'Done.' }], finish: 'stop' },
      ],
    });
    await h.controller.send('Show the environment.', 'prompt');
    await h.settled();
    const card = h.controller.state.tools.call_env!;
    assert.equal(card.status, 'done', card.output);
    const seen = new Map(
      Buffer.from(card.output.trim(), 'base64')
        .toString('utf8')
        .split('\0')
        .filter(Boolean)
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const),
    );
    const leaked = Object.keys(HOST_PRIVATE_ENV).filter((name) => seen.has(name));
    assert.deepEqual(leaked, [], 'no editor-private variable reaches the shell');
    for (const [name, value] of Object.entries(USER_ENV)) assert.equal(seen.get(name), value, `${name} is kept`);
    assert.ok(seen.get('PATH'), 'PATH is kept');
    assert.ok(seen.get('HOME'), 'HOME is kept');
  });
});
