/** `!` commands that need a terminal are stopped when they ask for one; everything else passes through untouched. */

import { strict as assert } from 'node:assert';
import type { BashOperations } from '@earendil-works/pi-coding-agent';
import { guardTerminal, NEEDS_TERMINAL_EXIT } from '../../src/worker/terminalGuard.ts';

/** A shell that writes `chunks`, then waits until aborted (throwing "aborted", as Pi's local shell does) unless `exit` is given. */
function fakeShell(chunks: string[], exit?: number): BashOperations {
  return {
    exec: (_command, _cwd, { onData, signal }) =>
      new Promise((resolve, reject) => {
        for (const c of chunks) onData(Buffer.from(c, 'latin1'));
        if (exit !== undefined) return resolve({ exitCode: exit });
        if (signal?.aborted) return reject(new Error('aborted'));
        signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      }),
  };
}

async function run(ops: BashOperations, command: string, signal?: AbortSignal): Promise<{ out: string; result: { exitCode: number | null } | Error }> {
  let out = '';
  const result = await guardTerminal(ops)
    .exec(command, '/', { onData: (d) => (out += d.toString('latin1')), ...(signal ? { signal } : {}) })
    .catch((e: Error) => e);
  return { out, result };
}

describe('the terminal guard of ! commands', () => {
  it('stops a command that switches to the alternate screen, even split across chunks, and names the program', async () => {
    const { out, result } = await run(fakeShell(['"notes.txt" [New]\u001b[?10', '49h\u001b[1;1H']), 'vim notes.txt');
    assert.deepEqual(result, { exitCode: NEEDS_TERMINAL_EXIT });
    assert.match(out, /\n\[vim needs a terminal, and ! commands in the panel have none: it was stopped\. Run it in VS Code's terminal\.\]\n$/);
  });

  it('stops a command that asks the terminal for its cursor position', async () => {
    const { result } = await run(fakeShell(['\u001b[6n']), 'fzf');
    assert.deepEqual(result, { exitCode: NEEDS_TERMINAL_EXIT });
  });

  it('leaves colour codes and ordinary commands alone', async () => {
    const { out, result } = await run(fakeShell(['\u001b[01;34mdir\u001b[0m\n'], 0), 'ls --color=always');
    assert.deepEqual(result, { exitCode: 0 });
    assert.equal(out, '\u001b[01;34mdir\u001b[0m\n');
  });

  it("keeps the user's Cancel a cancel", async () => {
    const cancel = new AbortController();
    const pending = run(fakeShell(['waiting…']), 'sleep 600', cancel.signal);
    cancel.abort();
    const { result } = await pending;
    assert.ok(result instanceof Error && result.message === 'aborted');
  });
});
