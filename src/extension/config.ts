/** The extension's settings (`piPanel.*`), read in one place with their defaults. */

import * as vscode from 'vscode';

export interface PanelConfig {
  /** Pi's agent directory; empty means Pi's default (`PI_CODING_AGENT_DIR` or `~/.pi/agent`). */
  readonly agentDir: string;
  /** Tool names or patterns to enable; empty means Pi's defaults. */
  readonly tools: readonly string[];
  readonly settleTimeoutMs: number;
  readonly noResponseMs: number;
  readonly collapseThinking: boolean;
  readonly approval: 'off' | 'writes' | 'commands' | 'all';
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
    approval: approvalOf(c.get<string>('approval', 'off')),
  };
}

/** An unknown value asks about everything rather than nothing: a typo must not switch approvals off. */
function approvalOf(v: string | undefined): PanelConfig['approval'] {
  if (v === undefined || v === 'off') return 'off';
  return v === 'writes' || v === 'commands' || v === 'all' ? v : 'all';
}
