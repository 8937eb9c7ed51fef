/** The MCP servers view's states: Pi's `/mcp` status text read per server, then merged with what the config files say. */

import assert from 'node:assert/strict';
import { mcpItemContext } from '../../src/shared/mcpTree.ts';
import type { McpServerView } from '../../src/shared/wire/workerProtocol.ts';
import { mcpServerViews, parseMcpStatus, type McpConfigServer } from '../../src/worker/mcpState.ts';

const STATUS = [
  'stub: connected, 2 tools (direct)',
  'docs: needs sign-in, run /mcp login docs (codemode)',
  'broken: failed (codemode)',
  '    spawn nosuch ENOENT',
  '    stderr: boom',
  'off: disabled (codemode)',
  'slow: connecting (codemode)',
  'flaky: disconnected, reconnects on next call (direct)',
  'jira: connected, 1 tools (direct)',
  'config error: bad: "command" must be a string',
  'overridden: "dup" registered by /ext/a.ts is overridden by "dup" in /home/u/.pi/agent/mcp.json',
].join('\n');

const user = (name: string, extra: Partial<McpConfigServer> = {}): McpConfigServer => ({
  name,
  source: 'user',
  enabled: true,
  oauth: false,
  overriddenInProject: false,
  ...extra,
});

describe('MCP servers state', () => {
  it('reads each server of Pi\u2019s status text with its state, tool count and error lines', () => {
    const status = parseMcpStatus(STATUS);
    assert.deepEqual(status.get('stub'), { state: 'connected', toolCount: 2 });
    assert.deepEqual(status.get('docs'), { state: 'needsSignIn' });
    assert.deepEqual(status.get('broken'), { state: 'failed', error: 'spawn nosuch ENOENT\nstderr: boom' });
    assert.deepEqual(status.get('off'), { state: 'disabled' });
    assert.deepEqual(status.get('slow'), { state: 'connecting' });
    assert.deepEqual(status.get('flaky'), { state: 'disconnected' });
    assert.equal(status.has('config error'), false);
    assert.equal(status.has('overridden'), false);
  });

  it('reads "no servers configured" as no server', () => {
    assert.equal(parseMcpStatus('No MCP servers configured. Add them to /a/mcp.json or .pi/mcp.json.').size, 0);
  });

  it('takes each state from Pi\u2019s manager and the tools from the session, named as Pi names them', () => {
    const views = mcpServerViews({
      config: [user('stub'), user('docs', { oauth: true }), user('broken'), user('dev-radius')],
      status: parseMcpStatus(`${STATUS}\ndev-radius: connected, 1 tools (direct)`),
      tools: ['read', 'mcp__stub__echo', 'mcp__stub__add', 'mcp__dev_radius__ping', 'mcp__jira__find'],
      trusted: true,
    });
    const byName = new Map(views.map((v) => [v.name, v]));
    assert.deepEqual(byName.get('stub')?.tools, ['mcp__stub__echo', 'mcp__stub__add']);
    assert.equal(byName.get('stub')?.state, 'connected');
    assert.equal(byName.get('docs')?.state, 'needsSignIn');
    assert.equal(byName.get('docs')?.oauth, true);
    assert.equal(byName.get('broken')?.state, 'failed');
    assert.equal(byName.get('broken')?.error, 'spawn nosuch ENOENT\nstderr: boom');
    assert.deepEqual(byName.get('dev-radius')?.tools, ['mcp__dev_radius__ping']);
  });

  it('lists a server only Pi\u2019s manager knows (an extension registered it) as the extension\u2019s', () => {
    const views = mcpServerViews({ config: [], status: parseMcpStatus('jira: connected, 1 tools (direct)'), tools: ['mcp__jira__find'], trusted: true });
    assert.deepEqual(
      views.map((v) => [v.name, v.source, v.state, v.tools]),
      [['jira', 'extension', 'connected', ['mcp__jira__find']]],
    );
  });

  it('says disabled for a server switched off in its file, whatever the manager last said', () => {
    const views = mcpServerViews({
      config: [user('stub', { enabled: false })],
      status: parseMcpStatus('stub: connected, 2 tools (direct)'),
      tools: [],
      trusted: true,
    });
    assert.equal(views[0]?.state, 'disabled');
  });

  it('says restricted for every server in Restricted Mode: Pi starts none there', () => {
    const views = mcpServerViews({ config: [user('stub'), { ...user('proj'), source: 'project' }], status: undefined, tools: [], trusted: false });
    assert.deepEqual(
      views.map((v) => v.state),
      ['restricted', 'restricted'],
    );
  });

  it('says connecting, not failed, for an enabled server the manager has not reported yet', () => {
    const views = mcpServerViews({ config: [user('stub')], status: new Map(), tools: [], trusted: true });
    assert.equal(views[0]?.state, 'connecting');
  });

  it('falls back to the session\u2019s tools when Pi\u2019s manager is not there (its /mcp replaced)', () => {
    const views = mcpServerViews({ config: [user('stub'), user('other')], status: undefined, tools: ['mcp__stub__echo'], trusted: true });
    assert.deepEqual(
      views.map((v) => v.state),
      ['connected', 'notConnected'],
    );
  });
});

describe('MCP servers view actions', () => {
  const view = (extra: Partial<McpServerView>): McpServerView => ({
    name: 's',
    source: 'user',
    state: 'connected',
    tools: [],
    overriddenInProject: false,
    ...extra,
  });

  it('offers Disable, the project override and Restart for a connected user server', () => {
    assert.equal(mcpItemContext(view({})), ':mcpServer:enabled:userServer:startable:');
  });

  it('offers Enable, and no Restart, for a disabled server', () => {
    assert.equal(mcpItemContext(view({ state: 'disabled', source: 'project' })), ':mcpServer:disabled:');
  });

  it('offers Sign In for an OAuth server that needs it', () => {
    assert.match(mcpItemContext(view({ state: 'needsSignIn', oauth: true })), /:oauth:/);
  });

  it('offers nothing in Restricted Mode, and no Enable/Disable for an extension\u2019s server', () => {
    assert.equal(mcpItemContext(view({ state: 'restricted', oauth: true })), ':mcpServer:');
    assert.equal(mcpItemContext(view({ source: 'extension' })), ':mcpServer:startable:');
  });
});
