/** What a run state means to a person: one reading that the status bar, the status line and the announcer share. */

import type { SummaryRetryView } from './runState.ts';

/** What a summary retry looks like now: the countdown while waiting, then the attempt (`short`: for the status bar). */
export function summaryRetryText(r: SummaryRetryView, now: number, short = false): string {
  const n = `${r.attempt}/${r.maxAttempts}`;
  const what = r.source === 'branchSummary' ? 'the branch summary' : 'the summary';
  if (r.waiting) {
    const wait = Math.max(0, Math.ceil((r.nextAt - now) / 1000));
    return short ? `Summary retry ${n} in ${wait} s` : `Summarizing failed: ${r.errorMessage} — retry ${n} in ${wait} s`;
  }
  return short ? `Summary retry ${n}` : `Writing ${what} again (attempt ${n})…`;
}
