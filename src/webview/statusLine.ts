/** The inline status line above the composer: retry countdown, compaction, cancelling, a stalled run and its "Cancel and retry". */

import { Disposable, toDisposable } from '../shared/disposable.ts';
import { noteText, runCondition } from '../shared/run/runCondition.ts';
import { type RunState } from '../shared/run/runState.ts';
import type { Announcer } from './a11y.ts';
import { ConversationAction } from './actions.ts';
import { h, setHidden, setText } from './dom.ts';
import { t } from './l10n.ts';

/** Renders the run's state as a line of text, ticking each second while it counts; changes of state are announced. */
export class StatusLine extends Disposable {
  /** The line; its "Cancel and retry" is routed with the conversation's clicks. */
  readonly el: HTMLElement;
  private readonly _text: HTMLElement;
  private readonly _stalledRetry: HTMLButtonElement;
  private readonly _announcer: Announcer;
  private readonly _focusComposer: () => void;
  private _run: RunState | undefined;
  private _announced = '';
  private _timer: ReturnType<typeof setInterval> | undefined;

  /** `announcer`: the live region that tells changes of state; `focusComposer`: where focus goes when the retry button it held hides. */
  constructor(announcer: Announcer, focusComposer: () => void) {
    super();
    this._announcer = announcer;
    this._focusComposer = focusComposer;
    this._text = h('span', { class: 'status-text' });
    // Offered when a run has gone quiet: cancel it and send the last prompt again.
    this._stalledRetry = h(
      'button',
      { type: 'button', class: 'btn btn-secondary btn-small', 'data-action': ConversationAction.RetryLast, hidden: true },
      t('Cancel and retry'),
    );
    // Not a live region itself: its countdown ticks every second. Changes of state are told by the announcer.
    this.el = h('div', { class: 'status-line', hidden: true }, this._text, this._stalledRetry);
    this._register(toDisposable(() => this._stopTicking()));
  }

  /** Shows `run`; nothing happens while it is the run already shown. */
  render(run: RunState): void {
    if (run === this._run) return;
    this._run = run;
    this._renderStatus();
  }

  private _renderStatus(): void {
    const r = this._run;
    if (!r) return;
    const { note } = runCondition(r);
    const text = note ? noteText(note, Date.now()) : '';
    setText(this._text, text);
    const retryHad = document.activeElement === this._stalledRetry;
    setHidden(this._stalledRetry, !(r.stalled && r.active && !r.cancelling));
    // "Cancel and retry" hides once used: focus goes to the composer rather than the page body.
    if (retryHad && this._stalledRetry.hidden) this._focusComposer();
    setHidden(this.el, text === '');
    // Announced when the state changes (a new attempt, a stall, compaction), never on a countdown tick.
    const kind = runCondition(r).noteKey;
    if (kind !== this._announced) {
      this._announced = kind;
      if (text) this._announcer.say(text);
    }
    const ticking = r.retry?.waiting === true || r.summaryRetry?.waiting === true || (r.stalled && r.active);
    if (ticking && this._timer === undefined && !this.isDisposed) this._timer = setInterval(() => this._renderStatus(), 1000);
    else if (!ticking) this._stopTicking();
  }

  private _stopTicking(): void {
    if (this._timer === undefined) return;
    clearInterval(this._timer);
    this._timer = undefined;
  }
}
