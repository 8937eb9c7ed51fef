/**
 * Pi's MCP manager, asked through its own `/mcp` command as Pi runs it outside the TUI: the status of every server
 * (`/mcp`), one server reconnected (`/mcp reconnect NAME`) or signed in (`/mcp login NAME`). Pi keeps the manager's
 * connections inside its MCP extension and exposes them only this way.
 */

import type { AgentSessionLike } from './agentSession.ts';

type Runner = NonNullable<AgentSessionLike['extensionRunner']>;
type Ui = ReturnType<Runner['getUIContext']>;

/**
 * Runs `/mcp ARGS` with the session's UI context, what it notifies collected (and, `show`, also shown in the chat as
 * Pi would show it). Undefined when the session has no `/mcp` (Restricted Mode loads no extension; an extension may
 * have replaced Pi's with one of its own, whose output this panel cannot read).
 */
export async function runMcpCommand(session: AgentSessionLike, args: string, show: boolean): Promise<{ text: string; errors: string[] } | undefined> {
  const runner = session.extensionRunner;
  const command = runner?.getCommand('mcp');
  // Only Pi's built-in `/mcp` prints the status this panel reads; an extension's `/mcp` is another program.
  if (!runner || !command || !isBuiltIn(command)) return undefined;
  const real = runner.getUIContext();
  const notes: string[] = [];
  const errors: string[] = [];
  const ui = new Proxy(real, {
    get(target, key, receiver) {
      if (key !== 'notify') return Reflect.get(target, key, receiver) as unknown;
      return (message: string, type?: 'info' | 'warning' | 'error') => {
        (type === 'error' ? errors : notes).push(message);
        if (show) target.notify(message, type);
      };
    },
  }) as Ui;
  // `rpc`: Pi's plain (non-TUI) answers, with a UI for the sign-in's questions.
  const context = Object.create(runner.createCommandContext(), {
    ui: { value: ui },
    mode: { value: 'rpc' },
    hasUI: { value: true },
  }) as Parameters<typeof command.handler>[1];
  await command.handler(args, context);
  return { text: notes.join('\n'), errors };
}

const isBuiltIn = (command: { sourceInfo?: { path?: string } }): boolean => command.sourceInfo?.path === 'builtin:mcp';
