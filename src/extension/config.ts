/** The extension's settings (`piPanel.*`), read in one place with their defaults. */

import * as vscode from 'vscode';
import { strictestApproval } from '../shared/approvalSetting.ts';
import { checkpointsOn } from '../shared/checkpointsSetting.ts';

export interface PanelConfig {
  /** Pi's agent directory; empty means Pi's default (`PI_CODING_AGENT_DIR` or `~/.pi/agent`). */
  readonly agentDir: string;
  /** Tool names or patterns to enable; empty means Pi's defaults. */
  readonly tools: readonly string[];
  readonly settleTimeoutMs: number;
  readonly noResponseMs: number;
  readonly collapseThinking: boolean;
  readonly approval: 'off' | 'writes' | 'commands' | 'all';
  /** Checkpoints of the workspace before each message. */
  readonly checkpoints: boolean;
  /** Pi gets the `vscode_*` tools. */
  readonly vscodeTools: boolean;
  /** New errors after Pi's edits are appended to the tool's result. */
  readonly diagnosticsAfterEdit: boolean;
}

export function readConfig(): PanelConfig {
  const c = vscode.workspace.getConfiguration('piPanel');
  const seconds = (key: string, fallback: number) => {
    const v = c.get<number>(key, fallback);
    return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v * 1000 : fallback * 1000;
  };
  return {
    agentDir: (c.get<string>('agentDir', '') ?? '').trim(),
    tools: (c.get<string[]>('tools', []) ?? []).filter((t) => typeof t === 'string' && t.trim()),
    settleTimeoutMs: seconds('cancelTimeoutSeconds', 5),
    noResponseMs: seconds('noResponseSeconds', 60),
    collapseThinking: c.get<boolean>('collapseThinking', true) !== false,
    approval: approvalSetting(c),
    checkpoints: checkpointsSetting(c),
    vscodeTools: c.get<boolean>('vscodeTools', true) !== false,
    diagnosticsAfterEdit: c.get<boolean>('diagnosticsAfterEdit', true) !== false,
  };
}

/**
 * `piPanel.approval` as the strictest of its user, workspace and folder values: a repository's
 * `.vscode/settings.json` can ask for more approvals, never for fewer.
 */
function approvalSetting(c: vscode.WorkspaceConfiguration): PanelConfig['approval'] {
  const v = c.inspect<string>('approval');
  return strictestApproval([v?.globalValue, v?.workspaceValue, v?.workspaceFolderValue]);
}

/** `piPanel.checkpoints`: a workspace or folder value may turn checkpoints on, but only the user's own setting turns them off. */
function checkpointsSetting(c: vscode.WorkspaceConfiguration): boolean {
  const v = c.inspect<boolean>('checkpoints');
  return checkpointsOn({ user: v?.globalValue, workspace: v?.workspaceValue, folder: v?.workspaceFolderValue });
}

/** `piPanel.notify`: when a chat out of sight that finishes, fails or waits says so in a notification. */
export type NotifySetting = 'off' | 'whenUnfocused' | 'always';

export function notifySetting(): NotifySetting {
  const v = vscode.workspace.getConfiguration('piPanel').get<string>('notify', 'whenUnfocused');
  return v === 'off' || v === 'always' ? v : 'whenUnfocused';
}

/** `piPanel.idleChatMinutes` in ms (default 15 min): how long a chat's worker stays idle before it stops; undefined (0) keeps workers running. */
export function idleChatMs(): number | undefined {
  const v = vscode.workspace.getConfiguration('piPanel').get<number>('idleChatMinutes', 15);
  const minutes = typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 15;
  return minutes > 0 ? minutes * 60_000 : undefined;
}
