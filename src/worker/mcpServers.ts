/**
 * The MCP servers Pi knows, read from where Pi reads them (the agent directory's mcp.json, the project's
 * `.pi/mcp.json` only in a trusted workspace), and their Enable/Disable written back there, as Pi's `/mcp` does.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CommandHandlers } from '../shared/wire/commands.ts';
import type { McpServerView } from '../shared/wire/workerProtocol.ts';
import type { WorkerContext } from './workerContext.ts';

type McpFile = { mcpServers?: Record<string, Record<string, unknown>> } & Record<string, unknown>;

function readMcp(file: string): McpFile {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as McpFile) : {};
  } catch {
    return {};
  }
}

const userFile = (agentDir: string) => path.join(agentDir, 'mcp.json');
const projectFile = (cwd: string) => path.join(cwd, '.pi', 'mcp.json');

/** Whether an entry only overrides a user-level server's switches (no command, url or type of its own). */
const isOverride = (entry: Record<string, unknown>) => entry.command === undefined && entry.url === undefined && entry.type === undefined;

/** Every server of both files, a project entry over the user's of the same name; `tools`: the session's tools by name. */
function listMcpServers(agentDir: string, cwd: string, trusted: boolean, tools: readonly string[]): McpServerView[] {
  const user = readMcp(userFile(agentDir)).mcpServers ?? {};
  const project = readMcp(projectFile(cwd)).mcpServers ?? {};
  const names = [...new Set([...Object.keys(user), ...Object.keys(project)])];
  return names.map((name) => {
    const own = project[name];
    const source: McpServerView['source'] = own && !isOverride(own) ? 'project' : 'user';
    // Pi reads the project's file only once the project is trusted: untrusted, its entries and overrides do nothing.
    const effective = { ...(user[name] ?? {}), ...(trusted ? (own ?? {}) : {}) };
    const enabled = effective.enabled !== false;
    const serverTools = tools.filter((t) => t.startsWith(`mcp__${name}__`));
    const state: McpServerView['state'] =
      source === 'project' && !trusted ? 'restricted' : !enabled ? 'disabled' : serverTools.length ? 'connected' : 'notConnected';
    return { name, source, state, tools: serverTools, overriddenInProject: own !== undefined && isOverride(own) };
  });
}

/**
 * Enables or disables `name`: in the file that defines it, or (`inProject`, a user-level server, a trusted workspace)
 * as an override in the project's `.pi/mcp.json`. Keeps everything else in the file.
 */
function setMcpEnabled(agentDir: string, cwd: string, name: string, enabled: boolean, inProject: boolean): void {
  const projectPath = projectFile(cwd);
  const project = readMcp(projectPath);
  const definedInProject = project.mcpServers?.[name] !== undefined && !isOverride(project.mcpServers[name]!);
  const file = inProject || definedInProject ? projectPath : userFile(agentDir);
  const config = file === projectPath ? project : readMcp(file);
  const servers = { ...(config.mcpServers ?? {}) };
  if (file === userFile(agentDir) && servers[name] === undefined) throw new Error(`no MCP server "${name}" in ${file}`);
  servers[name] = { ...(servers[name] ?? {}), enabled };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ ...config, mcpServers: servers }, null, 2) + '\n');
}

/** What the MCP commands need besides the worker context: reopening the session so a change applies. */
export interface McpTarget extends WorkerContext {
  /** Reopens the session (at once when idle, else when the run settles); false when it waits for the run. */
  reload(): Promise<boolean>;
}

/** The commands of the table (`COMMANDS`) about MCP servers (Pi: MCP Servers). */
export function mcpCommands(target: McpTarget): CommandHandlers<'mcpServers' | 'setMcpEnabled' | 'restartMcp'> {
  return {
    mcpServers: async () => {
      const c = target.config();
      const s = await target.session();
      return { servers: listMcpServers(target.agentDir(), c.cwd, c.trusted, s.getActiveToolNames?.() ?? []) };
    },
    setMcpEnabled: async ({ name, enabled, inProject }) => {
      const c = target.config();
      // Restricted Mode: the project's file is the folder's, which Pi does not read and the panel does not write.
      if (inProject && !c.trusted) throw new Error('This workspace is not trusted: Pi reads no project MCP settings here.');
      setMcpEnabled(target.agentDir(), c.cwd, name, enabled, inProject);
      await target.reload();
    },
    restartMcp: async () => ({ reloaded: await target.reload() }),
  };
}
