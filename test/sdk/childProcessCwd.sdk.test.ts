/** Where a Pi extension's child processes start in the real worker: the workspace, as in a `pi` started there. */

import { strict as assert } from 'node:assert';
import { realpathSync } from 'node:fs';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { useClientHarness } from './workerHarness.ts';

const answers: Scenario = { name: 'answers', steps: [{ chunks: [{ text: 'Answer 1.' }], finish: 'stop' }] } as Scenario;

describe("a Pi extension's child processes (real worker, real Pi)", function () {
  this.timeout(90_000);
  const harnesses = useClientHarness();

  it('start in the workspace when the extension names no folder, with execSync as with execFile', async () => {
    const h = await harnesses.start(answers, ['workingFolder.js']);
    const workspace = realpathSync(h.cwd);
    assert.notEqual(realpathSync(process.cwd()), workspace, "the worker's process is elsewhere");
    await h.client.send('/where', 'prompt');
    await h.until(() => h.notifications.some((n) => n.message.startsWith('sync: ')), 'the answer of /where');
    assert.equal(h.notifications.find((n) => n.message.startsWith('sync: '))?.message, `sync: ${workspace}, async: ${workspace}`);
  });
});
