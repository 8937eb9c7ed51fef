/** The run-state machine: what the agent is doing now and how the last run ended, from wire events alone. */

import { t } from '../l10n.ts';
import type { CompactionReason, SummarySource, WireEvent } from '../wire/events.ts';
import { unknownCase } from '../exhaustive.ts';

/** What the status bar and the webview's `data-run-state` show. */
export type RunPhase = 'idle' | 'starting' | 'running' | 'waiting' | 'retrying' | 'compacting' | 'cancelling';

/** How the last run ended. */
export interface RunOutcome {
  readonly kind: 'completed' | 'cancelled' | 'error';
  readonly message?: string;
  readonly at: number;
}

/** Pi retrying after a provider error. */
export interface RetryView {
  readonly attempt: number;
  readonly maxAttempts: number;
  /** Epoch ms of the next try; the countdown is derived from it. */
  readonly nextAt: number;
  readonly errorMessage: string;
  /** True between `retryStart` and the next `runStart`. */
  readonly waiting: boolean;
}

/** Pi retrying a summary that failed (compaction or branch summary), between `scheduled` and `finished`. */
export interface SummaryRetryView {
  readonly attempt: number;
  readonly maxAttempts: number;
  /** Epoch ms of the next attempt; the countdown is derived from it. */
  readonly nextAt: number;
  readonly errorMessage: string;
  /** True until the attempt starts. */
  readonly waiting: boolean;
  /** Known once an attempt starts. */
  readonly source?: SummarySource;
}

/** A compaction in progress. */
export interface CompactionView {
  readonly reason: CompactionReason;
  readonly since: number;
}

/** How the last compaction ended. */
export interface CompactionResultView {
  readonly reason: CompactionReason;
  readonly ok: boolean;
  readonly aborted: boolean;
  readonly tokensBefore?: number;
  readonly tokensAfter?: number;
  readonly errorMessage?: string;
  readonly at: number;
}

/** What the agent is doing now and how the last run ended. */
export interface RunState {
  /** A prompt was accepted and `agent_settled` has not come yet. */
  readonly active: boolean;
  readonly cancelling: boolean;
  /** A prompt is waiting for Pi to load and the session to open. */
  readonly starting?: boolean;
  readonly stalled: boolean;
  /** When Pi last said anything, while stalled (epoch ms). */
  readonly stalledSince?: number;
  readonly retry?: RetryView;
  /** Set when retries ran out; shown briefly after the run. */
  readonly retryFailure?: { readonly message: string; readonly at: number };
  /** Set when a retry got an answer; shown briefly, so a run that recovered says so after it ends. */
  readonly retrySuccess?: { readonly attempt: number; readonly maxAttempts: number; readonly at: number };
  readonly compaction?: CompactionView;
  readonly lastCompaction?: CompactionResultView;
  readonly summaryRetry?: SummaryRetryView;
  /** The newest provider error in the active run; cleared by a message that ends well. */
  readonly lastError?: string;
  readonly outcome?: RunOutcome;
  /** Extension dialogs open now: Pi is waiting for the user, not working (no watchdog). */
  readonly dialogs?: number;
  /** A `!` command runs (Cancel stops it). */
  readonly shell?: boolean;
  /** Epoch ms of the last change of phase. */
  readonly since: number;
}

/** Idle, nothing run yet. */
export const initialRunState: RunState = { active: false, cancelling: false, stalled: false, since: 0 };

/** The phase of `s`, most pressing first: the order `data-run-state` and the status bar follow. */
export function runPhase(s: RunState): RunPhase {
  if (s.cancelling && (s.active || s.compaction)) return 'cancelling';
  if (s.dialogs) return 'waiting';
  if (s.compaction) return 'compacting';
  if (s.retry?.waiting) return 'retrying';
  if (s.active || s.shell) return 'running';
  if (s.starting) return 'starting';
  return 'idle';
}

/** Applies one wire event. Only `settled` ends a run; `runEnd` never does (Pi may retry). An unknown event changes nothing. */
export function reduceRun(s: RunState, ev: WireEvent): RunState {
  const next = step(s, ev);
  if (next === s) return s;
  return runPhase(next) === runPhase(s) ? next : { ...next, since: atOf(ev) ?? s.since };
}

function atOf(ev: WireEvent): number | undefined {
  return 'at' in ev ? ev.at : undefined;
}

