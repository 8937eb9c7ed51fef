/** Pi's built-in MCP, codemode and tool_search in the real worker: a stub stdio MCP server's tool called by the scripted model, and trust. */

import { strict as assert } from 'node:assert';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toolOf } from '../../src/shared/transcript/rows.ts';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { useClientHarness } from './workerHarness.ts';

const stubServer = fileURLToPath(new URL('../fixtures/workspaces/mcp/.pi/stub-mcp-server.mjs', import.meta.url));
const hostileFixture = fileURLToPath(new URL('../fixtures/workspaces/hostile', import.meta.url));

/** An `mcpServers` entry that starts the stub, which appends to `marker` when it starts and when a tool is called. */
function stubEntry(marker: string, extra: Record<string, unknown> = {}) {
  return { command: process.execPath, args: [stubServer, marker], ...extra };
}

function writeMcpJson(file: string, servers: Record<string, unknown>): void {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, JSON.stringify({ mcpServers: servers }, null, 2));
}

const markerLines = (marker: string): string[] => (existsSync(marker) ? readFileSync(marker, 'utf8').trim().split('\n') : []);

const callThenAnswer = (name: string, args: Record<string, unknown>): Scenario =>
  ({
    name: 'mcp-call',
    steps: [
      { chunks: [{ toolCall: { id: 'call_mcp', name, arguments: args } }], finish: 'tool_calls' },
      { chunks: [{ text: 'The server answered.' }], finish: 'stop' },
    ],
  }) as Scenario;

const justAnswer: Scenario = { name: 'answer', steps: [{ chunks: [{ text: 'Hello.' }], finish: 'stop' }] } as Scenario;

