/** The effective `piPanel.approval`: the strictest of the values set at each level, so a folder's settings can ask more but never less. */

export type ApprovalLevel = 'off' | 'writes' | 'commands' | 'all';

/** What each level asks about; `all` asks about everything the others do. */
const ASKS: Readonly<Record<ApprovalLevel, readonly string[]>> = {
  off: [],
  writes: ['writes'],
  commands: ['commands'],
  all: ['writes', 'commands', 'other'],
};

/** One setting value: unknown text asks about everything rather than nothing (a typo must not switch approvals off). */
function approvalLevelOf(v: unknown): ApprovalLevel {
  if (v === undefined || v === 'off') return 'off';
  return v === 'writes' || v === 'commands' || v === 'all' ? v : 'all';
}

/**
 * The level that asks about everything any of `values` (user, workspace, folder; unset ones undefined) asks
 * about: `writes` with `commands` is `all`, and `off` in a repository's `.vscode/settings.json` changes
 * nothing when the user asked for more.
 */
export function strictestApproval(values: readonly unknown[]): ApprovalLevel {
  const asked = new Set(values.flatMap((v) => ASKS[approvalLevelOf(v)]));
  if (asked.has('other') || (asked.has('writes') && asked.has('commands'))) return 'all';
  if (asked.has('writes')) return 'writes';
  return asked.has('commands') ? 'commands' : 'off';
}
