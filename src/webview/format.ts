/** Pure formatting helpers for the chat view: tool arguments, durations, output truncation. No DOM. */

import { formatNumber, t } from './l10n.ts';

/** Tool arguments parsed from JSON text, or undefined while the JSON is still incomplete. */
export function parseArgs(text: string): Record<string, unknown> | undefined {
  if (!text) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The one-line summary shown in a tool card's header: the command for bash, the path for file tools. */
export function toolSummary(toolName: string, args: Record<string, unknown> | undefined): string {
  if (!args) return '';
  const pick = (...keys: string[]) => {
    for (const k of keys) {
      const v = args[k];
      if (typeof v === 'string' && v) return v;
    }
    return '';
  };
  let s: string;
  switch (toolName) {
    case 'bash':
      s = pick('command');
      break;
    case 'read':
    case 'write':
    case 'edit':
    case 'ls':
      s = pick('path', 'file_path', 'filePath');
      break;
    case 'grep':
    case 'find':
      s = [pick('pattern'), pick('path')].filter(Boolean).join('  in ');
      break;
    default:
      s = pick('path', 'command', 'pattern', 'query', 'url');
  }
  const line = s.split('\n', 1)[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line + (s.includes('\n') ? ' …' : '');
}

/** One edit of the `edit` tool, whichever argument shape the model used. */
export interface EditPair {
  readonly oldText: string;
  readonly newText: string;
}

export function editPairs(args: Record<string, unknown>): EditPair[] {
  const pairs: EditPair[] = [];
  const add = (e: unknown) => {
    if (typeof e !== 'object' || e === null) return;
    const r = e as Record<string, unknown>;
    const oldText = str(r.oldText) ?? str(r.old_string) ?? str(r.oldString);
    const newText = str(r.newText) ?? str(r.new_string) ?? str(r.newString);
    if (oldText !== undefined || newText !== undefined) pairs.push({ oldText: oldText ?? '', newText: newText ?? '' });
  };
  if (Array.isArray(args.edits)) args.edits.forEach(add);
  else add(args);
  return pairs;
}

/** `1.2 s`, `340 ms`, `2 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return t('{0} ms', formatNumber(Math.round(ms)));
  if (ms < 60_000) return t('{0} s', formatNumber(ms / 1000, { minimumFractionDigits: ms < 10_000 ? 1 : 0, maximumFractionDigits: ms < 10_000 ? 1 : 0 }));
  return t('{0} min {1} s', Math.floor(ms / 60_000), Math.round((ms % 60_000) / 1000));
}

export interface Clipped {
  readonly text: string;
  /** Lines left out, 0 when the text is whole. */
  readonly hiddenLines: number;
  readonly totalLines: number;
}

/**
 * Cuts long output to `maxLines` lines (and `maxChars` characters): the head for a finished result,
 * the tail for live output, where the newest lines matter.
 */
export function clipLines(text: string, maxLines: number, maxChars: number, keep: 'head' | 'tail'): Clipped {
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  if (lines <= maxLines && text.length <= maxChars) return { text, hiddenLines: 0, totalLines: lines };
  let cut: string;
  if (keep === 'head') {
    let end = 0;
    for (let n = 0; n < maxLines; n++) {
      const i = text.indexOf('\n', end);
      if (i === -1) {
        end = text.length;
        break;
      }
      end = i + 1;
    }
    cut = text.slice(0, Math.min(end, maxChars));
  } else {
    let start = text.length;
    for (let n = 0; n < maxLines; n++) {
      const i = text.lastIndexOf('\n', start - 2);
      if (i === -1) {
        start = 0;
        break;
      }
      start = i + 1;
    }
    cut = text.slice(Math.max(start, text.length - maxChars));
  }
  let shown = 1;
  for (let i = cut.indexOf('\n'); i !== -1; i = cut.indexOf('\n', i + 1)) shown++;
  if (cut.endsWith('\n')) shown--;
  return { text: cut, hiddenLines: Math.max(1, lines - shown), totalLines: lines };
}

// ANSI CSI / OSC sequences and other C0 controls except tab and newline: tool output comes from
// terminals; it is shown as plain text, never interpreted.
const CONTROL = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

const HAS_CONTROL = /[\u0000-\u0008\u000b-\u000c\u000e-\u001f\u007f]/;

export function cleanTerminalText(text: string): string {
  return HAS_CONTROL.test(text) ? text.replace(CONTROL, '') : text;
}

/** "Thought for N s" from a thinking block's start and end. */
export function thoughtFor(startedAt: number | undefined, endedAt: number | undefined): string {
  if (startedAt === undefined || endedAt === undefined || endedAt < startedAt) return t('Thought');
  return t('Thought for {0} s', Math.max(1, Math.round((endedAt - startedAt) / 1000)));
}
