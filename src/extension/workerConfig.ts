/** What the Pi worker needs from VS Code, read on the main thread: the workspace folder, trust and our settings. */

import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { WorkerConfig } from '../shared/wire/workerProtocol.ts';
import { readConfig } from './config.ts';
import { readApprovalRules } from './approvalRulesSetting.ts';

function expandHome(p: string): string {
  return p === '~' ? os.homedir() : p.startsWith('~/') ? path.join(os.homedir(), p.slice(2)) : p;
}

/**
 * The worker's configuration now; an empty agent directory lets Pi use its own default in the worker.
 * `worktree`: a worktree chat's folder, where its Pi works instead of the workspace.
 */
export function workerConfig(storageDir?: string, worktree?: string): WorkerConfig {
  const config = readConfig();
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
  const cwd = worktree ?? (folder ? folder.uri.fsPath : os.homedir());
  return {
    cwd,
    agentDir: config.agentDir ? expandHome(config.agentDir) : '',
    trusted: vscode.workspace.isTrusted,
    tools: config.tools,
    cwdNote: folder || worktree ? undefined : vscode.l10n.t('No folder is open, so Pi works in your home directory ({0}).', cwd),
    settleTimeoutMs: config.settleTimeoutMs,
    noResponseMs: config.noResponseMs,
    collapseThinking: config.collapseThinking,
    approval: config.approval,
    approvalRules: readApprovalRules().rules,
    checkpoints: config.checkpoints,
    vscodeTools: config.vscodeTools,
    diagnosticsAfterEdit: config.diagnosticsAfterEdit,
    ...(storageDir ? { storageDir } : {}),
  };
}
