/** What a run state means to a person: one reading that the status bar, the status line and the announcer share. */

import { t } from '../l10n.ts';
import type { CompactionReason } from '../wire/events.ts';
import { runPhase, type CompactionResultView, type RetryView, type RunPhase, type RunState, type SummaryRetryView } from './runState.ts';

/** The one thing the status line says about a run, most pressing first (see `runCondition`). */
export type RunNote =
  | { readonly kind: 'cancelling' }
  /** A Pi extension's dialog waits for the user. */
  | { readonly kind: 'waiting' }
  | { readonly kind: 'summaryRetry'; readonly retry: SummaryRetryView }
  | { readonly kind: 'compacting'; readonly reason: CompactionReason }
  /** A provider error: waiting to try again, or trying again. */
  | { readonly kind: 'retry'; readonly retry: RetryView }
  /** Nothing from Pi since `since` (epoch ms) while a run is active. */
  | { readonly kind: 'stalled'; readonly since: number }
  | { readonly kind: 'retryFailed'; readonly message: string }
  | { readonly kind: 'compactionFailed'; readonly result: CompactionResultView };

/** A run state as every surface reads it. */
export interface RunCondition {
  /** The body's `data-run-state`, the status bar's run item, the `piPanel.running` context key. */
  readonly phase: RunPhase;
  /** Pi has said nothing for a while during an active run. */
  readonly stalled: boolean;
  /** What the status line says; undefined: the line hides. */
  readonly note?: RunNote;
  /**
   * Names the note without its clock, for the announcer: the same while only a countdown changes. A dialog is
   * left out, since the dialog announces itself.
   */
  readonly noteKey: string;
}

/** The run condition of `s`: the one place that orders what matters most. */
export function runCondition(s: RunState): RunCondition {
  const notes = runNotes(s);
  const note = notes[0];
  const announced = notes.find((n) => n.kind !== 'waiting');
  return { phase: runPhase(s), stalled: s.stalled && s.active, ...(note ? { note } : {}), noteKey: announced ? noteKey(announced) : '' };
}

/** Every note that applies to `s`, most pressing first. */
function runNotes(s: RunState): RunNote[] {
  const notes: RunNote[] = [];
  if (s.cancelling && (s.active || s.compaction)) notes.push({ kind: 'cancelling' });
  if (s.dialogs) notes.push({ kind: 'waiting' });
  if (s.summaryRetry) notes.push({ kind: 'summaryRetry', retry: s.summaryRetry });
  if (s.compaction) notes.push({ kind: 'compacting', reason: s.compaction.reason });
  if (s.retry) notes.push({ kind: 'retry', retry: s.retry });
  if (s.stalled && s.active) notes.push({ kind: 'stalled', since: s.stalledSince ?? s.since });
  if (!s.active && s.retryFailure) notes.push({ kind: 'retryFailed', message: s.retryFailure.message });
  if (!s.active && s.lastCompaction && !s.lastCompaction.ok) notes.push({ kind: 'compactionFailed', result: s.lastCompaction });
  return notes;
}

function noteKey(n: RunNote): string {
  switch (n.kind) {
    case 'cancelling':
    case 'waiting':
    case 'stalled':
      return n.kind;
    case 'summaryRetry':
      return `summaryRetry:${n.retry.waiting}:${n.retry.attempt}:${n.retry.errorMessage}`;
    case 'compacting':
      return `compacting:${n.reason}`;
    case 'retry':
      return `retry:${n.retry.waiting}:${n.retry.attempt}:${n.retry.errorMessage}`;
    case 'retryFailed':
      return `retryFailed:${n.message}`;
    case 'compactionFailed':
      return `compactionFailed:${String(n.result.aborted)}:${n.result.errorMessage}`;
  }
}

/** What the status line says for `n` at time `now` (epoch ms). */
export function noteText(n: RunNote, now: number): string {
  switch (n.kind) {
    case 'cancelling':
      return t('Cancelling…');
    case 'waiting':
      return t('Pi is waiting for you: answer the question in the chat.');
    case 'summaryRetry':
      return summaryRetryText(n.retry, now);
    case 'compacting':
      return t('Compacting the conversation ({0})…', n.reason);
    case 'retry': {
      const r = n.retry;
      const wait = Math.max(0, Math.ceil((r.nextAt - now) / 1000));
      return r.waiting
        ? t('Provider error: {0} — retry {1}/{2} in {3} s', r.errorMessage, r.attempt, r.maxAttempts, wait)
        : t('Retrying (attempt {0}/{1})…', r.attempt, r.maxAttempts);
    }
    case 'stalled': {
      const secs = Math.max(1, Math.round((now - n.since) / 1000));
      return t('No response from Pi for {0} s. Cancel the run, or cancel and retry.', secs);
    }
    case 'retryFailed':
      return t('Retries failed: {0}', n.message);
    case 'compactionFailed':
      return n.result.aborted ? t('Compaction cancelled.') : t('Compaction failed: {0}', n.result.errorMessage ?? t('unknown error'));
  }
}

/** What a summary retry looks like now: the countdown while waiting, then the attempt (`short`: for the status bar). */
export function summaryRetryText(r: SummaryRetryView, now: number, short = false): string {
  const n = `${r.attempt}/${r.maxAttempts}`;
  if (r.waiting) {
    const wait = Math.max(0, Math.ceil((r.nextAt - now) / 1000));
    return short ? t('Summary retry {0} in {1} s', n, wait) : t('Summarizing failed: {0} — retry {1} in {2} s', r.errorMessage, n, wait);
  }
  if (short) return t('Summary retry {0}', n);
  return r.source === 'branchSummary' ? t('Writing the branch summary again (attempt {0})…', n) : t('Writing the summary again (attempt {0})…', n);
}
