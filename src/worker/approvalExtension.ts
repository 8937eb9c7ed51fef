/**
 * The panel's own Pi extension for approvals (setting `piPanel.approval`): a `tool_call` hook that asks in the
 * chat's dialog card before a write, a command or any tool that can change things, and returns `block` with
 * the user's reason when denied, exactly as Pi's own gates do. "Allow for session" covers a tool (writes) or a
 * command prefix (shell tools) until the session is replaced or closes; "Always allow" saves the same as a rule
 * (`piPanel.approvalRules`), and a rule that denies blocks without asking.
 */

import { t } from '../shared/l10n.ts';
import * as path from 'node:path';
import type { ExtensionFactory } from '@earendil-works/pi-coding-agent';
import { ruleText, type ApprovalRule } from '../shared/approvalRules.ts';
import { commandScope, scopeText, type CommandScope } from './commandPrefix.ts';
import { ruleFor, savedMatch } from './ruleMatch.ts';
import { isWithin, realPath, resolveToolPath } from './toolPath.ts';

export { commandPrefix } from './commandPrefix.ts';

export type ApprovalMode = 'off' | 'writes' | 'commands' | 'all';

/** The choices of the approval card: its buttons' `data-choice`, the English the worker answers with and e2e cases click by. */
export const ALLOW = 'Allow';
export const ALLOW_SESSION = 'Allow for session';
export const ALWAYS_ALLOW = 'Always allow';
export const DENY = 'Deny';

/** The user's answer to an approval card: the choice, and the optional reason typed into the card with Deny. */
export interface ApprovalAnswer {
  readonly choice: string;
  readonly reason?: string;
}

/** How the extension asks; the worker's `ExtensionUi` implements it with the inline dialog card. */
export interface ApprovalAsker {
  /** A choice card with a message under the title; undefined when dismissed, cancelled or aborted. */
  ask(title: string, message: string, choices: readonly string[], signal: AbortSignal | undefined): Promise<ApprovalAnswer | undefined>;
}

/** Tools that only read: never asked about. */
const READ_ONLY = new Set(['read', 'grep', 'find', 'ls']);
// `vscode_rename` (issue 37) changes files through the language server: a write like Pi's own.
const WRITES = new Set(['edit', 'write', 'vscode_rename']);
/** Pi's shell tools (`bash`, and `powershell` on Windows) and the names other extensions give theirs. */
const SHELL_TOOLS = new Set(['bash', 'powershell', 'pwsh', 'sh', 'zsh', 'shell', 'cmd', 'terminal', 'exec', 'run_command', 'run_shell_command']);

export type ToolCallDecision = { block: true; reason: string } | undefined;

/** A rule "Always allow" saves: the tool, and for a command the prefix or exact command the card showed. */
export interface SavedRule {
  readonly tool: string;
  readonly match?: string;
}

/** The rules in force (`piPanel.approvalRules`, read on the main thread) and where "Always allow" saves one. */
export interface RuleStore {
  rules(): readonly ApprovalRule[];
  save(rule: SavedRule): void;
}

const NO_RULES: RuleStore = { rules: () => [], save: () => undefined };

export class Approvals {
  private readonly _mode: () => ApprovalMode;
  private readonly _asker: ApprovalAsker;
  private readonly _cwd: () => string | undefined;
  private readonly _tools = new Set<string>();
  private readonly _prefixes = new Set<string>();
  private readonly _store: RuleStore;
  /** Rules saved by "Always allow" that the settings may not have brought back yet: they apply at once. */
  private _saved: ApprovalRule[] = [];

  /** `cwd`: the workspace folder, against which file paths resolve as Pi's tools resolve them. */
  constructor(mode: () => ApprovalMode, asker: ApprovalAsker, cwd: () => string | undefined = () => undefined, store: RuleStore = NO_RULES) {
    this._mode = mode;
    this._asker = asker;
    this._cwd = cwd;
    this._store = store;
  }

  /**
   * The settings' rules reached the worker: a saved rule they now hold is theirs from here on (removing it there
   * ends it); one they do not hold yet is kept, as the settings may still be being written.
   */
  rulesChanged(): void {
    const rules = this._store.rules();
    this._saved = this._saved.filter((s) => !rules.some((r) => r.source === 'user' && r.action === 'allow' && r.tool === s.tool && r.match === s.match));
  }

  /** Forgets "Allow for session" answers (a new or another session). */
  reset(): void {
    this._tools.clear();
    this._prefixes.clear();
  }

  /**
   * The extension to add to Pi's resource loader. Pi calls it for every session it builds (new, resume,
   * import, fork, reload), so a grant never outlives the session it was given in.
   */
  readonly factory: ExtensionFactory = (pi) => {
    this.reset();
    pi.on('tool_call', (event, ctx) => this.decide(event.toolName, event.input, ctx.signal));
  };

  /** Whether the current mode asks before `toolName` (called with `input`: a tool taking a command is a shell tool). */
  asks(toolName: string, input?: unknown): boolean {
    const mode = this._mode();
    switch (mode) {
      case 'off':
        return false;
      case 'writes':
        return WRITES.has(toolName);
      case 'commands':
        return SHELL_TOOLS.has(toolName) || shellCommand(input) !== undefined;
      case 'all':
        return !READ_ONLY.has(toolName);
      default: {
        const never: never = mode;
        return never;
      }
    }
  }

