/** Creates real Pi sessions for the first workspace folder, from Pi's own configuration. */

import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { readConfig } from './config.ts';
import { loadPi } from './piLoader.ts';
import type { SessionFactory } from './sessionController.ts';

function expandHome(p: string): string {
  return p === '~' ? os.homedir() : p.startsWith('~/') ? path.join(os.homedir(), p.slice(2)) : p;
}

/**
 * Where Pi keeps the sessions of `cwd` under `agentDir`. Mirrors Pi's own (unexported) rule so the panel
 * and the `pi` CLI share sessions, also when the agent directory comes from our setting.
 */
export function sessionDirFor(cwd: string, agentDir: string): string {
  const safe = `--${path.resolve(cwd).replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`;
  return path.join(path.resolve(agentDir), 'sessions', safe);
}

export function createPiSessionFactory(distDir: string): SessionFactory {
  return async ({ fresh }) => {
    const pi = loadPi(distDir);
    const config = readConfig();
    const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
    const cwd = folder ? folder.uri.fsPath : os.homedir();
    const agentDir = config.agentDir ? expandHome(config.agentDir) : pi.getAgentDir();
    const sessionDir = sessionDirFor(cwd, agentDir);
    const sessionManager = fresh ? pi.SessionManager.create(cwd, sessionDir) : pi.SessionManager.continueRecent(cwd, sessionDir);
    const trusted = vscode.workspace.isTrusted;
    const { session, modelFallbackMessage } = await pi.createAgentSession({
      cwd,
      agentDir,
      sessionManager,
      // An untrusted workspace gets a chat without tools: nothing there runs or writes.
      ...(trusted ? (config.tools.length ? { tools: [...config.tools] } : {}) : { noTools: 'all' as const }),
    });
    // Without any model that has credentials Pi still creates the session, with a placeholder model.
    const noModel = (await session.modelRuntime.getAvailable()).length === 0;
    const warnings = [
      noModel ? undefined : modelFallbackMessage,
      folder ? undefined : `No folder is open, so Pi works in your home directory (${cwd}).`,
      trusted ? undefined : 'This workspace is not trusted: Pi runs without tools here.',
    ].filter((w): w is string => Boolean(w));
    return { session, cwd, noModel, warning: warnings.length ? warnings.join(' ') : undefined };
  };
}
