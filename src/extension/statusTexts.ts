/** The status-bar texts of a run state, in VS Code's codicon syntax (`$(name)`). */

import { assertNever } from '../shared/exhaustive.ts';
import type { RunState } from '../shared/run/runState.ts';
import { runCondition, summaryRetryText, type RunCondition } from '../shared/run/runCondition.ts';

/** What one status-bar item says. */
export interface StatusItemText {
  readonly text: string;
  readonly tooltip: string;
}

/** The three status-bar items' texts; an item without one hides. */
export interface StatusTexts {
  readonly run: StatusItemText;
  readonly retry?: StatusItemText;
  readonly compaction?: StatusItemText;
}

/** How long a retry failure or a compaction result stays in the status bar. */
export const TRANSIENT_STATUS_MS = 8000;

const clock = (ms: number): string => new Date(ms).toLocaleTimeString();

/** The status-bar texts a user sees for a run state at time `now` (codicon syntax: `$(name)`). */
export function describeStatus(s: RunState, now: number): StatusTexts {
  const run = runItem(s, runCondition(s), now);

  let retry: StatusItemText | undefined;
  if (s.retry) {
    const wait = Math.max(0, Math.ceil((s.retry.nextAt - now) / 1000));
    const label = `Retry ${s.retry.attempt}/${s.retry.maxAttempts}`;
    retry = {
      text: s.retry.waiting ? `$(history) ${label} in ${wait} s` : `$(history) ${label}`,
      tooltip: `Provider error: ${s.retry.errorMessage}`,
    };
  } else if (s.retryFailure && now - s.retryFailure.at < TRANSIENT_STATUS_MS) {
    retry = { text: '$(error) Retries failed', tooltip: s.retryFailure.message };
  }

  if (!retry && s.summaryRetry)
    retry = { text: `$(history) ${summaryRetryText(s.summaryRetry, now, true)}`, tooltip: `Summarizing failed: ${s.summaryRetry.errorMessage}` };

  let compaction: StatusItemText | undefined;
  if (s.compaction) {
    compaction = { text: `$(fold) Compacting (${s.compaction.reason})`, tooltip: `Compaction started at ${clock(s.compaction.since)}` };
  } else if (s.lastCompaction && now - s.lastCompaction.at < TRANSIENT_STATUS_MS) {
    const c = s.lastCompaction;
    if (c.ok) {
      const n = (v: number) => v.toLocaleString('en-US');
      const sizes =
        c.tokensBefore !== undefined && c.tokensAfter !== undefined
          ? ` ${n(c.tokensBefore)} → ${n(c.tokensAfter)} tokens`
          : c.tokensBefore !== undefined
            ? ` from ${n(c.tokensBefore)} tokens`
            : '';
      compaction = { text: `$(fold) Compacted${sizes}`, tooltip: `Compaction (${c.reason}) finished at ${clock(c.at)}` };
    } else {
      compaction = { text: c.aborted ? '$(fold) Compaction cancelled' : '$(error) Compaction failed', tooltip: c.errorMessage ?? 'Compaction did not finish' };
    }
  }
  return { run, retry, compaction };
}

/** The run item: a stall first (unless cancelling), then the phase, then how the last run ended. */
function runItem(s: RunState, c: RunCondition, now: number): StatusItemText {
  if (c.stalled && c.phase !== 'cancelling') {
    const secs = Math.round((now - (s.stalledSince ?? s.since)) / 1000);
    return { text: `$(warning) Pi: no response for ${secs} s`, tooltip: 'Pi has sent nothing for a while. Click to cancel the run.' };
  }
  switch (c.phase) {
    case 'waiting':
      return { text: '$(bell) Pi is waiting for you', tooltip: 'A Pi extension asks you something in the chat. Click to open it.' };
    case 'starting':
      return { text: '$(loading~spin) Pi: starting', tooltip: 'Loading Pi: your prompt is sent as soon as the session is open. Click to cancel it.' };
    case 'running':
      return { text: '$(sync~spin) Pi: running', tooltip: `Running since ${clock(s.since)}. Click to cancel.` };
    case 'retrying':
      return { text: '$(sync~spin) Pi: retrying', tooltip: 'Waiting to retry after a provider error. Click to cancel.' };
    case 'compacting':
      return { text: '$(sync~spin) Pi: compacting', tooltip: 'Compacting the conversation. Click to cancel.' };
    case 'cancelling':
      return { text: '$(loading~spin) Pi: cancelling', tooltip: 'Cancelling: waiting for Pi to stop.' };
    case 'idle':
      break;
    default:
      assertNever(c.phase, 'run phase');
  }
  if (s.outcome?.kind === 'cancelled')
    return { text: '$(circle-slash) Pi: cancelled', tooltip: `Run cancelled at ${clock(s.outcome.at)}. Click to open the chat.` };
  if (s.outcome?.kind === 'error')
    return { text: '$(error) Pi: error', tooltip: `Run failed at ${clock(s.outcome.at)}: ${s.outcome.message ?? 'unknown error'}. Click to open the chat.` };
  return {
    text: '$(check) Pi: idle',
    tooltip: s.outcome ? `Last run completed at ${clock(s.outcome.at)}. Click to open the chat.` : 'Pi is ready. Click to open the chat.',
  };
}
