/** Workspace trust on the real Pi SDK: an untrusted folder's .pi/ code, settings, prompts and AGENTS.md never load; trusted, they do. */

import { strict as assert } from 'node:assert';
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PiModule } from '../../src/pi/piEntry.ts';
import { createPiSession } from '../../src/worker/piSessions.ts';
import type { CreatedSession } from '../../src/worker/agentSession.ts';
import { makePiAgentDir } from '../support/piConfig.ts';
import { loadBundledPi } from './harness.ts';
import { tempDir } from '../support/tempDir.ts';

const hostileFixture = fileURLToPath(new URL('../fixtures/workspaces/hostile', import.meta.url));

describe("a repository's .pi/ resources and workspace trust, on the real Pi SDK", function () {
  this.timeout(60_000);
  let pi: PiModule;
  let created: CreatedSession | undefined;

  before(() => {
    pi = loadBundledPi();
  });

  afterEach(() => {
    (created?.session as { dispose?: () => void } | undefined)?.dispose?.();
    created = undefined;
  });

  /** A fresh copy of the hostile repository and an agent directory of its own, so no run sees another's marker. */
  async function openHostile(trusted: boolean) {
    const cwd = tempDir('pi-hostile-');
    cpSync(hostileFixture, cwd, { recursive: true });
    const agentDir = await makePiAgentDir({ baseUrl: 'http://127.0.0.1:9/v1' });
    created = await createPiSession(pi, { cwd, agentDir, fresh: true, trusted, tools: [] });
    const session = created.session as unknown as { systemPrompt: string; thinkingLevel: string };
    return { cwd, session, marker: join(cwd, 'pi-extension-ran.txt') };
  }

  it('loads nothing from the folder when the workspace is untrusted: no extension runs, no system prompt, settings or AGENTS.md', async () => {
    const { session, marker } = await openHostile(false);
    assert.equal(existsSync(marker), false, 'the repository extension did not run');
    assert.doesNotMatch(session.systemPrompt, /HOSTILE-SYSTEM-PROMPT/);
    assert.doesNotMatch(session.systemPrompt, /HOSTILE-AGENTS-MD/);
    assert.equal(session.thinkingLevel, 'medium', "the agent directory's thinking level, not the project's");
    assert.match(created!.warning ?? '', /not trusted/);
  });

  it('loads them when the workspace is trusted (the fixture really is hostile)', async () => {
    const { session, marker } = await openHostile(true);
    assert.equal(existsSync(marker), true, 'the repository extension ran');
    assert.match(session.systemPrompt, /HOSTILE-SYSTEM-PROMPT/);
    assert.match(session.systemPrompt, /HOSTILE-AGENTS-MD/);
    assert.equal(session.thinkingLevel, 'off', 'the project settings apply');
  });
});
