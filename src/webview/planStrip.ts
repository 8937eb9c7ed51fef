/**
 * Plan mode in the view: the composer's Plan toggle, and the strip above the composer with the plan reply's
 * actions (Open Plan, Act on Plan) and the checklist Pi works through (done / current / left), collapsible and
 * announced to screen readers as items are ticked.
 */

import { noPlan, planProgress, type PlanView } from '../shared/plan.ts';
import type { WebviewToHost } from '../shared/wire/webviewProtocol.ts';
import { Announcer } from './a11y.ts';
import { PlanAction } from './actions.ts';
import { closestAction, h, setAttr, setHidden, setText } from './dom.ts';
import { t } from './l10n.ts';

/** The toggle, the strip, and what they last showed. */
export class PlanStrip {
  /** The Plan toggle, for the composer's bar. */
  readonly toggle: HTMLButtonElement;
  /** The strip above the composer. */
  readonly el: HTMLElement;
  /** Where progress is said (a polite live region). */
  readonly announcer = new Announcer('announce-plan');
  private readonly _ready: HTMLElement;
  private readonly _act: HTMLButtonElement;
  private readonly _checklist: HTMLDetailsElement;
  private readonly _summary: HTMLElement;
  private readonly _list: HTMLOListElement;
  private _plan: PlanView | undefined;
  private _running: boolean | undefined;
  /** Items done when last rendered; undefined before the first plan arrived (a snapshot is not news). */
  private _done: number | undefined;

  constructor(post: (msg: WebviewToHost) => void) {
    this.toggle = h(
      'button',
      {
        type: 'button',
        class: 'btn btn-secondary plan-toggle',
        'data-testid': 'plan-toggle',
        'data-action': PlanAction.TogglePlan,
        'aria-pressed': 'false',
        title: t('Plan mode: Pi only reads and proposes a plan (Ctrl+Alt+P)'),
      },
      t('Plan'),
    );
    const open = h('button', { type: 'button', class: 'btn btn-secondary', 'data-action': PlanAction.OpenPlan, 'data-testid': 'open-plan' }, t('Open Plan'));
    this._act = h(
      'button',
      {
        type: 'button',
        class: 'btn',
        'data-action': PlanAction.ActOnPlan,
        'data-testid': 'act-on-plan',
        title: t('Leave plan mode and send the plan to Pi, with full tools'),
      },
      t('Act on Plan'),
    );
    this._ready = h('div', { class: 'plan-ready', hidden: true }, h('span', { class: 'plan-ready-text' }, t('The plan is ready.')), open, this._act);
    this._summary = h('summary', { class: 'plan-summary' });
    this._list = h('ol', { class: 'plan-items' });
    this._checklist = h('details', { class: 'plan-checklist', 'data-testid': 'plan-checklist', open: true, hidden: true }, this._summary, this._list);
    this.el = h(
      'div',
      { class: 'plan-strip', 'data-testid': 'plan-strip', role: 'region', 'aria-label': t('Plan'), hidden: true },
      this._ready,
      this._checklist,
    );
    const onClick = (e: MouseEvent): void => {
      const hit = closestAction(e.target, PlanAction);
      if (!hit) return;
      switch (hit.action) {
        case PlanAction.TogglePlan:
          return post({ type: 'runCommand', command: 'togglePlanMode' });
        case PlanAction.OpenPlan:
          return post({ type: 'runCommand', command: 'openPlan' });
        case PlanAction.ActOnPlan:
          return post({ type: 'runCommand', command: 'actOnPlan' });
      }
    };
    this.toggle.addEventListener('click', onClick);
    this.el.addEventListener('click', onClick);
  }

  render(plan: PlanView | undefined, running: boolean): void {
    const p = plan ?? noPlan;
    if (p === this._plan && running === this._running) return;
    this._running = running;
    setAttr(this._act, 'aria-disabled', String(running));
    this._act.disabled = running;
    if (p === this._plan) return;
    this._plan = p;
    setAttr(this.toggle, 'aria-pressed', String(p.on));
    setAttr(document.body, 'data-plan-mode', p.on ? 'on' : 'off');
    setHidden(this._ready, !p.draft);
    const progress = planProgress(p.items);
    setHidden(this._checklist, p.items.length === 0);
    setAttr(this._checklist, 'data-done', String(progress.done));
    setAttr(this._checklist, 'data-total', String(progress.total));
    setText(this._summary, t('Plan: {0}/{1} done', progress.done, progress.total));
    this._list.replaceChildren(
      ...p.items.map((item, i) => {
        const status = item.done ? 'done' : i === progress.current ? 'current' : 'left';
        const mark = status === 'done' ? '☑' : status === 'current' ? '▶' : '☐';
        return h(
          'li',
          { class: `plan-item plan-item-${status}`, 'data-status': status, ...(status === 'current' ? { 'aria-current': 'step' } : {}) },
          h('span', { class: 'plan-mark', 'aria-hidden': 'true' }, mark),
          h('span', { class: 'sr-only' }, status === 'done' ? t('done:') : status === 'current' ? t('current:') : t('left:')),
          ` ${item.text}`,
        );
      }),
    );
    setHidden(this.el, !p.draft && p.items.length === 0);
    if (this._done !== undefined && p.items.length && progress.done !== this._done) {
      const next = progress.current >= 0 ? ` ${t('Next: {0}', p.items[progress.current]!.text)}` : '';
      this.announcer.say(`${t('Plan: {0} of {1} done.', progress.done, progress.total)}${next}`);
    }
    this._done = progress.done;
  }
}
