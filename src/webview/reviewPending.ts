/** The Changes rows' review marks: each file's pending changes (`data-pending`), "N of M changes left", Keep all and Review. */

import type { PendingSummary } from '../shared/wire/webviewProtocol.ts';
import { ConversationAction } from './actions.ts';
import { button } from './components.ts';
import { h } from './dom.ts';
import { t } from './l10n.ts';

let current: PendingSummary = { files: {}, left: 0, total: 0 };

/** The chat's pending changes changed: every Changes row in `root` shows them. */
export function setPending(pending: PendingSummary, root: ParentNode): void {
  current = pending;
  for (const row of root.querySelectorAll<HTMLElement>('[data-testid="changes"] .blocks')) markPending(row);
}

/** Marks one Changes row's body (after it was drawn) with the pending changes. */
export function markPending(el: HTMLElement): void {
  for (const li of el.querySelectorAll<HTMLElement>('li.change-file[data-path]')) {
    const n = Object.hasOwn(current.files, li.dataset.path!) ? current.files[li.dataset.path!]! : 0;
    li.setAttribute('data-pending', String(n));
  }
  const head = el.querySelector('.changes-head');
  if (!head) return;
  head.querySelector('.changes-review')?.remove();
  const paths = [...el.querySelectorAll<HTMLElement>('li.change-file[data-path]')].map((li) => li.dataset.path!);
  if (!current.left || !paths.some((p) => (current.files[p] ?? 0) > 0)) return;
  head.append(
    h(
      'span',
      { class: 'changes-review' },
      h('span', { class: 'changes-left' }, t('{0} of {1} changes left', current.left, current.total)),
      button(t('Keep all'), ConversationAction.KeepAll, 'secondary', {
        class: 'btn btn-secondary btn-small',
        'aria-label': t('Keep all pending changes'),
      }),
      button(t('Review'), ConversationAction.Review, 'secondary', {
        class: 'btn btn-secondary btn-small',
        'aria-label': t('Review the pending changes in the multi-file diff editor'),
      }),
    ),
  );
}
