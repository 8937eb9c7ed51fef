/** The agent's bash, on the real Pi SDK, sees a terminal's environment and none of the editor's private variables. */

import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PiModule } from '../../src/pi/piEntry.ts';
import { cleanProcessEnv } from '../../src/worker/cleanEnv.ts';
import { HOST_PRIVATE_ENV, USER_ENV } from '../support/hostEnv.ts';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { loadBundledPi, startHarness, type Harness } from './harness.ts';
import { useClientHarness } from './workerHarness.ts';

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

describe("the worker's own environment: `!` commands and the processes Pi's extensions start", function () {
  this.timeout(90_000);
  const harnesses = useClientHarness();
  const planted = { ...HOST_PRIVATE_ENV, ...USER_ENV };
  const saved: Record<string, string | undefined> = {};

  // The worker thread copies the environment when it starts: planted before, it sees what an extension host has.
  before(() => {
    for (const [name, value] of Object.entries(planted)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
  });
  after(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it("!env sees none of the editor-private variables and keeps the user's own", async () => {
    const h = await harnesses.start({ name: 'env', steps: [] } as unknown as Scenario, []);
    assert.equal(await h.client.ensureSession(), true);
    await h.client.request({ name: 'bash', params: { command: 'env -0 | base64 -w0', excluded: true } });
    const row = h.client.state.messages.find((m) => m.role === 'bash');
    const seen = new Set(
      Buffer.from(row?.blocks[0]?.text.trim() ?? '', 'base64')
        .toString('utf8')
        .split('\0')
        .map((line) => line.slice(0, line.indexOf('='))),
    );
    assert.ok(seen.has('PATH'), 'the command ran and printed its environment');
    assert.deepEqual(
      Object.keys(HOST_PRIVATE_ENV).filter((name) => seen.has(name)),
      [],
    );
    for (const name of Object.keys(USER_ENV)) assert.ok(seen.has(name), `${name} is kept`);
  });

  it('Restricted Mode refuses a `!` command with a clear message, and it does not run', async () => {
    const h = await harnesses.start({ name: 'untrusted', steps: [] } as unknown as Scenario, [], { trusted: false });
    assert.equal(await h.client.ensureSession(), true);
    await h.client.request({ name: 'bash', params: { command: 'touch ran.txt', excluded: false } });
    assert.equal(existsSync(join(h.cwd, 'ran.txt')), false);
    const notices = h.client.state.messages.filter((m) => m.role === 'notice').map((m) => m.blocks[0]?.text ?? '');
    assert.ok(
      notices.some((t) => /does not run ! commands in Restricted Mode/.test(t)),
      notices.join('\n'),
    );
  });
});
