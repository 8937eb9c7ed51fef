/** Approval rules (piPanel.approvalRules) through the real worker and Pi: a deny rule blocks without a card and names itself, an allow rule runs without one, Always allow saves the card's prefix. */

import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { mergeRules } from '../../src/shared/approvalRules.ts';
import type { DialogView } from '../../src/shared/wire/events.ts';
import { toolOf } from '../../src/shared/transcript/rows.ts';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { useClientHarness } from './workerHarness.ts';

const bash = (id: string, command: string) => ({ chunks: [{ toolCall: { id, name: 'bash', arguments: { command } } }], finish: 'tool_calls' });
const done = { chunks: [{ text: 'Done.' }], finish: 'stop' };

describe('approval rules on the real worker', function () {
  this.timeout(90_000);
  const harnesses = useClientHarness();

  it('a deny rule blocks the command without a card, even with approvals off, and the tool card names the rule', async () => {
    const h = await harnesses.start({ name: 'deny-rule', steps: [bash('c', 'touch ran.txt'), done] } as Scenario, [], {
      approval: 'off',
      approvalRules: mergeRules({ workspace: [{ tool: 'bash', match: 'touch', action: 'deny' }] }).rules,
    });
    await h.settledAfter(() => h.client.send('Touch it.', 'prompt'), 'the run to settle');
    assert.equal(h.emitted.filter((e) => e.type === 'dialogOpen').length, 0, 'no card');
    const card = toolOf(h.client.state.tools, 'c');
    assert.equal(card?.status, 'error');
    assert.match(card?.output ?? '', /Blocked by the approval rule \{"tool":"bash","match":"touch","action":"deny"\} \(rule 1 in workspace settings\)/);
    assert.equal(existsSync(join(h.cwd, 'ran.txt')), false);
  });

  it("a user's allow rule runs the command it covers without a card", async () => {
    const h = await harnesses.start({ name: 'allow-rule', steps: [bash('c', 'touch ran.txt'), done] } as Scenario, [], {
      approval: 'commands',
      approvalRules: mergeRules({ user: [{ tool: 'bash', match: 'touch', action: 'allow' }] }).rules,
    });
    await h.settledAfter(() => h.client.send('Touch it.', 'prompt'), 'the run to settle');
    assert.equal(h.emitted.filter((e) => e.type === 'dialogOpen').length, 0, 'no card');
    assert.equal(toolOf(h.client.state.tools, 'c')?.status, 'done');
    assert.equal(existsSync(join(h.cwd, 'ran.txt')), true);
  });

  it('Always allow asks the main thread to save the prefix the card showed, and the same prefix runs on without a card', async () => {
    const h = await harnesses.start({ name: 'always', steps: [bash('c1', 'echo one'), bash('c2', 'echo two'), done] } as Scenario, [], {
      approval: 'commands',
    });
    const saved: unknown[] = [];
    h.client.onDidSaveApprovalRule((r) => saved.push(r));
    let asked: DialogView | undefined;
    await h.settledAfter(async () => {
      void h.client.send('Echo twice.', 'prompt');
      await h.until(() => h.client.state.ui?.dialogs[0] !== undefined, 'the approval card');
      asked = h.client.state.ui!.dialogs[0]!;
      assert.equal((await h.client.call('answerDialog', { id: asked.id, value: 'Always allow' }))?.answered, true);
    }, 'the run to settle');
    assert.deepEqual(asked?.options, ['Allow', 'Allow for session', 'Always allow', 'Deny']);
    assert.deepEqual(saved, [{ tool: 'bash', match: 'echo' }]);
    assert.equal(h.emitted.filter((e) => e.type === 'dialogOpen').length, 1, 'asked once');
    assert.equal(toolOf(h.client.state.tools, 'c2')?.status, 'done');
  });
});
