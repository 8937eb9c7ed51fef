/**
 * `!` commands run without a terminal. A program that takes over the screen (an editor, a pager, a monitor)
 * or asks the terminal where its cursor is then waits for answers that never come: `!vim` hung until Cancel.
 * This stops such a command as soon as it asks, and says why, in its row and in what Pi records.
 */

import type { BashOperations } from '@earendil-works/pi-coding-agent';

/** Switching to the alternate screen (`?1049h`, `?1047h`, `?47h`) or asking for the cursor position (`6n`). */
const NEEDS_TERMINAL = /\u001b\[\?(?:1049|1047|47)h|\u001b\[6n/;

/** Bytes of the previous chunk kept so a sequence split between two chunks is still seen. */
const CARRY = 8;

/** The exit code of a command stopped because it needs a terminal (as a shell's "cannot execute"). */
export const NEEDS_TERMINAL_EXIT = 126;

/** What the row says after the output of a command the panel stopped. */
function needsTerminalText(command: string): string {
  const program = command.trim().split(/\s+/)[0] || command;
  return `\n[${program} needs a terminal, and ! commands in the panel have none: it was stopped. Run it in VS Code's terminal.]\n`;
}

/** `ops` that stop a command at its first request for a terminal and end it with `needsTerminalText`. */
export function guardTerminal(ops: BashOperations): BashOperations {
  return {
    exec: async (command, cwd, options) => {
      const stop = new AbortController();
      const outer = options.signal;
      const onOuterAbort = () => stop.abort();
      if (outer?.aborted) stop.abort();
      else outer?.addEventListener('abort', onOuterAbort, { once: true });
      let tripped = false;
      let carry = '';
      const onData = (data: Buffer) => {
        options.onData(data);
        if (tripped) return;
        const text = carry + data.toString('latin1');
        carry = text.slice(-CARRY);
        if (NEEDS_TERMINAL.test(text)) {
          tripped = true;
          stop.abort();
        }
      };
      try {
        return await ops.exec(command, cwd, { ...options, onData, signal: stop.signal });
      } catch (err) {
        // Pi's local shell throws "aborted" once the process tree is gone; the user's Cancel stays a cancel.
        if (!tripped || outer?.aborted) throw err;
        options.onData(Buffer.from(needsTerminalText(command)));
        return { exitCode: NEEDS_TERMINAL_EXIT };
      } finally {
        outer?.removeEventListener('abort', onOuterAbort);
      }
    },
  };
}
