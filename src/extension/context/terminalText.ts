/** A terminal command as a chip's text: its output as the terminal's screen shows it (read by a headless xterm), the tail kept. */

import * as xterm from '@xterm/headless';
import { clipTail, TERMINAL_MAX_CHARS } from './bounds.ts';

// The package is CommonJS that Node cannot name the exports of: Node's loader (the unit tests) puts them under
// `default`, the esbuild bundle on the namespace itself.
const { Terminal } = (xterm as typeof xterm & { default?: typeof xterm }).default ?? xterm;

/**
 * Columns of the screen the output is drawn on. The real terminal's width is not known to an extension; a wider one
 * leaves what a program fitted to its width (progress bars, `\r` and cursor-up redraws) where it drew it, where a
 * narrower one would wrap it and misplace the redraw. Rows a long line wraps into are joined back, so it stays whole.
 */
const SCREEN_COLS = 400;
/** Rows of the screen: a program redraws at most as many lines above the cursor as its own screen had. */
const SCREEN_ROWS = 100;
/**
 * Lines kept above the screen: the chip's bound at 8 characters a line. Every line costs its columns in cells (12
 * bytes each) whatever it holds, so this bounds the screen at about 12 MB, for as long as one chip is written.
 */
const SCROLLBACK_LINES = TERMINAL_MAX_CHARS / 8;

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

/**
 * Whether a shell execution's data, as VS Code passes it on, begins with the shell's command-executed mark. It always
 * does when nothing was lost (the workbench writes the mark as a piece of its own and passes it on first), so data
 * that begins otherwise, or none at all, means VS Code dropped the start.
 */
export function beginsWithExecutedMark(data: string): boolean {
  return /^\x1b\][16]33;C(?:\x07|\x1b\\)/.test(data);
}

/**
 * The text of `raw` as a terminal's screen and scrollback show it once it is drawn: escape sequences and their
 * payloads (DCS, APC, PM, SOS, OSC) never reach the screen, concealed text (SGR 8) is not shown, and what a program
 * erased or overwrote (cursor moves, backspaces, `\r`) shows its last state. Drawn on a headless xterm, the emulator
 * VS Code's terminal is built on. Ends with a line break when the cursor ended at the start of a line. When the
 * scrollback could not hold every line, a first line says earlier ones were left out.
 */
export async function plainTerminalText(raw: string): Promise<string> {
  if (!raw) return '';
  const terminal = new Terminal({
    cols: SCREEN_COLS,
    rows: SCREEN_ROWS,
    // One line more than is read: a buffer that filled it may have dropped lines, and then has dropped that one.
    scrollback: SCROLLBACK_LINES + 1,
    // A bare line feed starts a line, as the pty's output processing makes it, and as the buffer's text read back has it.
    convertEol: true,
    // The headless build counts reading its buffer as proposed API.
    allowProposedApi: true,
    logLevel: 'off',
  });
  try {
    await new Promise<void>((resolve) => terminal.write(raw, resolve));
    const full = terminal.buffer.active.length === SCREEN_ROWS + SCROLLBACK_LINES + 1;
    const lines = screenLines(terminal, full ? 1 : 0);
    // l10n-ignore: sent to Pi, not shown
    return `${full ? '[… clipped: earlier lines not included]\n' : ''}${lines.join('\n')}`;
  } finally {
    terminal.dispose();
  }
}

/**
 * The buffer's lines down to the cursor's (or the last one drawn, if lower): rows a long line wrapped into joined,
 * concealed cells left out, trailing blanks trimmed.
 */
function screenLines(terminal: InstanceType<typeof Terminal>, from: number): string[] {
  const buffer = terminal.buffer.active;
  const cell = buffer.getNullCell();
  const cursorRow = buffer.baseY + buffer.cursorY;
  const lines: string[] = [];
  let lastDrawn = -1;
  let cursorLine = 0;
  for (let y = from; y < buffer.length; y++) {
    const row = buffer.getLine(y);
    if (!row) continue;
    const chars: string[] = [];
    for (let x = 0; x < row.length; x++) {
      row.getCell(x, cell);
      // Width 0 is the second half of a wide character, drawn by the first.
      if (cell.getWidth() === 0 || cell.isInvisible()) continue;
      chars.push(cell.getChars() || ' ');
    }
    const text = chars.join('');
    if (row.isWrapped && lines.length) lines[lines.length - 1] += text;
    else lines.push(text);
    if (text.trim()) lastDrawn = lines.length - 1;
    if (y === cursorRow) cursorLine = lines.length - 1;
  }
  return lines.slice(0, Math.max(cursorLine, lastDrawn) + 1).map((line) => line.replace(/ +$/, ''));
}

