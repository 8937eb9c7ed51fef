/**
 * A reply cut off before Pi saved it (VS Code reloaded, the worker crashed): journaled while it streams, shown
 * as interrupted once a later session proves Pi never saved it, and handed back to Pi on Continue.
 */

import type { Scheduler } from '../shared/batcher.ts';
import { Disposable } from '../shared/disposable.ts';
import { t } from '../shared/l10n.ts';
import { streamingTurn, TurnJournal, turnIsSaved, type JournaledTurn, type TurnJournalStore } from '../shared/run/turnJournal.ts';
import type { TranscriptMirror } from './transcriptMirror.ts';

/** One chat's interrupted replies; `PiClient` tells it when sessions open, workers stop and histories replay. */
export class InterruptedReplies extends Disposable {
  private readonly _mirror: TranscriptMirror;
  private readonly _clock: Scheduler;
  private readonly _sessionFile: () => string | undefined;
  private readonly _store: TurnJournalStore | undefined;
  private readonly _journal: TurnJournal | undefined;
  /** A journal an earlier extension host left (it ended mid-turn): checked against Pi's session once it opens. */
  private _left: JournaledTurn | undefined;
  /** Set by a stop that found a question waiting: what it journaled stays for the next extension host. */
  private _keep = false;
  /** The reply last shown as interrupted, which Continue hands back to Pi. */
  private _interrupted: JournaledTurn | undefined;
  /** The next worker replays the session: the interrupted reply is shown again after the replay. */
  private _replaying = false;

  /** `store`: where the streaming turn is kept against a crash (the extension's storage); none keeps nothing. */
  constructor(mirror: TranscriptMirror, clock: Scheduler, sessionFile: () => string | undefined, store?: TurnJournalStore) {
    super();
    this._mirror = mirror;
    this._clock = clock;
    this._sessionFile = sessionFile;
    this._store = store;
    if (!store) return;
    this._left = store.load();
    const journal = new TurnJournal(store, clock);
    this._journal = journal;
    this._register(
      mirror.onDidEmit((events) => {
        // A stop that dismissed a waiting question keeps the journal: the next extension host says so.
        if (this._keep) return;
        if (events.some((e) => e.type === 'settled' || e.type === 'reset')) journal.clear();
        else if (mirror.isActive) {
          const turn = streamingTurn(mirror.state, sessionFile());
          if (turn) journal.update(turn);
        }
      }),
    );
  }

  /** After a reload: a turn the last extension host journaled but Pi never saved is shown as interrupted, once. */
  sessionOpened(): void {
    const left = this._left;
    if (!left) return;
    this._left = undefined;
    this._store?.clear();
    // A turn of another session stays there; one Pi saved (a stop that settled in time) is on screen already.
    if (left.sessionFile && left.sessionFile !== this._sessionFile()) return;
    for (const title of left.dialogs ?? [])
      this._mirror.notice(
        'warning',
        t('A question was waiting when VS Code reloaded or Pi stopped: "{0}". It was answered as dismissed; nothing it asked about was allowed.', title),
      );
    if (!left.text.trim() || turnIsSaved(this._mirror.state, left)) return;
    this._show(left);
  }

  /** A stop on purpose: a question waiting now is answered as dismissed (fail-closed), and the next view says so. */
  stopping(): void {
    const state = this._mirror.state;
    const turn = state.ui?.dialogs.length ? streamingTurn(state, this._sessionFile()) : undefined;
    if (!turn || !this._journal) return;
    this._journal.writeNow(turn);
    this._keep = true;
  }

  /** The reply streaming now, before a crashed worker's run is marked failed; show it with `cut`. */
  streaming(): JournaledTurn | undefined {
    const turn = this._mirror.isActive ? streamingTurn(this._mirror.state, this._sessionFile()) : undefined;
    return turn && { ...turn, at: this._clock.now() };
  }

  /** Shows a reply a crash cut off as interrupted. */
  cut(turn: JournaledTurn): void {
    this._show(turn);
  }

  /** The next worker opens the session with its history: the interrupted reply is shown again after it. */
  replayNext(): void {
    this._replaying = true;
  }

  /** A snapshot replaced the transcript: after a replay `replayNext` announced, the reply a fault cut off is shown again. */
  replayed(): void {
    if (!this._replaying) return;
    this._replaying = false;
    const turn = this._interrupted;
    const file = this._sessionFile();
    if (turn && (!turn.sessionFile || turn.sessionFile === file) && !turnIsSaved(this._mirror.state, turn)) this._show(turn);
  }

  /** The prompt that asks Pi to go on from the reply last shown as interrupted, once; none without one. */
  takeContinuePrompt(): string | undefined {
    const turn = this._interrupted;
    if (!turn) return undefined;
    this._interrupted = undefined;
    return (
      // l10n-ignore: sent to Pi, not shown
      'Your previous reply was cut off (VS Code reloaded or Pi stopped) before it was saved. ' +
      // l10n-ignore: sent to Pi, not shown
      `My message was:\n\n${turn.prompt}\n\nWhat you had written so far:\n\n${turn.text}\n\nContinue from where it stopped.`
    );
  }

  private _show(turn: JournaledTurn): void {
    this._interrupted = turn;
    this._mirror.notice('warning', t("**Interrupted — not saved in Pi's session.** The reply so far:\n\n{0}", turn.text), 'interrupted');
  }
}
