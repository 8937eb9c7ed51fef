/**
 * `!command` from the composer: Pi's extensions see it first (`user_bash`, as Pi's RPC mode emits it) and may
 * answer it or run it their way; otherwise it runs in Pi's shell. Its row streams in the transcript, Cancel stops it.
 */

import type { BashOperations } from '@earendil-works/pi-coding-agent';
import { MAX_TOOL_OUTPUT_CHARS } from './projection.ts';
import type { WireEvent } from '../shared/wire/events.ts';
import { errorText, type AgentSessionLike } from './agentSession.ts';
import { guardTerminal } from './terminalGuard.ts';

/** The `!` commands of the worker's session, numbered so their rows and Pi's output events match. */
export class ShellCommands {
  private _runs = 0;
  private readonly _emit: (events: readonly WireEvent[]) => void;
  private readonly _localShell: ((s: AgentSessionLike) => BashOperations) | undefined;

  /**
   * `emit`: wire events in order with Pi's own (the shell row's start and end). `localShell`: Pi's own shell
   * as `executeBash` would make it for `s`; given, a command that needs a terminal is stopped (terminalGuard.ts).
   */
  constructor(emit: (events: readonly WireEvent[]) => void, localShell?: (s: AgentSessionLike) => BashOperations) {
    this._emit = emit;
    this._localShell = localShell;
  }

  /** Runs `command` (`excluded`: kept out of the model's context); resolves when it ends. */
  async run(s: AgentSessionLike, command: string, excluded: boolean): Promise<void> {
    if (!s.executeBash) throw new Error('this session cannot run shell commands');
    if (s.isBashRunning) throw new Error('a shell command is already running');
    const id = `bash-${++this._runs}`;
    this._emit([{ type: 'bashStart', id, command, excluded, at: Date.now() }]);
    try {
      const routed = await s.extensionRunner?.emitUserBash({
        type: 'user_bash',
        command,
        excludeFromContext: excluded,
        cwd: s.sessionManager?.getCwd?.() ?? process.cwd(),
      });
      // An extension's answer is the command's result: recorded as Pi's RPC mode records it, and the row ends.
      if (routed?.result && s.recordBashResult) s.recordBashResult(command, routed.result, { excludeFromContext: excluded });
      // Pi streams the output as bash_execution_update events carrying `id`, and records the result in the session.
      // An extension's operations (ssh, a container) or Pi's own shell, guarded against waiting for a terminal.
      const base = routed?.operations ?? this._localShell?.(s);
      const operations = base ? guardTerminal(base) : undefined;
      const r = routed?.result ?? (await s.executeBash(command, undefined, { excludeFromContext: excluded, id, ...(operations ? { operations } : {}) }));
      this._emit([
        {
          type: 'bashEnd',
          id,
          command,
          output: clipTail(r.output),
          ...(typeof r.exitCode === 'number' ? { exitCode: r.exitCode } : {}),
          cancelled: r.cancelled,
          excluded,
        },
      ]);
    } catch (err) {
      this._emit([{ type: 'bashEnd', id, command, output: errorText(err), cancelled: false, excluded }]);
    }
  }

  /** Stops the command running in `s`, if any. */
  abort(s: AgentSessionLike | undefined): void {
    if (s?.isBashRunning) s.abortBash?.();
  }
}

/** The tail of a long output, as the transcript keeps it. */
function clipTail(text: string): string {
  return text.length > MAX_TOOL_OUTPUT_CHARS ? text.slice(-MAX_TOOL_OUTPUT_CHARS) : text;
}