function step(s: RunState, ev: WireEvent): RunState {
  // Any sign of life from Pi clears the watchdog flag.
  const live = s.stalled && ev.type !== 'stalled' ? { ...s, stalled: false, stalledSince: undefined } : s;
  switch (ev.type) {
    case 'runStart':
      return {
        ...live,
        active: true,
        starting: undefined,
        outcome: s.active ? s.outcome : undefined,
        lastError: s.active ? s.lastError : undefined,
        retryFailure: s.active ? s.retryFailure : undefined,
        retrySuccess: s.active ? s.retrySuccess : undefined,
        retry: s.retry ? { ...s.retry, waiting: false } : undefined,
      };
    case 'assistantEnd':
      if (ev.stopReason === 'error') return { ...live, lastError: ev.errorMessage ?? t('The provider returned an error.') };
      if (ev.stopReason === 'aborted') return live;
      return live.lastError ? { ...live, lastError: undefined } : live;
    case 'retryStart':
      return {
        ...live,
        active: true,
        retry: { attempt: ev.attempt, maxAttempts: ev.maxAttempts, nextAt: ev.at + ev.delayMs, errorMessage: ev.errorMessage, waiting: true },
      };
    case 'retryEnd':
      return {
        ...live,
        retry: undefined,
        // A retry the user cancelled is a cancel, not a failure.
        retryFailure: ev.success || live.cancelling ? undefined : { message: ev.finalError ?? live.lastError ?? t('Retries failed'), at: ev.at },
        retrySuccess: ev.success && !live.cancelling ? { attempt: ev.attempt, maxAttempts: live.retry?.maxAttempts ?? ev.attempt, at: ev.at } : undefined,
      };
    case 'summaryRetry':
      if (ev.phase === 'scheduled')
        return {
          ...live,
          summaryRetry: { attempt: ev.attempt, maxAttempts: ev.maxAttempts, nextAt: ev.at + ev.delayMs, errorMessage: ev.errorMessage, waiting: true },
        };
      if (ev.phase === 'attempt') return live.summaryRetry ? { ...live, summaryRetry: { ...live.summaryRetry, waiting: false, source: ev.source } } : live;
      return live.summaryRetry ? { ...live, summaryRetry: undefined } : live;
    case 'compactionStart':
      return { ...live, compaction: { reason: ev.reason, since: ev.at } };
    case 'compactionEnd':
      return {
        ...live,
        compaction: undefined,
        // The compaction is over whatever Pi still says about its summary.
        summaryRetry: undefined,
        cancelling: live.active ? live.cancelling : false,
        lastCompaction: {
          reason: ev.reason,
          ok: !ev.aborted && !ev.errorMessage,
          aborted: ev.aborted,
          tokensBefore: ev.tokensBefore,
          tokensAfter: ev.tokensAfter,
          errorMessage: ev.errorMessage,
          at: ev.at,
        },
      };
    case 'settled': {
      const kind = ev.aborted ? 'cancelled' : ev.error || live.lastError || live.retryFailure ? 'error' : 'completed';
      const message = kind === 'error' ? (ev.error ?? live.retryFailure?.message ?? live.lastError) : undefined;
      return {
        ...live,
        active: false,
        cancelling: false,
        stalled: false,
        retry: undefined,
        outcome: { kind, message, at: ev.at },
      };
    }
    case 'cancelRequested':
      return live.active || live.compaction ? { ...live, cancelling: true } : live;
    case 'starting':
      return ev.on === (live.starting === true) ? live : { ...live, starting: ev.on || undefined };
    case 'stalled':
      return live.active ? { ...live, stalled: true, stalledSince: ev.since } : live;
    case 'reset':
      return { ...initialRunState };
    case 'dialogOpen':
      return { ...live, dialogs: (live.dialogs ?? 0) + 1 };
    case 'dialogClose':
      return live.dialogs ? { ...live, dialogs: live.dialogs - 1 } : live;
    case 'bashStart':
      return { ...live, shell: true };
    case 'bashEnd':
      return live.shell && ev.id !== undefined ? { ...live, shell: undefined } : live;
    case 'bashOutput':
    case 'userEntry':
    case 'plan':
    case 'widget':
    case 'workingMessage':
    case 'workingVisible':
      return live;
    case 'turnStart':
    case 'userMessage':
    case 'noticeMessage':
    case 'assistantStart':
    case 'blockStart':
    case 'delta':
    case 'blockEnd':
    case 'toolResult':
    case 'toolStart':
    case 'toolUpdate':
    case 'toolEnd':
    case 'turnEnd':
    case 'runEnd':
    case 'queue':
    case 'thinkingLevel':
    case 'sessionInfo':
    case 'changes':
      return live;
    case 'row':
    case 'patch':
    case 'cards':
    case 'state':
    case 'run':
      // The worker's changes carry the run state it reduced (a `run` change): nothing to step here.
      return s;
    default:
      return unknownCase(ev, s);
  }
}
