/** The queue strip above the composer: both of Pi's queues in full, each message with Edit, Move up / down, Send now and Remove. */

import { assertNever } from '../shared/exhaustive.ts';
import type { QueueEdit, QueueKind } from '../shared/queueEdit.ts';
import { QueueAction } from './actions.ts';
import { iconButton } from './components.ts';
import { closestAction, h, setHidden } from './dom.ts';
import { t } from './l10n.ts';

/** What the queue strip's buttons do: Edit hands the message to the composer, the others go to the worker. */
export interface QueueStripHost {
  edit(queue: QueueKind, index: number, text: string): void;
  act(edit: QueueEdit): void;
}

/** The queue strip: both queues in full, as the last `queue_update` gave them, each message with its edits. */
export class QueueStrip {
  readonly el: HTMLElement;
  private readonly _list: HTMLElement;
  private _steering: readonly string[] = [];
  private _followUp: readonly string[] = [];

  constructor(host: QueueStripHost) {
    this._list = h('ul', { class: 'queue-list' });
    this._list.addEventListener('click', (e) => {
      const hit = closestAction(e.target, QueueAction);
      const item = hit?.el.closest('[data-queue]');
      if (!hit || !item) return;
      const queue = item.getAttribute('data-queue') === 'steering' ? 'steering' : 'followUp';
      const index = Number(item.getAttribute('data-index'));
      const text = (queue === 'steering' ? this._steering : this._followUp)[index];
      if (text === undefined) return;
      switch (hit.action) {
        case QueueAction.EditQueued:
          return host.edit(queue, index, text);
        case QueueAction.RemoveQueued:
          return host.act({ queue, index, text, op: 'remove' });
        case QueueAction.SendNow:
          return host.act({ queue, index, text, op: 'sendNow' });
        case QueueAction.MoveQueuedUp:
          return host.act({ queue, index, text, op: 'up' });
        case QueueAction.MoveQueuedDown:
          return host.act({ queue, index, text, op: 'down' });
        case QueueAction.StopEditingQueued:
          return;
        default:
          return assertNever(hit.action, 'queue action');
      }
    });
    // Queued texts wrap in full; a long queue scrolls, so the strip takes focus for the keyboard.
    this.el = h('div', { class: 'queue-strip', 'aria-label': t('Queued messages'), role: 'region', tabindex: 0, hidden: true }, this._list);
  }

  update(queue: { readonly steering: readonly string[]; readonly followUp: readonly string[] }): void {
    if (queue.steering === this._steering && queue.followUp === this._followUp) return;
    this._steering = queue.steering;
    this._followUp = queue.followUp;
    const items: HTMLElement[] = [];
    for (const [kind, label, texts] of [
      ['steering', t('Steer'), queue.steering],
      ['followUp', t('Follow-up'), queue.followUp],
    ] as const) {
      texts.forEach((text, index) => {
        items.push(
          h(
            'li',
            { class: `queue-item queue-${kind}`, 'data-queue': kind, 'data-index': index, title: text },
            h('span', { class: 'queue-kind' }, label),
            // Pi queues an images-only message with empty text.
            h('span', { class: 'queue-text' }, text || '(images)'),
            queueTools(kind, index, texts.length),
          ),
        );
      });
    }
    this._list.replaceChildren(...items);
    setHidden(this.el, items.length === 0);
  }
}

/** A queued message's buttons: Edit, Move up / down, Send now (a follow-up only: it becomes a steer), Remove. */
function queueTools(kind: QueueKind, index: number, count: number): HTMLElement {
  const tools = [
    iconButton('✎', t('Edit'), QueueAction.EditQueued),
    ...(index > 0 ? [iconButton('↑', t('Move up'), QueueAction.MoveQueuedUp)] : []),
    ...(index < count - 1 ? [iconButton('↓', t('Move down'), QueueAction.MoveQueuedDown)] : []),
    ...(kind === 'followUp' ? [iconButton('➤', t('Send now (steer instead of follow-up)'), QueueAction.SendNow)] : []),
    iconButton('✕', t('Remove'), QueueAction.RemoveQueued),
  ];
  return h('span', { class: 'queue-tools', role: 'toolbar', 'aria-label': t('Queued message') }, ...tools);
}
