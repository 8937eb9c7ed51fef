/** The MCP servers view's states: Pi's MCP manager's status text (its `/mcp` outside the TUI) read per server, merged with the config files. */

import type { McpServerView } from '../shared/wire/workerProtocol.ts';

/** What Pi's manager says of one server. */
export interface McpStatus {
  readonly state: 'connected' | 'connecting' | 'needsSignIn' | 'failed' | 'disconnected' | 'disabled';
  readonly toolCount?: number;
  readonly error?: string;
}

/** A server as the config files (mcpServers.ts) describe it. */
export interface McpConfigServer {
  readonly name: string;
  readonly source: 'user' | 'project';
  readonly enabled: boolean;
  readonly oauth: boolean;
  readonly overriddenInProject: boolean;
}

// Pi's `formatStatus`: `name: state[, N tools] (exposure)`, the error on the lines after, indented by four spaces.
// Server names hold only letters, digits, `_` and `-`, so Pi's own `config error: …` line never matches.
const SERVER_LINE = /^([A-Za-z0-9_-]+): (.*)$/;

function stateOf(text: string): McpStatus['state'] {
  if (text.startsWith('needs sign-in')) return 'needsSignIn';
  if (text.startsWith('disconnected')) return 'disconnected';
  if (text.startsWith('connected')) return 'connected';
  if (text.startsWith('disabled')) return 'disabled';
  // `starting` (no connection yet) and `connecting` are the same to the user; `closed` only follows a shutdown.
  if (text.startsWith('starting') || text.startsWith('connecting')) return 'connecting';
  return 'failed';
}

/** Each server in Pi's status text, by name. */
export function parseMcpStatus(text: string): Map<string, McpStatus> {
  const servers = new Map<string, McpStatus>();
  let last: { name: string; status: McpStatus; error: string[] } | undefined;
  const close = () => {
    if (last) servers.set(last.name, last.error.length ? { ...last.status, error: last.error.join('\n') } : last.status);
    last = undefined;
  };
  for (const line of text.split('\n')) {
    if (last && line.startsWith('    ')) {
      last.error.push(line.slice(4));
      continue;
    }
    close();
    const m = SERVER_LINE.exec(line);
    // `overridden: "name" registered by …` reports a shadowed registration, not a server.
    if (!m || (m[1] === 'overridden' && m[2]!.startsWith('"'))) continue;
    const rest = m[2]!;
    const state = stateOf(rest);
    const count = /^connected, (\d+) tools/.exec(rest);
    last = { name: m[1]!, status: count ? { state, toolCount: Number(count[1]) } : { state }, error: [] };
  }
  close();
  return servers;
}

/** The session's tool names are `mcp__<server>__<tool>`, with every character but letters, digits and `_` made `_`. */
const toolPrefix = (name: string) => `mcp__${name.replace(/[^A-Za-z0-9_]/g, '_')}__`;

/**
 * Every server, the config files' first, then those only Pi's manager knows (an extension's). `status`: undefined when
 * Pi's manager could not be asked (Restricted Mode, or an extension replaced `/mcp`); `tools`: every tool the session has.
 */
export function mcpServerViews(o: {
  config: readonly McpConfigServer[];
  status: ReadonlyMap<string, McpStatus> | undefined;
  tools: readonly string[];
  trusted: boolean;
}): McpServerView[] {
  const toolsOf = (name: string) => o.tools.filter((t) => t.startsWith(toolPrefix(name)));
  const fromConfig = o.config.map((c): McpServerView => {
    const tools = toolsOf(c.name);
    const reported = o.status?.get(c.name);
    const state: McpServerView['state'] = !o.trusted
      ? 'restricted'
      : !c.enabled
        ? 'disabled'
        : reported
          ? reported.state
          : o.status
            ? 'connecting'
            : tools.length
              ? 'connected'
              : 'notConnected';
    return {
      name: c.name,
      source: c.source,
      state,
      tools: state === 'disabled' ? [] : tools,
      overriddenInProject: c.overriddenInProject,
      ...(reported?.error && state === 'failed' ? { error: reported.error } : {}),
      ...(c.oauth ? { oauth: true } : {}),
    };
  });
  const known = new Set(o.config.map((c) => c.name));
  const fromExtensions = [...(o.trusted ? (o.status ?? new Map<string, McpStatus>()) : new Map<string, McpStatus>())]
    .filter(([name]) => !known.has(name))
    .map(
      ([name, s]): McpServerView => ({
        name,
        source: 'extension',
        state: s.state,
        tools: s.state === 'disabled' ? [] : toolsOf(name),
        overriddenInProject: false,
        ...(s.error && s.state === 'failed' ? { error: s.error } : {}),
        ...(s.state === 'needsSignIn' ? { oauth: true } : {}),
      }),
    );
  return [...fromConfig, ...fromExtensions];
}