/**
 * Escape sequences that carry a string (OSC, and DCS, SOS, PM, APC: 7-bit or C1), as xterm ends them: ST, BEL for an
 * OSC, or any ESC, CAN, SUB or C1 control before them (which starts or cancels the next thing, so it is not taken).
 * At the end of the data a string still open runs to the end. The screen shows nothing of any of them.
 */
const STRING_SEQUENCE =
  /(\x1b\]|\x9d)[^\x07\x18\x1a\x1b\x80-\x9f]*(?:\x07|\x9c|\x1b\\|(?=[\x18\x1a\x1b\x80-\x9f])|$)|(\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x18\x1a\x1b\x80-\x9f]*(?:\x9c|\x1b\\|(?=[\x18\x1a\x1b\x80-\x9f])|$)/g;

/**
 * `kept` with `data` after it, within `max` characters. Past that, the strings escape sequences carry are taken out
 * first (an inline image's payload alone can be megabytes), then the oldest whole lines, down to three quarters of
 * `max` so the next pieces append for a while before this runs again. Cutting into a payload would show the rest of it
 * as text: a string still arriving keeps its opening, so what comes after is still read as its payload.
 */
export function appendRawOutput(kept: string, data: string, max: number): string {
  let raw = kept + data;
  if (raw.length <= max) return raw;
  raw = raw.replace(STRING_SEQUENCE, (sequence: string, osc: string | undefined, other: string | undefined, at: number, all: string) => {
    const opening = osc ?? other ?? '';
    // BEL ends only an OSC: in the others it is payload.
    const ended = (osc ? /(?:\x07|\x9c|\x1b\\)$/ : /(?:\x9c|\x1b\\)$/).test(sequence.slice(opening.length));
    return at + sequence.length === all.length && !ended ? opening : '';
  });
  const keep = Math.floor((max * 3) / 4);
  if (raw.length <= keep) return raw;
  const from = raw.length - keep;
  const lineStart = raw.indexOf('\n', from - 1) + 1;
  return raw.slice(lineStart > 0 && lineStart < raw.length ? lineStart : from);
}

/** The one-line description the chip shows: which terminal, which command, how it ended. */
export function terminalDetail(r: TerminalCommandRecord): string {
  // l10n-ignore: sent to Pi, not shown
  const ended = r.running ? 'still running' : r.exitCode === undefined ? 'exit code unknown' : `exit code ${r.exitCode}`;
  return `${r.terminal}: ${r.commandLine} (${ended})`;
}

/** What the chip sends: the command line, its output (the tail, clipped to the bound with the clip shown) and how it ended. */
export async function terminalChipText(r: TerminalCommandRecord, max = TERMINAL_MAX_CHARS): Promise<string> {
  const output = (await plainTerminalText(r.output)).replace(/\n+$/, '');
  const ended = r.running ? '[still running when added]' : r.exitCode === undefined ? '[exit code unknown]' : `[exit code ${r.exitCode}]`;
  const head = `${r.cwd ? `# terminal "${r.terminal}", in ${r.cwd}\n` : `# terminal "${r.terminal}"\n`}$ ${r.commandLine}\n`;
  // Sent to Pi, not shown: English, as the rest of the chip's text.
  const lostStart = '[… the start of the output was not received]\n'; // l10n-ignore
  const lost = '(the output was not received: copy it from the terminal into the message)\n'; // l10n-ignore
  const none = '(no output)\n'; // l10n-ignore
  const body = output ? `${r.outputIncomplete ? lostStart : ''}${clipTail(output + '\n', max)}` : r.outputIncomplete ? lost : none;
  return `${head}${body}${ended}\n`;
}
