/** `piPanel.approvalRules` read safely: each rule checked, a workspace's rules limited to ask and deny, and every rule refused named with why. */

import { t } from './l10n.ts';

export type RuleAction = 'allow' | 'ask' | 'deny';

/** Where a rule was set: the user's own settings, or a workspace's (or folder's), which only ever asks more. */
export type RuleSource = 'user' | 'workspace' | 'folder';

/** One rule in force: a tool, optionally the command it covers, and what happens to a matching call. */
export interface ApprovalRule {
  readonly tool: string;
  /** For a shell tool, the command prefix (or exact command) the rule covers; absent covers every call of the tool. */
  readonly match?: string;
  readonly action: RuleAction;
  readonly source: RuleSource;
  /** The rule's place (from 1) in its settings' list, to name it. */
  readonly index: number;
}

/** A rule that is not in force, and why. */
export interface RuleProblem {
  readonly source: RuleSource;
  readonly index: number;
  readonly reason: string;
}

/** The rules in force and those refused. */
export interface ParsedRules {
  readonly rules: readonly ApprovalRule[];
  readonly problems: readonly RuleProblem[];
}

const ACTIONS: readonly string[] = ['allow', 'ask', 'deny'];
const KEYS = new Set(['tool', 'match', 'action']);
/** A tool name as Pi and its extensions spell them. */
const TOOL_NAME = /^[A-Za-z0-9_.:-]{1,100}$/;
const MAX_MATCH = 2000;
const MAX_RULES = 500;

/**
 * One level's list. A rule that is not exactly `{ tool, match?, action }` is refused whole, never read
 * loosely: a typo such as `macth` would otherwise turn a narrow allow into one for every call.
 */
export function parseRules(value: unknown, source: RuleSource): ParsedRules {
  if (value === undefined || value === null) return { rules: [], problems: [] };
  if (!Array.isArray(value)) return { rules: [], problems: [{ source, index: 0, reason: t('the setting is not a list of rules') }] };
  const rules: ApprovalRule[] = [];
  const problems: RuleProblem[] = [];
  value.slice(0, MAX_RULES).forEach((raw: unknown, i) => {
    const index = i + 1;
    const reason = ruleProblem(raw, source);
    if (reason !== undefined) {
      problems.push({ source, index, reason });
      return;
    }
    const r = raw as { tool: string; match?: string; action: RuleAction };
    rules.push({ tool: r.tool, ...(r.match !== undefined && r.match !== '*' ? { match: r.match } : {}), action: r.action, source, index });
  });
  if (value.length > MAX_RULES) problems.push({ source, index: MAX_RULES + 1, reason: t('more than {0} rules; the rest are ignored', MAX_RULES) });
  return { rules, problems };
}

function ruleProblem(raw: unknown, source: RuleSource): string | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return t('not an object like {"tool": "bash", "match": "npm test", "action": "allow"}');
  const r = raw as Record<string, unknown>;
  const unknown = Object.keys(r).filter((k) => !KEYS.has(k));
  if (unknown.length) return t('unknown field {0}', unknown.map((k) => JSON.stringify(k)).join(', '));
  if (typeof r.tool !== 'string' || !TOOL_NAME.test(r.tool)) return t('"tool" is not a tool name');
  if (typeof r.action !== 'string' || !ACTIONS.includes(r.action)) return t('"action" is not "allow", "ask" or "deny"');
  if (r.match !== undefined && (typeof r.match !== 'string' || !r.match.trim() || r.match.length > MAX_MATCH)) return t('"match" is not a non-empty command');
  if (r.action === 'allow' && source !== 'user') return t("a workspace's rules may only ask or deny, never allow");
  return undefined;
}

/**
 * The rules of every level together (user, workspace, folder values of the setting). Nothing a workspace sets
 * can allow: its allow rules are refused, and its ask and deny rules beat a user's allow (see `strictestRule`).
 */
export function mergeRules(levels: { readonly user?: unknown; readonly workspace?: unknown; readonly folder?: unknown }): ParsedRules {
  const parts = [parseRules(levels.user, 'user'), parseRules(levels.workspace, 'workspace'), parseRules(levels.folder, 'folder')];
  return { rules: parts.flatMap((p) => p.rules), problems: parts.flatMap((p) => p.problems) };
}

const STRICTNESS: Readonly<Record<RuleAction, number>> = { allow: 0, ask: 1, deny: 2 };

/** Of the rules that match a call, the strictest (deny over ask over allow); the first of equals. */
export function strictestRule(matching: readonly ApprovalRule[]): ApprovalRule | undefined {
  let best: ApprovalRule | undefined;
  for (const r of matching) if (!best || STRICTNESS[r.action] > STRICTNESS[best.action]) best = r;
  return best;
}

/** A rule as the user wrote it, and where: for notices, the tool card of a denied call and the Manage list. */
export function ruleText(rule: Pick<ApprovalRule, 'tool' | 'match' | 'action'>): string {
  return JSON.stringify({ tool: rule.tool, ...(rule.match !== undefined ? { match: rule.match } : {}), action: rule.action });
}

/** Which settings a rule is in, for a sentence. */
export function sourceText(source: RuleSource): string {
  switch (source) {
    case 'user':
      return t('user settings');
    case 'workspace':
      return t('workspace settings');
    case 'folder':
      return t('folder settings');
    default: {
      const never: never = source;
      return never;
    }
  }
}

/** A refused rule, for the notice that names it. */
export function problemText(p: RuleProblem): string {
  if (p.index === 0) return t('piPanel.approvalRules in {0} is ignored: {1}.', sourceText(p.source), p.reason);
  return t('Rule {0} of piPanel.approvalRules in {1} is ignored: {2}.', p.index, sourceText(p.source), p.reason);
}
