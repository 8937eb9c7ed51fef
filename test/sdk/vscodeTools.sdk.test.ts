/** The VS Code tools through the real worker and Pi, with a fake host answering for VS Code: registered, answered, gated by the setting, trust and plan mode, and the new errors after an edit appended to its result. */

import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toolOf } from '../../src/shared/transcript/rows.ts';
import { VSCODE_TOOL_NAMES } from '../../src/shared/vscodeTools.ts';
import type { HostRequestHandlers } from '../../src/extension/workerSupervisor.ts';
import type { HostRequests } from '../../src/shared/wire/workerProtocol.ts';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { useClientHarness } from './workerHarness.ts';

const call = (id: string, name: string, args: Record<string, unknown>) => ({ chunks: [{ toolCall: { id, name, arguments: args } }], finish: 'tool_calls' });
const say = (text: string) => ({ chunks: [{ text }], finish: 'stop' });

function declared(request: unknown): string[] {
  const tools = (request as { tools?: { function?: { name?: string } }[] }).tools ?? [];
  return tools.map((t) => t.function?.name ?? '?').sort();
}

/** A host that answers as a test says, keeping what it was asked. */
class FakeHost {
  readonly asked: HostRequests['vscodeTool']['params'][] = [];
  readonly diagnostics: HostRequests['editDiagnostics']['params'][] = [];
  answer: (p: HostRequests['vscodeTool']['params']) => HostRequests['vscodeTool']['result'] = () => ({ text: 'nothing' });
  after: HostRequests['editDiagnostics']['result'] = { note: '', count: 0 };
  readonly handlers: HostRequestHandlers = {
    vscodeTool: async (p) => {
      this.asked.push(p);
      return this.answer(p);
    },
    editDiagnostics: async (p) => {
      this.diagnostics.push(p);
      return p.step === 'after' ? this.after : { note: '', count: 0 };
    },
  };
}

describe('VS Code tools on the real worker', function () {
  this.timeout(120_000);
  const harnesses = useClientHarness();

  it('declares the six tools and gives the model the host answer for vscode_references', async () => {
    const host = new FakeHost();
    host.answer = () => ({ text: '2 references to greet:\nsrc/a.ts:1:17: export function greet()\nsrc/b.ts:3:1: greet();' });
    const h = await harnesses.start(
      { name: 'refs', steps: [call('r1', 'vscode_references', { path: 'src/a.ts', line: 1, column: 17 }), say('Found them.')] } as Scenario,
      [],
      { hostRequests: host.handlers },
    );
    await h.settledAfter(() => h.client.send('Where is greet used?', 'prompt'), 'the run');
    const tools = declared(h.model.requests[0]);
    for (const name of VSCODE_TOOL_NAMES) assert.ok(tools.includes(name), `${name} declared: ${tools.join(', ')}`);
    assert.deepEqual(host.asked[0], { tool: 'vscode_references', args: { path: 'src/a.ts', line: 1, column: 17 }, id: 'r1' });
    assert.match(JSON.stringify(h.model.requests[1]), /src\/b\.ts:3:1: greet\(\);/);
    assert.equal(toolOf(h.client.state.tools, 'r1')?.status, 'done');
  });

  it('offers none of them with the setting off', async () => {
    const h = await harnesses.start({ name: 'off', steps: [say('Hi.')] } as Scenario, [], {
      hostRequests: new FakeHost().handlers,
      config: { vscodeTools: false },
    });
    await h.settledAfter(() => h.client.send('Hi.', 'prompt'), 'the run');
    assert.deepEqual(
      declared(h.model.requests[0]).filter((n) => n.startsWith('vscode_')),
      [],
    );
  });

  it('offers none of them in Restricted Mode', async () => {
    const h = await harnesses.start({ name: 'untrusted', steps: [say('Hi.')] } as Scenario, [], { hostRequests: new FakeHost().handlers, trusted: false });
    await h.settledAfter(() => h.client.send('Hi.', 'prompt'), 'the run');
    assert.deepEqual(
      declared(h.model.requests[0]).filter((n) => n.startsWith('vscode_')),
      [],
    );
  });

  it('runs the read-only ones in plan mode and blocks vscode_rename there', async () => {
    const host = new FakeHost();
    host.answer = (p) => ({ text: `answered ${p.tool}` });
    const h = await harnesses.start(
      {
        name: 'plan',
        steps: [
          say('Hello.'),
          call('d1', 'vscode_diagnostics', {}),
          call('n1', 'vscode_rename', { path: 'a.ts', line: 1, column: 1, newName: 'b' }),
          say('Plan:\n1. Rename'),
        ],
      } as Scenario,
      [],
      { hostRequests: host.handlers },
    );
    await h.settledAfter(() => h.client.send('Hi.', 'prompt'), 'the first run');
    await h.client.call('setPlanMode', { on: true });
    await h.settledAfter(() => h.client.send('Plan a rename.', 'prompt'), 'the plan run');
    const planTools = declared(h.model.requests[1]);
    assert.ok(planTools.includes('vscode_references') && !planTools.includes('vscode_rename'), planTools.join(', '));
    assert.equal(toolOf(h.client.state.tools, 'd1')?.status, 'done');
    assert.equal(toolOf(h.client.state.tools, 'n1')?.status, 'error');
    assert.deepEqual(
      host.asked.map((p) => p.tool),
      ['vscode_diagnostics'],
    );
  });

  it('appends the new errors after an edit to the result the model reads', async () => {
    const host = new FakeHost();
    host.after = {
      note: "\n\n1 new error (VS Code diagnostics after this change):\na.ts:1:7 error: Type 'string' is not assignable to type 'number'.",
      count: 1,
    };
    const h = await harnesses.start(
      { name: 'edit', steps: [call('e1', 'edit', { path: 'a.ts', edits: [{ oldText: '1', newText: '"one"' }] }), say('Oops.')] } as Scenario,
      [],
      { hostRequests: host.handlers },
    );
    writeFileSync(join(h.cwd, 'a.ts'), 'const x: number = 1;\n');
    await h.settledAfter(() => h.client.send('Change it.', 'prompt'), 'the run');
    assert.deepEqual(
      host.diagnostics.map((d) => [d.step, d.id, d.paths]),
      [
        ['before', 'e1', [join(h.cwd, 'a.ts')]],
        ['after', 'e1', [join(h.cwd, 'a.ts')]],
      ],
    );
    assert.match(JSON.stringify(h.model.requests[1]), /1 new error \(VS Code diagnostics after this change\):\\na\.ts:1:7 error: Type 'string'/);
  });
});
