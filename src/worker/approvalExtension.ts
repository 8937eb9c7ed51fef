/**
 * The panel's own Pi extension for approvals (setting `piPanel.approval`): a `tool_call` hook that asks in the
 * chat's dialog card before a write, a command or any tool that can change things, and returns `block` with
 * the user's reason when denied, exactly as Pi's own gates do. "Allow for session" covers a tool (writes) or a
 * command prefix (bash) until the session closes.
 */

import type { ExtensionFactory } from '@earendil-works/pi-coding-agent';

export type ApprovalMode = 'off' | 'writes' | 'commands' | 'all';
export const APPROVAL_MODES: readonly ApprovalMode[] = ['off', 'writes', 'commands', 'all'];

/** The choices of the approval card, as SPEC §7 names them. */
export const ALLOW = 'Allow';
export const ALLOW_SESSION = 'Allow for session';
export const DENY = 'Deny';

/** How the extension asks; the worker's `ExtensionUi` implements it with the inline dialog card. */
export interface ApprovalAsker {
  /** A choice card with a message under the title; undefined when dismissed, cancelled or aborted. */
  choose(title: string, message: string, choices: readonly string[], signal: AbortSignal | undefined): Promise<string | undefined>;
  /** A one-line text card; undefined when dismissed. */
  input(title: string, placeholder: string, signal: AbortSignal | undefined): Promise<string | undefined>;
}

/** Tools that only read: never asked about. */
const READ_ONLY = new Set(['read', 'grep', 'find', 'ls']);
const WRITES = new Set(['edit', 'write']);
/** Commands whose first word says little on its own: the prefix keeps the subcommand too (`git status`). */
const RUNNERS = new Set(['git', 'npm', 'npx', 'pnpm', 'yarn', 'bun', 'cargo', 'go', 'make', 'docker', 'kubectl', 'python', 'python3', 'node', 'pip', 'uv']);
const PREVIEW_LINES = 40;

export type ToolCallDecision = { block: true; reason: string } | undefined;

export class Approvals {
  private readonly _mode: () => ApprovalMode;
  private readonly _asker: ApprovalAsker;
  private readonly _tools = new Set<string>();
  private readonly _prefixes = new Set<string>();

  constructor(mode: () => ApprovalMode, asker: ApprovalAsker) {
    this._mode = mode;
    this._asker = asker;
  }

  /** Forgets "Allow for session" answers (a new or another session). */
  reset(): void {
    this._tools.clear();
    this._prefixes.clear();
  }

  /** The extension to add to Pi's resource loader. */
  readonly factory: ExtensionFactory = (pi) => {
    pi.on('tool_call', (event, ctx) => this.decide(event.toolName, event.input, ctx.signal));
  };

  /** Whether the current mode asks before `toolName`. */
  asks(toolName: string): boolean {
    switch (this._mode()) {
      case 'off':
        return false;
      case 'writes':
        return WRITES.has(toolName);
      case 'commands':
        return toolName === 'bash';
      case 'all':
        return !READ_ONLY.has(toolName);
    }
  }

  /** Asks when the mode says so; resolves to Pi's `block` result when the call must not run. */
  async decide(toolName: string, input: unknown, signal: AbortSignal | undefined): Promise<ToolCallDecision> {
    if (!this.asks(toolName)) return undefined;
    const args = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
    const command = toolName === 'bash' && typeof args.command === 'string' ? args.command : undefined;
    const prefix = command !== undefined ? commandPrefix(command) : undefined;
    if (command !== undefined ? prefix !== undefined && this._prefixes.has(prefix) : this._tools.has(toolName)) return undefined;

    const { title, message } = describe(toolName, args, command, prefix);
    const choice = await this._asker.choose(title, message, [ALLOW, ALLOW_SESSION, DENY], signal);
    if (choice === ALLOW) return undefined;
    if (choice === ALLOW_SESSION) {
      if (command === undefined) this._tools.add(toolName);
      // A compound command (pipes, `;`, `$(…)`) has no prefix: "for session" then covers this exact command.
      else this._prefixes.add(prefix ?? `=${command}`);
      return undefined;
    }
    if (choice !== DENY)
      return { block: true, reason: signal?.aborted ? 'The run was cancelled before the user answered.' : 'The user dismissed the approval request.' };
    const reason = (await this._asker.input('Tell Pi why (optional)', 'Reason sent back to Pi', signal))?.trim();
    return { block: true, reason: reason ? `The user denied this tool call: ${reason}` : 'The user denied this tool call.' };
  }
}

/** The part of a simple command "Allow for session" covers; undefined for compound commands, which are never covered by a prefix. */
export function commandPrefix(command: string): string | undefined {
  const c = command.trim();
  if (!c || /[;&|`$<>()\n\\]/.test(c)) return undefined;
  const words = c.split(/\s+/);
  const first = words[0]!;
  const second = words[1];
  return RUNNERS.has(first) && second && !second.startsWith('-') ? `${first} ${second}` : first;
}

function describe(
  toolName: string,
  args: Record<string, unknown>,
  command: string | undefined,
  prefix: string | undefined,
): { title: string; message: string } {
  const path = typeof args.path === 'string' ? args.path : typeof args.file_path === 'string' ? args.file_path : undefined;
  if (command !== undefined) {
    const scope = prefix ? `Allow for session: every command starting with "${prefix}".` : 'Allow for session: this exact command.';
    return { title: 'Pi wants to run a command', message: `${command}\n\n${scope}` };
  }
  if (toolName === 'edit') {
    return { title: `Pi wants to edit ${path ?? 'a file'}`, message: `${clip(editPreview(args))}\n\nAllow for session: every edit.` };
  }
  if (toolName === 'write') {
    const content = typeof args.content === 'string' ? args.content : '';
    return {
      title: `Pi wants to write ${path ?? 'a file'}`,
      message: `${clip(
        content
          .split('\n')
          .map((l) => `+ ${l}`)
          .join('\n'),
      )}\n\nAllow for session: every write.`,
    };
  }
  let json = '';
  try {
    json = JSON.stringify(args, null, 2) ?? '';
  } catch {
    json = '(arguments not shown)';
  }
  return { title: `Pi wants to use the tool "${toolName}"`, message: `${clip(json)}\n\nAllow for session: every "${toolName}" call.` };
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

function clip(text: string): string {
  const lines = text.split('\n');
  return lines.length <= PREVIEW_LINES ? text : `${lines.slice(0, PREVIEW_LINES).join('\n')}\n… ${lines.length - PREVIEW_LINES} more lines`;
}
