/**
 * The MCP servers Pi knows, read from where Pi reads them (the agent directory's mcp.json, the project's
 * `.pi/mcp.json` only in a trusted workspace), and their Enable/Disable written back there, as Pi's `/mcp` does.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { t } from '../shared/l10n.ts';
import { realScheduler } from '../shared/batcher.ts';
import type { CommandHandlers } from '../shared/wire/commands.ts';
import { errorText } from './agentSession.ts';
import { runMcpCommand } from './mcpManager.ts';
import { mcpServerViews, parseMcpStatus, type McpConfigServer } from './mcpState.ts';
import { within } from './within.ts';
import type { WorkerContext } from './workerContext.ts';

/** How long the MCP servers view waits for Pi's status of servers still connecting (the request's own bound is longer). */
const MCP_STATUS_WAIT_MS = 3_000;

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
function configMcpServers(agentDir: string, cwd: string, trusted: boolean): McpConfigServer[] {
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

/** What the MCP commands need besides the worker context: reopening the session so a change applies, the log. */
export interface McpTarget extends WorkerContext {
  /** Reopens the session (at once when idle, else when the run settles); false when it waits for the run. */
  reload(): Promise<boolean>;
  warn(message: string): void;
}

/** What one `/mcp` subcommand run through Pi's manager says: nothing when it went well, else why. */
function outcome(r: { readonly errors: readonly string[] } | undefined): { readonly failure?: string } {
  if (!r) return { failure: t("Pi's MCP support is not loaded in this chat (Restricted Mode, or an extension replaced it).") };
  return r.errors.length ? { failure: r.errors.join('\n') } : {};
}

/** The commands of the table (`COMMANDS`) about MCP servers (the MCP Servers view, Pi: MCP Servers). */
export function mcpCommands(target: McpTarget): CommandHandlers<'mcpServers' | 'setMcpEnabled' | 'restartMcp' | 'reconnectMcp' | 'signInMcp'> {
  return {
    mcpServers: async () => {
      const c = target.config();
      const s = await target.session();
      // Pi's `/mcp` answers once every server has connected or failed: a slow server shows as connecting meanwhile.
      const status = await within(
        realScheduler,
        runMcpCommand(s, '', false).catch((err: unknown) => {
          // A session closing meanwhile: the view falls back to the files and the session's tools.
          target.warn(`Reading Pi's MCP status failed: ${errorText(err)}`);
          return undefined;
        }),
        MCP_STATUS_WAIT_MS,
        () => ({ text: '', errors: [] }),
      );
      const tools = s.getAllTools?.().map((tool) => tool.name) ?? s.getActiveToolNames?.() ?? [];
      return {
        servers: mcpServerViews({
          config: configMcpServers(target.agentDir(), c.cwd, c.trusted),
          status: status && parseMcpStatus(status.text),
          tools,
          trusted: c.trusted,
        }),
      };
    },
    reconnectMcp: async ({ name }) => outcome(await runMcpCommand(await target.session(), `reconnect ${name}`, false)),
    // Shown in the chat too: the page's address (when no browser opens) and Pi's question for the redirected URL.
    signInMcp: async ({ name }) => outcome(await runMcpCommand(await target.session(), `login ${name}`, true)),
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
