/** Creates real Pi sessions for the first workspace folder, from Pi's own configuration and our settings. */

import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { readConfig, type PanelConfig } from './config.ts';
import { loadPi } from './piLoader.ts';
import { createPiSession } from './piSessions.ts';
import type { SessionFactory } from './sessionController.ts';

function expandHome(p: string): string {
  return p === '~' ? os.homedir() : p.startsWith('~/') ? path.join(os.homedir(), p.slice(2)) : p;
}

/** The workspace folder Pi works in and the agent directory it reads, from the window and our settings. */
export function piLocation(distDir: string, config: PanelConfig = readConfig()): { cwd: string; agentDir: string; hasFolder: boolean } {
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
  return {
    cwd: folder ? folder.uri.fsPath : os.homedir(),
    agentDir: config.agentDir ? expandHome(config.agentDir) : loadPi(distDir).getAgentDir(),
    hasFolder: folder !== undefined,
  };
}

export function createPiSessionFactory(distDir: string): SessionFactory {
  return async ({ fresh, open }) => {
    const pi = loadPi(distDir);
    const config = readConfig();
    const { cwd, agentDir, hasFolder } = piLocation(distDir, config);
    return createPiSession(pi, {
      cwd,
      agentDir,
      fresh,
      open,
      trusted: vscode.workspace.isTrusted,
      tools: config.tools,
      cwdNote: hasFolder ? undefined : `No folder is open, so Pi works in your home directory (${cwd}).`,
    });
  };
}
