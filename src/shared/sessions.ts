/** What the view shows of saved sessions and of one session's tree: plain data, and the pure helpers over it. */
import { formatNumber, t } from './l10n.ts';

/** One saved session in the Sessions list. */
export interface SessionSummary {
  readonly path: string;
  /** The name the user gave it (`/name`), if any. */
  readonly name?: string;
  readonly firstMessage: string;
  /** Epoch ms of the last change. */
  readonly modified: number;
  readonly messageCount: number;
  /** provider/id of the model it last used, when the file says. */
  readonly model?: string;
  /** Tokens and cost summed over its assistant messages (every branch in the file). */
  readonly stats?: SessionStatsView;
}

/** A page of the Sessions list, for `query` (empty: all), newest first. */
export interface SessionPage {
  readonly sessions: readonly SessionSummary[];
  readonly offset: number;
  /** How many sessions match `query` in all. */
  readonly total: number;
  readonly query: string;
  /** The session open now. */
  readonly current?: string;
  /** Sessions of this page open in another chat of the window, by file: that chat's name ("the sidebar", "Chat 2"). */
  readonly openIn?: Readonly<Record<string, string>>;
}

/** One entry of a session's tree, flattened depth-first with its depth. */
export interface TreeNodeView {
  readonly id: string;
  readonly depth: number;
  readonly kind: 'user' | 'assistant' | 'other';
  /** A one-line preview of the entry. */
  readonly text: string;
  /** The user's label on this entry (`/tree` labels). */
  readonly label?: string;
  /** On the path from the root to the current leaf. */
  readonly onPath: boolean;
  readonly isLeaf: boolean;
  /** The first entry of a branch (its parent has more than one child). */
  readonly branchStart?: boolean;
}

/** Token, cost and context figures for the open session (`getSessionStats`). */
export interface SessionStatsView {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly cost: number;
  readonly contextPercent?: number;
}

/** How many sessions a page of the list holds. */
export const SESSION_PAGE_SIZE = 50;

/** What to call a session: its name, else its first prompt on one line. */
export function sessionTitle(s: Pick<SessionSummary, 'name' | 'firstMessage'>): string {
  return s.name?.trim() || s.firstMessage.replace(/\s+/g, ' ').trim().slice(0, 120) || t('(empty session)');
}

/** The header's tooltip line for the session's totals. */
export function statsLine(s: SessionStatsView): string {
  const parts = [t('{0} in', formatNumber(s.input)), t('{0} out', formatNumber(s.output))];
  if (s.cacheRead || s.cacheWrite) parts.push(t('cache {0} read / {1} write', formatNumber(s.cacheRead), formatNumber(s.cacheWrite)));
  parts.push(`$${s.cost.toFixed(4)}`);
  if (s.contextPercent !== undefined) parts.push(t('context {0}%', s.contextPercent));
  return t('Tokens: {0}', parts.join(', '));
}

/** "12.3k tokens · $0.0400": a session's totals, short, for the list. */
export function shortStats(s: SessionStatsView): string {
  const tokens = s.input + s.output + s.cacheRead + s.cacheWrite;
  const count = tokens >= 1_000_000 ? `${(tokens / 1_000_000).toFixed(1)}M` : tokens >= 1000 ? `${(tokens / 1000).toFixed(1)}k` : String(tokens);
  return t('{0} tokens · {1}', count, `$${s.cost.toFixed(4)}`);
}

/** Whether a session matches a search: every word of `query` is in its name or text (case-insensitive). */
export function matchesQuery(haystack: string, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return true;
  const h = haystack.toLowerCase();
  return words.every((w) => h.includes(w));
}
