/** What the worker tells the user about its session: notice rows in the transcript and VS Code notifications. */

import type { ImageAttachment } from '../shared/images.ts';
import type { NoticeCode, NoticeLevel, WireEvent } from '../shared/wire/events.ts';
import type { TranscriptState } from '../shared/transcript/rows.ts';
import type { Logger, RestoredInput, UserNotification } from '../shared/wire/workerProtocol.ts';
import { errorText } from './agentSession.ts';
import { describeSessionError } from './piErrors.ts';
import { t } from '../shared/l10n.ts';

/** Where notices go: the session's transcript, the main thread's notifications, the composer. */
export interface NoticeSink {
  state(): TranscriptState;
  apply(events: readonly WireEvent[]): void;
  notify(notification: UserNotification): void;
  restore(input: RestoredInput): void;
}

const noModel = (): string => t('No model is usable yet: sign in or enter an API key in the welcome above, then send again.');

/** The notices and notifications of one session, each worded once. */
export class SessionNotices {
  private readonly _sink: NoticeSink;
  private readonly _log: Logger;

  constructor(sink: NoticeSink, log: Logger) {
    this._sink = sink;
    this._log = log;
  }

  /** A notice row in the transcript. */
  notice(level: NoticeLevel, text: string, code?: NoticeCode): void {
    this._sink.apply([{ type: 'noticeMessage', level, text, code }]);
  }

  /** A VS Code notification. */
  notify(notification: UserNotification): void {
    this._sink.notify(notification);
  }

  /** Texts (and images) that did not reach Pi go back to the composer. */
  restoreInput(input: RestoredInput): void {
    this._sink.restore(input);
  }

  /** No model has credentials; `text` (and its images), when a prompt was refused for it, go back to the composer. */
  noModel(text: string | undefined, images?: readonly ImageAttachment[]): void {
    // A notice under the welcome, which is in sight: no VS Code notification on top of it.
    this.notice('error', noModel(), 'noModel');
    if (text !== undefined) this._sink.restore(restored(text, images));
  }

  /** A run that ended on a provider error (retries used up, or not retryable): say so and offer Retry. */
  providerError(message: string | undefined): void {
    const described = describeSessionError(new Error(message ?? 'unknown error'));
    // A refused key is said as such, with Replace key (the notice's action), not as a provider error to retry.
    if (described.code === 'noKey') return this.notice('error', described.message, 'noKey');
    const hint = described.code === 'noModel' ? ` ${described.message}` : '';
    // The errored message above already shows the provider's words; this says what happened and what to do.
    const text = this._sink.state().run.retryFailure
      ? t('Pi stopped after a provider error (automatic retries used up).{0} Retry sends your last message again.', hint)
      : t('Pi stopped after a provider error.{0} Retry sends your last message again.', hint);
    this.notice('error', text, 'providerError');
  }

  /** Pi refused a prompt: say why, and give the text (and its images) back to the composer. */
  inputRefused(text: string, err: unknown, images?: readonly ImageAttachment[]): void {
    const described = describeSessionError(err);
    this._log.error(`Prompt refused: ${errorText(err)}`);
    this.notice('error', described.message, described.code ?? 'promptFailed');
    this._sink.notify({ level: 'error', message: t('Pi: {0}', described.message), code: described.code });
    this._sink.restore(restored(text, images));
  }

  /** The checkpoint before a prompt was not taken (`why`); the prompt went ahead without one. */
  checkpointSkipped(why: string): void {
    this.notice(
      'warning',
      t(
        "No checkpoint was taken before this message ({0}): it cannot be restored to, and this run's Changes row shows only what Pi's edit and write tools changed.",
        why,
      ),
    );
  }

  /** A session could not be created (Pi failed to load, no workspace, a broken file). */
  sessionFailed(err: unknown): void {
    const described = describeSessionError(err);
    this._log.error(`Could not start a Pi session: ${errorText(err)}`);
    this.notice('error', described.message, described.code);
    this._sink.notify({ level: 'error', message: described.message, code: described.code });
  }

  /** Replacing the session (`what`: "start a new session", "fork the session", …) failed. */
  replaceFailed(what: string, err: unknown): void {
    this._log.error(`Could not ${what}: ${errorText(err)}`);
    this.notice('error', `Could not ${what}: ${errorText(err)}`);
  }

  /** An action that needs Pi's session runtime, asked for when there is none. */
  unsupported(what: string): void {
    this.notice('warning', `${what} is not available: no Pi session is open.`);
  }
}

/** One text (and its images) going back to the composer. */
export function restored(text: string, images: readonly ImageAttachment[] | undefined): RestoredInput {
  return { texts: [text], ...(images?.length ? { images } : {}) };
}
