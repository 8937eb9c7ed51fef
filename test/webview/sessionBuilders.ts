/** Saved-session lists for webview tests and the Sessions bench. */

import type { SessionPage, SessionSummary } from '../../src/shared/sessions.ts';

/** `n` saved sessions, newest first. */
export function savedSessions(n: number, from = 0): SessionSummary[] {
  const now = Date.now();
  return Array.from({ length: n }, (_, i) => ({
    path: `/home/u/.pi/agent/sessions/--w--/2026-11-30T10-00-00-${String(from + i).padStart(4, '0')}.jsonl`,
    ...(i % 3 === 0 ? { name: `Named session ${from + i}` } : {}),
    firstMessage: `Question ${from + i}: refactor module ${from + i}`,
    modified: now - (from + i) * 3_600_000,
    messageCount: 2 + ((from + i) % 17),
    ...(i % 2 === 0 ? { model: 'anthropic/claude-sonnet-4-5', stats: { input: 12_000 + i, output: 300, cacheRead: 0, cacheWrite: 0, cost: 0.0405 } } : {}),
  }));
}

export function page(sessions: SessionSummary[], offset: number, total: number, query = '', current?: string): SessionPage {
  return { sessions, offset, total, query, ...(current ? { current } : {}) };
}
