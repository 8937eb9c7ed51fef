/** What Pi reports while loading skills, through the real worker: every broken skill with its file, and which of two same-named skills won. */

import { strict as assert } from 'node:assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { useClientHarness, type ClientHarness } from './workerHarness.ts';

const answer: Scenario = { name: 'diagnostics-answer', steps: [{ chunks: [{ text: 'Hi.' }], finish: 'stop' }] } as Scenario;

function notices(h: ClientHarness): string[] {
  return h.client.state.messages.filter((m) => m.role === 'notice').map((m) => m.blocks[0]?.text ?? '');
}

function skill(dir: string, folder: string, frontmatter: string): string {
  mkdirSync(join(dir, folder), { recursive: true });
  const file = join(dir, folder, 'SKILL.md');
  writeFileSync(file, `---\n${frontmatter}\n---\n\nBody.\n`);
  return file;
}

describe('Skill load problems through the worker', function () {
  this.timeout(90_000);
  const harness = useClientHarness();

  it('shows each broken skill with its file, also when two say the same, and a name collision with the file kept and the one skipped', async () => {
    const files: Record<string, string> = {};
    const h = await harness.start(answer, [], {
      prepare: ({ agentDir, cwd }) => {
        const user = join(agentDir, 'skills');
        files.a = skill(user, 'broken-a', 'name: broken-a');
        files.b = skill(user, 'broken-b', 'name: broken-b');
        // The project's skill wins over the user's of the same name (Pi loads the project's first).
        files.loser = skill(user, 'twin', 'name: twin\ndescription: the user one');
        files.winner = skill(join(cwd, '.pi', 'skills'), 'twin', 'name: twin\ndescription: the project one');
      },
    });
    await h.settledAfter(() => h.client.send('Hello', 'prompt'), 'the answer');
    const shown = notices(h);
    for (const f of [files.a!, files.b!])
      assert.equal(shown.filter((t) => t.includes(f) && t.includes('description is required')).length, 1, `${f}: ${JSON.stringify(shown)}`);
    const collision = shown.filter((t) => t.includes('"twin"'));
    assert.equal(collision.length, 1, JSON.stringify(shown));
    assert.ok(collision[0]!.includes(`${files.winner} is used`) && collision[0]!.includes(`${files.loser} is skipped`), collision[0]);
  });
});
