/** A finished command's output read back from the terminal's own buffer, for when shell integration's stream lost it. */

import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';

/** The workbench command that copies the active terminal's last finished command's output (what it shows, wrapped lines joined). */
const COPY_LAST_OUTPUT = 'workbench.action.terminal.copyLastCommandOutput';
/** How long a clipboard read or the terminal becoming active may take before the buffer is given up on. */
const STEP_WAIT_MS = 3_000;

/** Resolves to `undefined` when `p` has not settled (or failed) within `ms`. */
function within<T>(p: Thenable<T>, ms = STEP_WAIT_MS): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    Promise.resolve(p).then(
      (v) => (clearTimeout(timer), resolve(v)),
      () => (clearTimeout(timer), resolve(undefined)),
    );
  });
}

/** Makes `terminal` the active one (without taking focus) and resolves once the extension host knows it is. */
async function activate(terminal: vscode.Terminal): Promise<boolean> {
  if (vscode.window.activeTerminal === terminal) return true;
  let sub: vscode.Disposable | undefined;
  const active = new Promise<void>((resolve) => {
    sub = vscode.window.onDidChangeActiveTerminal((t) => t === terminal && resolve());
  });
  try {
    terminal.show(true);
    await within(active);
  } finally {
    sub?.dispose();
  }
  return vscode.window.activeTerminal === terminal;
}

/**
 * The output of the last command that finished in `terminal`, as the terminal shows it ('' when it printed nothing),
 * or `undefined` when it cannot be read (the clipboard is not readable, as in a browser that refused it).
 *
 * The only way an extension reads a terminal's buffer is the workbench's Copy Last Command Output, which goes through
 * the clipboard: the user's clipboard text is put back after. A marker written first tells "no output" (the command
 * copies nothing) from the user's own clipboard.
 */
export async function readLastCommandOutput(terminal: vscode.Terminal): Promise<string | undefined> {
  if (!(await activate(terminal))) return undefined;
  const clipboard = vscode.env.clipboard;
  const saved = await within(clipboard.readText());
  if (saved === undefined) return undefined;
  const marker = `pi-agent-panel:${randomUUID()}`;
  try {
    await clipboard.writeText(marker);
    await vscode.commands.executeCommand(COPY_LAST_OUTPUT);
    const copied = await within(clipboard.readText());
    if (copied === undefined) return undefined;
    return copied === marker ? '' : copied;
  } catch {
    return undefined;
  } finally {
    await within(clipboard.writeText(saved));
  }
}
