/** The status-bar texts of a run state, in VS Code's codicon syntax (`$(name)`). */

import { assertNever } from '../shared/exhaustive.ts';
import type { RunState } from '../shared/run/runState.ts';
import { runCondition, summaryRetryText, type RunCondition } from '../shared/run/runCondition.ts';
import { formatNumber, formatTime, t } from '../shared/l10n.ts';

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

/** How long a retry's result or a compaction's stays in the status bar. */
export const TRANSIENT_STATUS_MS = 8000;

const clock = (ms: number): string => formatTime(ms);

/** The status-bar texts a user sees for a run state at time `now` (codicon syntax: `$(name)`). */
export function describeStatus(s: RunState, now: number): StatusTexts {
  const run = runItem(s, runCondition(s), now);

  let retry: StatusItemText | undefined;
  if (s.retry) {
    const wait = Math.max(0, Math.ceil((s.retry.nextAt - now) / 1000));
    const label = t('Retry {0}/{1}', s.retry.attempt, s.retry.maxAttempts);
    retry = {
      text: s.retry.waiting ? `$(history) ${label} in ${wait} s` : `$(history) ${label}`,
      tooltip: t('Provider error: {0}', s.retry.errorMessage),
    };
  } else if (s.retryFailure && now - s.retryFailure.at < TRANSIENT_STATUS_MS) {
    retry = { text: t('$(error) Retries failed'), tooltip: s.retryFailure.message };
  } else if (s.retrySuccess && now - s.retrySuccess.at < TRANSIENT_STATUS_MS) {
    retry = {
      text: t('$(check) Retry {0}/{1} succeeded', s.retrySuccess.attempt, s.retrySuccess.maxAttempts),
      tooltip: t('The provider answered after {0} failed attempts.', s.retrySuccess.attempt),
    };
  }

  if (!retry && s.summaryRetry)
    retry = { text: `$(history) ${summaryRetryText(s.summaryRetry, now, true)}`, tooltip: t('Summarizing failed: {0}', s.summaryRetry.errorMessage) };

  let compaction: StatusItemText | undefined;
  if (s.compaction) {
    compaction = { text: t('$(fold) Compacting ({0})', s.compaction.reason), tooltip: t('Compaction started at {0}', clock(s.compaction.since)) };
  } else if (s.lastCompaction && now - s.lastCompaction.at < TRANSIENT_STATUS_MS) {
    const c = s.lastCompaction;
    if (c.ok) {
      const n = (v: number) => formatNumber(v);
      const text =
        c.tokensBefore !== undefined && c.tokensAfter !== undefined
          ? t('$(fold) Compacted {0} → {1} tokens', n(c.tokensBefore), n(c.tokensAfter))
          : c.tokensBefore !== undefined
            ? t('$(fold) Compacted from {0} tokens', n(c.tokensBefore))
            : t('$(fold) Compacted');
      compaction = { text, tooltip: t('Compaction ({0}) finished at {1}', c.reason, clock(c.at)) };
    } else {
      compaction = {
        text: c.aborted ? t('$(fold) Compaction cancelled') : t('$(error) Compaction failed'),
        tooltip: c.errorMessage ?? t('Compaction did not finish'),
      };
    }
  }
  return { run, retry, compaction };
}

/** The run item: a stall first (unless cancelling), then the phase, then how the last run ended. */
function runItem(s: RunState, c: RunCondition, now: number): StatusItemText {
  if (c.stalled && c.phase !== 'cancelling') {
    const secs = Math.round((now - (s.stalledSince ?? s.since)) / 1000);
    return { text: t('$(warning) Pi: no response for {0} s', secs), tooltip: t('Pi has sent nothing for a while. Click to cancel the run.') };
  }
  switch (c.phase) {
    case 'waiting':
      return { text: t('$(bell) Pi is waiting for you'), tooltip: t('A Pi extension asks you something in the chat. Click to open it.') };
    case 'starting':
      return { text: t('$(loading~spin) Pi: starting'), tooltip: t('Loading Pi: your prompt is sent as soon as the session is open. Click to cancel it.') };
    case 'running':
      return { text: t('$(sync~spin) Pi: running'), tooltip: t('Running since {0}. Click to cancel.', clock(s.since)) };
    case 'retrying':
      return { text: t('$(sync~spin) Pi: retrying'), tooltip: t('Waiting to retry after a provider error. Click to cancel.') };
    case 'compacting':
      return { text: t('$(sync~spin) Pi: compacting'), tooltip: t('Compacting the conversation. Click to cancel.') };
    case 'cancelling':
      return { text: t('$(loading~spin) Pi: cancelling'), tooltip: t('Cancelling: waiting for Pi to stop.') };
    case 'idle':
      break;
    default:
      assertNever(c.phase, 'run phase');
  }
  if (s.outcome?.kind === 'cancelled')
    return { text: t('$(circle-slash) Pi: cancelled'), tooltip: t('Run cancelled at {0}. Click to open the chat.', clock(s.outcome.at)) };
  if (s.outcome?.kind === 'error')
    return {
      text: t('$(error) Pi: error'),
      tooltip: t('Run failed at {0}: {1}. Click to open the chat.', clock(s.outcome.at), s.outcome.message ?? t('unknown error')),
    };
  return {
    text: t('$(check) Pi: idle'),
    tooltip: s.outcome ? t('Last run completed at {0}. Click to open the chat.', clock(s.outcome.at)) : t('Pi is ready. Click to open the chat.'),
  };
}
