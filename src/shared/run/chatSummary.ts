/** Several chats at a glance: the status bar's sum of their runs, and the news a chat out of sight has for the user. */

import type { RunOutcome, RunPhase } from './runState.ts';

/** One chat as the sum sees it. */
export interface ChatGlance {
  readonly label: string;
  readonly phase: RunPhase;
  /** When the chat entered its phase (epoch ms). */
  readonly since: number;
}

/** The status bar's sum of every chat's run. */
export interface ChatSum {
  readonly running: number;
  readonly waiting: number;
  /** "2 running · 1 waiting", or undefined when every chat is idle. */
  readonly text?: string;
  /** One line per chat: its label and phase. */
  readonly lines: readonly string[];
  /** The chat a click goes to: the one that waits longest, else the one that runs longest. */
  readonly longest?: number;
}

/** What a chat the user cannot see has to say: its run finished, failed, or waits for an answer. */
export type ChatNews = 'finished' | 'failed' | 'waiting';

/** Sums up `chats` (in their order: the sidebar, then the tabs). */
export function sumChats(chats: readonly ChatGlance[]): ChatSum {
  let running = 0;
  let waiting = 0;
  let longestWaiting: number | undefined;
  let longestRunning: number | undefined;
  chats.forEach((c, i) => {
    if (c.phase === 'waiting') {
      waiting++;
      if (longestWaiting === undefined || c.since < chats[longestWaiting]!.since) longestWaiting = i;
    } else if (c.phase !== 'idle') {
      running++;
      if (longestRunning === undefined || c.since < chats[longestRunning]!.since) longestRunning = i;
    }
  });
  const parts = [...(running ? [`${running} running`] : []), ...(waiting ? [`${waiting} waiting`] : [])];
  const longest = longestWaiting ?? longestRunning;
  return {
    running,
    waiting,
    ...(parts.length ? { text: parts.join(' · ') } : {}),
    lines: chats.map((c) => `${c.label}: ${c.phase}`),
    ...(longest !== undefined ? { longest } : {}),
  };
}

/**
 * The news in a change of phase: a run that ended (completed, or failed with an error) or a question that
 * opened. A cancel the user asked for is no news.
 */
export function chatNews(before: RunPhase, after: RunPhase, outcome: RunOutcome | undefined): ChatNews | undefined {
  if (after === 'waiting' && before !== 'waiting') return 'waiting';
  if (after !== 'idle' || before === 'idle' || before === 'starting') return undefined;
  if (outcome?.kind === 'error') return 'failed';
  if (outcome?.kind === 'completed') return 'finished';
  return undefined;
}