describe("Pi's built-in MCP support in the panel's worker (stub stdio server, real Pi)", function () {
  this.timeout(90_000);
  const harnesses = useClientHarness();

  it("reads mcp.json from the panel's agent directory and the model calls a direct MCP tool, shown as an ordinary tool card", async () => {
    let marker = '';
    const h = await harnesses.start(callThenAnswer('mcp__stub__echo', { text: 'hi there' }), [], {
      prepare: ({ agentDir }) => {
        marker = join(agentDir, 'stub-mcp.log');
        writeMcpJson(join(agentDir, 'mcp.json'), { stub: stubEntry(marker, { exposure: 'direct' }) });
      },
    });
    await h.settledAfter(() => h.client.send('Echo something.', 'prompt'), 'the run to settle');
    const card = toolOf(h.client.state.tools, 'call_mcp');
    assert.equal(card?.toolName, 'mcp__stub__echo');
    assert.equal(card?.status, 'done', card?.output);
    assert.match(card?.output ?? '', /echo: hi there/);
    assert.deepEqual(
      markerLines(marker).filter((l) => l.startsWith('called')),
      ['called echo {"text":"hi there"}'],
    );
    // Declared to the model like a built-in tool, as `direct` exposure says.
    assert.match(JSON.stringify(h.model.requests[0]), /mcp__stub__echo/);
    assert.ok(h.client.state.messages.some((m) => m.role === 'assistant' && m.blocks.some((b) => b?.text === 'The server answered.')));
    // Pi's built-ins are no user extension: nothing here may read the composer.
    assert.deepEqual(
      h.surfaces.filter((s) => s.kind === 'bound').map((s) => (s as { count: number }).count),
      [0],
    );
  });

  it("/mcp answers with the servers' status as a notification (no terminal UI needed)", async () => {
    const h = await harnesses.start(justAnswer, [], {
      prepare: ({ agentDir }) => writeMcpJson(join(agentDir, 'mcp.json'), { stub: stubEntry(join(agentDir, 'stub-mcp.log'), { exposure: 'direct' }) }),
    });
    await h.settledAfter(() => h.client.send('Hello.', 'prompt'), 'the run to settle');
    await h.client.send('/mcp', 'prompt');
    await h.until(() => h.notifications.some((n) => /stub/.test(n.message)), 'the status notification');
    assert.equal(h.model.requests.length, 1, '/mcp never reached the model');
  });

  it("runs a codemode script that calls the server's tool (default exposure), with the MCP call as a card inside the script's card", async () => {
    let marker = '';
    const code = 'const r = await tools.mcp__stub__echo({ text: "from codemode" });\nreturn r.content[0].text;';
    const h = await harnesses.start(callThenAnswer('codemode', { code }), [], {
      prepare: ({ agentDir }) => {
        marker = join(agentDir, 'stub-mcp.log');
        writeMcpJson(join(agentDir, 'mcp.json'), { stub: stubEntry(marker) });
      },
    });
    await h.settledAfter(() => h.client.send('Use codemode.', 'prompt'), 'the run to settle');
    const card = toolOf(h.client.state.tools, 'call_mcp');
    assert.equal(card?.toolName, 'codemode');
    assert.equal(card?.status, 'done', card?.output);
    assert.match(card?.output ?? '', /echo: from codemode/);
    assert.ok(markerLines(marker).includes('called echo {"text":"from codemode"}'), markerLines(marker).join('\n'));
    // The script's own call goes through Pi's tool pipeline too: a card of its own, inside the script's.
    const nested = Object.values(h.client.state.tools).filter((c) => c.toolName === 'mcp__stub__echo');
    assert.equal(nested.length, 1);
    assert.equal(nested[0]?.status, 'done');
    assert.equal(nested[0]?.parentToolCallId, 'call_mcp');
    assert.deepEqual(card?.children, [nested[0]?.toolCallId]);
    assert.match(nested[0]?.output ?? '', /echo: from codemode/);
  });

  it("starts no MCP server in an untrusted workspace, neither the user's nor the project's", async () => {
    let userMarker = '';
    let projectMarker = '';
    const h = await harnesses.start(justAnswer, [], {
      trusted: false,
      prepare: ({ agentDir, cwd }) => {
        userMarker = join(agentDir, 'user-mcp.log');
        projectMarker = join(agentDir, 'project-mcp.log');
        writeMcpJson(join(agentDir, 'mcp.json'), { user: stubEntry(userMarker, { exposure: 'direct' }) });
        writeMcpJson(join(cwd, '.pi', 'mcp.json'), { project: stubEntry(projectMarker, { exposure: 'direct' }) });
      },
    });
    await h.settledAfter(() => h.client.send('Hello.', 'prompt'), 'the run to settle');
    assert.doesNotMatch(JSON.stringify(h.model.requests[0]), /mcp__/);
    assert.deepEqual(markerLines(userMarker), [], 'the user-level server did not start');
    assert.deepEqual(markerLines(projectMarker), [], 'the project-level server did not start');
  });

  for (const trusted of [false, true]) {
    it(`the hostile repository's .pi/mcp.json server ${trusted ? 'starts when the workspace is trusted (the fixture really is hostile)' : 'never starts untrusted'}`, async () => {
      const h = await harnesses.start(justAnswer, [], { trusted, prepare: ({ cwd }) => cpSync(hostileFixture, cwd, { recursive: true }) });
      const marker = join(h.cwd, 'mcp-server-started.txt');
      await h.settledAfter(() => h.client.send('Hello.', 'prompt'), 'the run to settle');
      if (trusted) await h.until(() => existsSync(marker), 'the repository server to start');
      else assert.equal(existsSync(marker), false, 'the repository server did not start');
    });
  }

  it('starts the project\'s server in a trusted workspace, and none with "-builtin:mcp" in the extensions setting', async () => {
    let projectMarker = '';
    const trusted = await harnesses.start(justAnswer, [], {
      prepare: ({ cwd, agentDir }) => {
        projectMarker = join(agentDir, 'project-mcp.log');
        writeMcpJson(join(cwd, '.pi', 'mcp.json'), { project: stubEntry(projectMarker, { exposure: 'direct' }) });
      },
    });
    await trusted.settledAfter(() => trusted.client.send('Hello.', 'prompt'), 'the run to settle');
    assert.match(JSON.stringify(trusted.model.requests[0]), /mcp__project__echo/, 'the project server connected before the first request');
    assert.equal(markerLines(projectMarker).filter((l) => l.startsWith('started')).length, 1);
    await trusted.dispose();

    let offMarker = '';
    const off = await harnesses.start(justAnswer, [], {
      prepare: ({ agentDir }) => {
        offMarker = join(agentDir, 'off-mcp.log');
        writeMcpJson(join(agentDir, 'mcp.json'), { off: stubEntry(offMarker, { exposure: 'direct' }) });
        const settingsFile = join(agentDir, 'settings.json');
        const settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
        writeFileSync(settingsFile, JSON.stringify({ ...settings, extensions: ['-builtin:mcp'] }));
      },
    });
    await off.settledAfter(() => off.client.send('Hello.', 'prompt'), 'the run to settle');
    assert.doesNotMatch(JSON.stringify(off.model.requests[0]), /mcp__/);
    assert.deepEqual(markerLines(offMarker), [], 'the disabled built-in started no server');
  });
});
