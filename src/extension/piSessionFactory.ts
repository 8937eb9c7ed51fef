/** Creates real Pi sessions for the first workspace folder, from Pi's own configuration and our settings. */

import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { readConfig } from './config.ts';
import { loadPi } from './piLoader.ts';
import { createPiSession } from './piSessions.ts';
import type { SessionFactory } from './sessionController.ts';

function expandHome(p: string): string {
  return p === '~' ? os.homedir() : p.startsWith('~/') ? path.join(os.homedir(), p.slice(2)) : p;
}

export function createPiSessionFactory(distDir: string): SessionFactory {
  return async ({ fresh }) => {
    const pi = loadPi(distDir);
    const config = readConfig();
    const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
    const cwd = folder ? folder.uri.fsPath : os.homedir();
    return createPiSession(pi, {
      cwd,
      agentDir: config.agentDir ? expandHome(config.agentDir) : pi.getAgentDir(),
      fresh,
      trusted: vscode.workspace.isTrusted,
      tools: config.tools,
      cwdNote: folder ? undefined : `No folder is open, so Pi works in your home directory (${cwd}).`,
    });
  };
}
