/**
 * The MCP servers Pi knows, read from where Pi reads them (the agent directory's mcp.json, the project's
 * `.pi/mcp.json` only in a trusted workspace), and their Enable/Disable written back there, as Pi's `/mcp` does.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { McpConfigServer } from './mcpState.ts';

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

/** An HTTP server without an Authorization header of its own signs in with OAuth (Pi's rule). */
const usesOAuth = (entry: Record<string, unknown>) =>
  typeof entry.url === 'string' && !Object.keys((entry.headers as Record<string, unknown> | undefined) ?? {}).some((h) => h.toLowerCase() === 'authorization');

/** Every server of both files, a project entry over the user's of the same name, as Pi reads them. */
export function configMcpServers(agentDir: string, cwd: string, trusted: boolean): McpConfigServer[] {
  const user = readMcp(userFile(agentDir)).mcpServers ?? {};
  const project = readMcp(projectFile(cwd)).mcpServers ?? {};
  const names = [...new Set([...Object.keys(user), ...Object.keys(project)])];
  return names.map((name) => {
    const own = project[name];
    const source: McpConfigServer['source'] = own && !isOverride(own) ? 'project' : 'user';
    // Pi reads the project's file only once the project is trusted: untrusted, its entries and overrides do nothing.
    const effective = { ...(user[name] ?? {}), ...(trusted ? (own ?? {}) : {}) };
    return { name, source, enabled: effective.enabled !== false, oauth: usesOAuth(effective), overriddenInProject: own !== undefined && isOverride(own) };
  });
}

/**
 * Enables or disables `name`: in the file that defines it, or (`inProject`, a user-level server, a trusted workspace)
 * as an override in the project's `.pi/mcp.json`. Keeps everything else in the file.
 */
export function setMcpEnabled(agentDir: string, cwd: string, name: string, enabled: boolean, inProject: boolean): void {
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
