/** Find in chat: which rows of a whole transcript hold a text, and how often; the worker answers it over the whole session (the rows its window dropped rebuilt). */

import type { MessageView, TranscriptState } from './rows.ts';

/** A row holding the text `count` times. */
export interface FindMatch {
  readonly id: number;
  readonly count: number;
}

/** Rows holding the text, oldest first, and how many times it occurs in all. */
export interface FindResult {
  readonly matches: readonly FindMatch[];
  readonly total: number;
}

/** Longest text searched for. */
export const MAX_FIND_CHARS = 500;

/** The rows of `state` whose text (prompts, replies, notices, `!` output) holds `query`, ignoring case. */
export function findRows(state: TranscriptState, query: string): FindResult {
  const needle = query.toLowerCase();
  if (!needle) return { matches: [], total: 0 };
  const matches: FindMatch[] = [];
  let total = 0;
  for (const row of state.messages) {
    const count = occurrences(searchable(row).toLowerCase(), needle);
    if (!count) continue;
    matches.push({ id: row.id, count });
    total += count;
  }
  return { matches, total };
}

/** The text of a row the view shows as text: thinking and tool arguments are folded away, so they are not searched. */
function searchable(row: MessageView): string {
  if (row.role === 'changes' || row.role === 'toolResult') return '';
  let text = row.role === 'bash' ? `${row.command}\n` : '';
  for (const b of row.blocks) if (b && b.kind === 'text') text += `${b.text}\n`;
  return text;
}

function occurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) n++;
  return n;
}
