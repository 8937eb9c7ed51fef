/**
 * `@terminal`: the last command each terminal ran, read through VS Code's shell integration as it runs (and from the
 * terminal's buffer when that stream lost its start), and its chip.
 */

import * as vscode from 'vscode';
import type { CodeChip } from '../../shared/chips.ts';
import { Disposable } from '../../shared/disposable.ts';
import { TERMINAL_MAX_CHARS } from './bounds.ts';
import { readLastCommandOutput } from './terminalBuffer.ts';
import { appendRawOutput, beginsWithExecutedMark, terminalChipText, terminalDetail, type TerminalCommandRecord } from './terminalText.ts';

/** How long `@terminal` waits for a command that is still running to end before it takes what was written. */
const END_WAIT_MS = 5_000;
/** Raw output kept per command: a few bounds' worth, since escape sequences go before the chip clips. */
const RAW_KEEP_CHARS = TERMINAL_MAX_CHARS * 4;

interface Running {
  record: TerminalCommandRecord;
  /** Settles once the shell reported the end and the output stream closed (the last data may trail the end event). */
  readonly ended: Promise<void>;
  end(): void;
  settled: boolean;
  readonly execution: vscode.TerminalShellExecution;
  /**
   * Whether the stream began with the command-executed mark; undefined until data came. VS Code drops the data that
   * reaches the extension host with the start event, before `read()`'s iterator is listening (seen for a quick
   * `ls missing` in a remote workbench: start, data and end in one message batch, and `read()` yields nothing).
   */
  intact?: boolean;
}

/**
 * Keeps each terminal's last command with its output. `execution.read()` only yields what is written after it is
 * first called, so every execution is read from its start, from activation on.
 */
export class TerminalHistory extends Disposable {
  private readonly _last = new Map<vscode.Terminal, Running>();

  constructor() {
    super();
    this._register(vscode.window.onDidStartTerminalShellExecution((e) => this._started(e.terminal, e.execution)));
    this._register(
      vscode.window.onDidEndTerminalShellExecution((e) => {
        const run = this._last.get(e.terminal);
        if (!run || run.execution !== e.execution || !run.record.running) return;
        run.record = { ...run.record, commandLine: e.execution.commandLine.value || run.record.commandLine, exitCode: e.exitCode, running: false };
        run.end();
      }),
    );
    this._register(vscode.window.onDidCloseTerminal((t) => this._last.delete(t)));
  }

  private _started(terminal: vscode.Terminal, execution: vscode.TerminalShellExecution): void {
    let resolve!: () => void;
    let pending = 2;
    const ended = new Promise<void>((r) => (resolve = r));
    const run: Running = {
      record: { terminal: terminal.name, commandLine: execution.commandLine.value, cwd: execution.cwd?.fsPath, output: '', running: true },
      ended,
      end: () => {
        if (--pending === 0) {
          run.settled = true;
          resolve();
        }
      },
      settled: false,
      execution,
    };
    this._last.set(terminal, run);
    void (async () => {
      try {
        for await (const data of execution.read()) {
          run.intact ??= beginsWithExecutedMark(data);
          run.record = { ...run.record, output: appendRawOutput(run.record.output, data, RAW_KEEP_CHARS) };
        }
      } catch {
        // The terminal went away mid-read: what was read stays.
      }
      run.end();
    })();
  }

  /**
   * The chip for a terminal (`name`, else the active one): its last command, waiting a little for one still running.
   * Says why when there is nothing to read.
   */
  async chip(name?: string): Promise<CodeChip | undefined> {
    const terminal = name ? vscode.window.terminals.find((t) => t.name === name) : (vscode.window.activeTerminal ?? vscode.window.terminals.at(-1));
    if (!terminal) {
      void vscode.window.showInformationMessage(
        name ? vscode.l10n.t('Pi: there is no terminal named "{0}".', name) : vscode.l10n.t('Pi: open a terminal and run a command first.'),
      );
      return undefined;
    }
    const run = this._last.get(terminal);
    if (!run) {
      void vscode.window.showInformationMessage(
        terminal.shellIntegration
          ? vscode.l10n.t('Pi: the terminal "{0}" has run no command since Pi Agent Panel started. Run it again, then add it.', terminal.name)
          : vscode.l10n.t(
              'Pi: the terminal "{0}" has no shell integration, so Pi cannot read its commands. Use bash, zsh, fish or PowerShell with the setting terminal.integrated.shellIntegration.enabled on, or copy the output into the chat.',
              terminal.name,
            ),
      );
      return undefined;
    }
    if (!run.settled) await Promise.race([run.ended, new Promise((r) => setTimeout(r, END_WAIT_MS))]);
    if (run.settled && !run.intact) await this._readBack(terminal, run);
    // Named as the terminal is now: VS Code retitles a terminal by the command it runs (`ls` while `ls` ran).
    const record = { ...run.record, terminal: terminal.name };
    return { kind: 'terminal', path: record.terminal, text: await terminalChipText(record), detail: terminalDetail(record) };
  }

  /**
   * Takes a finished command's output from the terminal's buffer when the stream lost its start (or all of it).
   * The buffer holds what the command printed once the shell reported its end; what it read stands for next time.
   */
  private async _readBack(terminal: vscode.Terminal, run: Running): Promise<void> {
    const output = await readLastCommandOutput(terminal);
    if (this._last.get(terminal) !== run) return;
    if (output === undefined) run.record = { ...run.record, outputIncomplete: true };
    else {
      run.record = { ...run.record, output, outputIncomplete: false };
      run.intact = true;
    }
  }

  /** The terminals the `@` picker offers: the active one first. */
  names(): { name: string; active: boolean; detail?: string }[] {
    const active = vscode.window.activeTerminal;
    return [...vscode.window.terminals]
      .sort((a, b) => Number(b === active) - Number(a === active))
      .map((t) => {
        const run = this._last.get(t);
        return { name: t.name, active: t === active, ...(run ? { detail: terminalDetail(run.record) } : {}) };
      });
  }
}
