/** The MCP servers list in the real worker: a stub stdio server's state and tools, Disable written to mcp.json, and its tool gone from the next request. */

import { strict as assert } from 'node:assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { useClientHarness } from './workerHarness.ts';

const stubServer = fileURLToPath(new URL('../fixtures/workspaces/mcp/.pi/stub-mcp-server.mjs', import.meta.url));

const twoAnswers: Scenario = {
  name: 'two-answers',
  steps: [
    { chunks: [{ text: 'One.' }], finish: 'stop' },
    { chunks: [{ text: 'Two.' }], finish: 'stop' },
  ],
} as Scenario;

const toolNames = (body: unknown): string[] => ((body as { tools?: { function?: { name?: string } }[] }).tools ?? []).map((t) => t.function?.name ?? '');

describe('MCP servers in the real worker (stub stdio server)', function () {
  this.timeout(90_000);
  const harnesses = useClientHarness();

  it('lists a user server with its tools, and disabling it writes enabled: false to mcp.json and drops its tool from the next request', async () => {
    const h = await harnesses.start(twoAnswers, [], {
      prepare: ({ agentDir }) => {
        mkdirSync(agentDir, { recursive: true });
        const entry = { command: process.execPath, args: [stubServer, join(agentDir, 'stub.log')], exposure: 'direct' };
        writeFileSync(join(agentDir, 'mcp.json'), JSON.stringify({ mcpServers: { stub: entry } }));
      },
    });
    await h.settledAfter(() => h.client.send('First', 'prompt'), 'the first run');
    assert.ok(toolNames(h.model.requests[0]).includes('mcp__stub__echo'), 'the first request offers the MCP tool');
    const before = (await h.client.ask('mcpServers', null)).servers;
    assert.deepEqual(
      before.map((s) => [s.name, s.source, s.state, s.tools]),
      [['stub', 'user', 'connected', ['mcp__stub__echo']]],
    );
    await h.client.ask('setMcpEnabled', { name: 'stub', enabled: false, inProject: false });
    const file = JSON.parse(readFileSync(join(h.agentDir, 'mcp.json'), 'utf8')) as { mcpServers: Record<string, { enabled?: boolean; command?: string }> };
    assert.equal(file.mcpServers.stub?.enabled, false);
    assert.equal(file.mcpServers.stub?.command, process.execPath, 'the rest of the entry is kept');
    assert.equal((await h.client.ask('mcpServers', null)).servers[0]?.state, 'disabled');
    await h.settledAfter(() => h.client.send('Second', 'prompt'), 'the second run');
    assert.ok(!toolNames(h.model.requests.at(-1)).includes('mcp__stub__echo'), 'the next request no longer offers it');
  });

  it('reads each server\u2019s state from Pi\u2019s MCP manager: a server that cannot start is failed, with Pi\u2019s error', async () => {
    const h = await harnesses.start(twoAnswers, [], {
      prepare: ({ agentDir }) => {
        mkdirSync(agentDir, { recursive: true });
        const good = { command: process.execPath, args: [stubServer, join(agentDir, 'stub.log')], exposure: 'direct' };
        const bad = { command: join(agentDir, 'no-such-server') };
        writeFileSync(join(agentDir, 'mcp.json'), JSON.stringify({ mcpServers: { stub: good, broken: bad } }));
      },
    });
    await h.settledAfter(() => h.client.send('First', 'prompt'), 'the first run');
    const servers = (await h.client.ask('mcpServers', null)).servers;
    const broken = servers.find((s) => s.name === 'broken');
    assert.equal(broken?.state, 'failed');
    assert.match(broken?.error ?? '', /no-such-server|ENOENT/);
    assert.equal(servers.find((s) => s.name === 'stub')?.state, 'connected');
    assert.deepEqual(await h.client.ask('reconnectMcp', { name: 'stub' }), {}, 'Restart reconnects the server through Pi');
    assert.match((await h.client.ask('reconnectMcp', { name: 'broken' })).failure ?? '', /no-such-server|ENOENT/);
    assert.match((await h.client.ask('signInMcp', { name: 'stub' })).failure ?? '', /OAuth/, 'a stdio server has no sign-in: Pi says so');
  });
});
