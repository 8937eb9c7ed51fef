/** Which approval rule a tool call falls under: an allow only for exactly what an approval card showed, an ask or a deny wherever its words appear. */

import { strictestRule, type ApprovalRule } from '../shared/approvalRules.ts';
import { commandScope } from './commandPrefix.ts';

/**
 * The strictest rule for a call of `tool` (with `command` for a shell tool). A rule without `match` covers
 * every call of its tool. An allow with `match` covers a command only when the command's scope (the prefix or
 * exact command an approval card shows for "Allow for session") is that text, so it never covers a compound
 * command or more than was shown. An ask or deny with `match` errs the other way: its words anywhere in the
 * command, in order (after `sudo`, in a pipe, quoted), are enough.
 */
export function ruleFor(rules: readonly ApprovalRule[], tool: string, command: string | undefined): ApprovalRule | undefined {
  return strictestRule(rules.filter((r) => r.tool === tool && covers(r, command)));
}

function covers(rule: ApprovalRule, command: string | undefined): boolean {
  if (rule.match === undefined) return true;
  if (command === undefined) return false;
  if (rule.action === 'allow') return savedMatch(command) === rule.match;
  return containsWords(command, rule.match);
}

/** The text an "Always allow" saves for `command`: its prefix, or the command itself when only it can be covered. */
export function savedMatch(command: string): string {
  const scope = commandScope(command);
  return scope.kind === 'prefix' ? scope.prefix : scope.command;
}

/** Words as a shell might see them, generously: split at blanks, operators, brackets and quotes, a path's last part kept too. */
function words(text: string): string[] {
  return text.split(/[\s;&|()`{}<>'"\\]+|\$\(/).filter(Boolean);
}

function containsWords(command: string, match: string): boolean {
  const want = words(match);
  const have = words(command);
  if (!want.length) return false;
  const same = (got: string, w: string) => got === w || got.slice(got.lastIndexOf('/') + 1) === w;
  for (let i = 0; i + want.length <= have.length; i++) if (want.every((w, j) => same(have[i + j]!, w))) return true;
  return false;
}
