/** A terminal command as a chip's text: escape sequences and overwritten progress lines taken out, the output's tail kept. */

import { clipTail, TERMINAL_MAX_CHARS } from './bounds.ts';

/** One command that ran in a terminal, as shell integration reported it. */
export interface TerminalCommandRecord {
  readonly terminal: string;
  readonly commandLine: string;
  readonly cwd?: string;
  /** Raw data the terminal received while the command ran (escape sequences included). */
  readonly output: string;
  /** Undefined while the command runs, or when the shell did not report one. */
  readonly exitCode?: number;
  readonly running: boolean;
  /** VS Code passed on only part of the output (or none) and the terminal's buffer could not be read. */
  readonly outputIncomplete?: boolean;
}

// CSI (colours, cursor moves), OSC (titles, shell integration's 633 marks, hyperlinks) and two-byte escapes.
const CSI = /\x1b\[[0-?]*[ -/]*[@-~]/g;
const OSC = /\x1b\][\s\S]*?(?:\x07|\x1b\\|$)/g;
const ESC2 = /\x1b[@-Z\\-_]/g;
// Control characters a reader should not get (tab, newline and carriage return are handled apart).
const CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

/**
 * Whether a shell execution's data, as VS Code passes it on, begins with the shell's command-executed mark. It always
 * does when nothing was lost (the workbench writes the mark as a piece of its own and passes it on first), so data
 * that begins otherwise, or none at all, means VS Code dropped the start.
 */
export function beginsWithExecutedMark(data: string): boolean {
  return /^\x1b\][16]33;C(?:\x07|\x1b\\)/.test(data);
}

/** Plain text as a reader of the terminal saw it: no escape sequences, and a line rewritten with `\r` shows its last state. */
export function plainTerminalText(raw: string): string {
  const text = raw.replace(OSC, '').replace(CSI, '').replace(ESC2, '').replace(/\r\n/g, '\n');
  return text
    .split('\n')
    .map((line) => {
      const parts = line.split('\r').filter((p) => p !== '');
      return (parts.at(-1) ?? '').replace(CONTROLS, '');
    })
    .join('\n');
}

/** The one-line description the chip shows: which terminal, which command, how it ended. */
export function terminalDetail(r: TerminalCommandRecord): string {
  // l10n-ignore: sent to Pi, not shown
  const ended = r.running ? 'still running' : r.exitCode === undefined ? 'exit code unknown' : `exit code ${r.exitCode}`;
  return `${r.terminal}: ${r.commandLine} (${ended})`;
}

/** What the chip sends: the command line, its output (the tail, clipped to the bound with the clip shown) and how it ended. */
export function terminalChipText(r: TerminalCommandRecord, max = TERMINAL_MAX_CHARS): string {
  const output = plainTerminalText(r.output).replace(/\n+$/, '');
  const ended = r.running ? '[still running when added]' : r.exitCode === undefined ? '[exit code unknown]' : `[exit code ${r.exitCode}]`;
  const head = `${r.cwd ? `# terminal "${r.terminal}", in ${r.cwd}\n` : `# terminal "${r.terminal}"\n`}$ ${r.commandLine}\n`;
  // Sent to Pi, not shown: English, as the rest of the chip's text.
  const lostStart = '[… the start of the output was not received]\n'; // l10n-ignore
  const lost = '(the output was not received: copy it from the terminal into the message)\n'; // l10n-ignore
  const none = '(no output)\n'; // l10n-ignore
  const body = output ? `${r.outputIncomplete ? lostStart : ''}${clipTail(output + '\n', max)}` : r.outputIncomplete ? lost : none;
  return `${head}${body}${ended}\n`;
}