  /** Asks when the mode says so; resolves to Pi's `block` result when the call must not run. */
  async decide(toolName: string, input: unknown, signal: AbortSignal | undefined): Promise<ToolCallDecision> {
    const args = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
    const command = shellCommand(args);
    const rule = ruleFor([...this._store.rules(), ...this._saved], toolName, command);
    // l10n-ignore: for Pi (the model), which reads English; the tool card shows it to the user too
    if (rule?.action === 'deny') return { block: true, reason: `Blocked by the approval rule ${ruleText(rule)} (${ruleWhere(rule)}).` };
    if (rule?.action === 'allow') return undefined;
    const ruleAsks = rule?.action === 'ask';
    if (!ruleAsks && !this.asks(toolName, input)) return undefined;
    const scope = command !== undefined ? commandScope(command) : undefined;
    const key = scope ? `${toolName}\u0000${scope.kind === 'prefix' ? `prefix:${scope.prefix}` : `exact:${scope.command}`}` : undefined;
    // An ask rule asks every time: a session grant does not answer it.
    if (!ruleAsks && (key !== undefined ? this._prefixes.has(key) : this._tools.has(toolName))) return undefined;

    const described = this._describe(toolName, args, command, scope);
    const { title } = described;
    const message = ruleAsks
      ? described.message
      : `${described.message}\n${t('Always allow: the same, kept as a rule in your user settings (Pi: Manage Approval Rules removes it).')}`;
    // Under an ask rule a saved allow would never apply (ask beats allow), so it is not offered.
    const choices = ruleAsks ? [ALLOW, ALLOW_SESSION, DENY] : [ALLOW, ALLOW_SESSION, ALWAYS_ALLOW, DENY];
    const answer = await this._asker.ask(title, message, choices, signal);
    const choice = answer?.choice;
    if (choice === ALLOW) return undefined;
    if (choice === ALWAYS_ALLOW && !ruleAsks) {
      const saved: SavedRule = command !== undefined ? { tool: toolName, match: savedMatch(command) } : { tool: toolName };
      this._saved.push({ ...saved, action: 'allow', source: 'user', index: 0 });
      this._store.save(saved);
      return undefined;
    }
    if (choice === ALLOW_SESSION) {
      if (key === undefined) this._tools.add(toolName);
      else this._prefixes.add(key);
      return undefined;
    }
    // l10n-ignore: the reasons below are for Pi (the model), which reads English
    if (choice !== DENY)
      return { block: true, reason: signal?.aborted ? 'The run was cancelled before the user answered.' : 'The user dismissed the approval request.' };
    const reason = answer?.reason?.trim();
    // l10n-ignore: for Pi (the model)
    return { block: true, reason: reason ? `The user denied this tool call: ${reason}` : 'The user denied this tool call.' };
  }

  private _describe(
    toolName: string,
    args: Record<string, unknown>,
    command: string | undefined,
    scope: CommandScope | undefined,
  ): { title: string; message: string } {
    if (command !== undefined && scope) {
      const title = toolName === 'bash' ? t('Pi wants to run a command') : t('Pi wants to run a command with the tool "{0}"', toolName);
      return { title, message: `${command}\n\n${scopeText(scope)}` };
    }
    const given = typeof args.path === 'string' ? args.path : typeof args.file_path === 'string' ? args.file_path : undefined;
    if (toolName === 'edit' || toolName === 'write') {
      const target = given !== undefined ? this._target(given) : t('a file');
      if (toolName === 'edit') return { title: t('Pi wants to edit {0}', target), message: `${editPreview(args)}\n\n${t('Allow for session: every edit.')}` };
      const content = typeof args.content === 'string' ? args.content : '';
      return {
        title: t('Pi wants to write {0}', target),
        message: `${content
          .split('\n')
          .map((l) => `+ ${l}`)
          .join('\n')}\n\n${t('Allow for session: every write.')}`,
      };
    }
    let json = '';
    try {
      json = JSON.stringify(args, null, 2) ?? '';
    } catch {
      json = t('(arguments not shown)');
    }
    return { title: t('Pi wants to use the tool "{0}"', toolName), message: `${json}\n\n${t('Allow for session: every "{0}" call.', toolName)}` };
  }

  /**
   * The file a write lands in, as Pi resolves the path and the file system follows symlinks: relative to
   * the workspace when inside it, else absolute and marked, with the path as given when it reads otherwise.
   */
  private _target(given: string): string {
    const cwd = this._cwd();
    if (!cwd) return given;
    const root = realPath(path.resolve(cwd));
    const file = realPath(resolveToolPath(given, cwd));
    if (!isWithin(root, file)) return t('{0} (outside the workspace; given as {1})', file, given);
    const rel = path.relative(root, file).split(path.sep).join('/');
    return rel === given ? rel : t('{0} (given as {1})', rel, given);
  }
}

/** Where a rule is set, for the reason a call was blocked. */
function ruleWhere(rule: ApprovalRule): string {
  // l10n-ignore: for Pi (the model)
  return rule.index > 0 ? `rule ${rule.index} in ${rule.source} settings` : 'just saved';
}

/** The command a shell tool's arguments carry (`command`, or `cmd` / `script` in other extensions' tools). */
function shellCommand(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const args = input as Record<string, unknown>;
  for (const k of ['command', 'cmd', 'script']) if (typeof args[k] === 'string') return args[k];
  return undefined;
}

/** An edit's replacements as −/+ lines. */
function editPreview(args: Record<string, unknown>): string {
  const edits = Array.isArray(args.edits) ? args.edits : [args];
  const out: string[] = [];
  for (const e of edits as Record<string, unknown>[]) {
    if (typeof e !== 'object' || e === null) continue;
    if (out.length) out.push('⋯');
    if (typeof e.oldText === 'string') out.push(...e.oldText.split('\n').map((l) => `- ${l}`));
    if (typeof e.newText === 'string') out.push(...e.newText.split('\n').map((l) => `+ ${l}`));
  }
  return out.join('\n');
}
