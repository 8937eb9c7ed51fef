/**
 * The view's tree mode (`/tree`): every branch of the open session, the current path marked, each user and
 * assistant entry a button that moves the session there (`navigateTree`). Nothing is removed by moving.
 */

import { assertNever } from '../shared/exhaustive.ts';
import { type WebviewToHost } from '../shared/wire/webviewProtocol.ts';
import type { TreeNodeView } from '../shared/sessions.ts';
import { showInvisibles } from '../shared/visibleText.ts';
import { TreeAction } from './actions.ts';
import { closestAction, h, setText } from './dom.ts';
import { t } from './l10n.ts';

export class SessionTreeView {
  readonly el: HTMLElement;
  private readonly _list: HTMLUListElement;
  private readonly _summary: HTMLElement;
  private readonly _post: (msg: WebviewToHost) => void;

  constructor(post: (msg: WebviewToHost) => void, back: () => void) {
    this._post = post;
    this._list = h('ul', { class: 'tree-list', 'aria-label': t('Session branches') });
    this._summary = h('p', { class: 'sessions-summary', role: 'status' });
    const backButton = h('button', { type: 'button', class: 'btn btn-secondary btn-small', 'data-action': TreeAction.BackToChat }, t('Back to chat'));
    this.el = h(
      'section',
      { class: 'session-tree', 'data-testid': 'session-tree', 'aria-label': t('Session tree'), hidden: true },
      h('div', { class: 'mode-bar' }, h('h2', { class: 'mode-title' }, t('Branches')), backButton),
      this._summary,
      this._list,
    );
    this.el.addEventListener('click', (e) => {
      const hit = closestAction(e.target, TreeAction);
      if (!hit) return;
      switch (hit.action) {
        case TreeAction.BackToChat:
          return back();
        case TreeAction.NavigateTree: {
          const id = hit.el.closest('[data-entry-id]')?.getAttribute('data-entry-id');
          if (id) this._post({ type: 'navigateTree', entryId: id });
          return;
        }
        default:
          return assertNever(hit.action, 'tree action');
      }
    });
    this.el.addEventListener('keydown', (e) => {
      if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
      const item = (e.target as Element).closest?.('[data-entry-id]');
      const next = (e.key === 'ArrowDown' ? item?.nextElementSibling : item?.previousElementSibling)?.querySelector<HTMLElement>('button');
      if (next) {
        e.preventDefault();
        next.focus();
      }
    });
  }

  show(nodes: readonly TreeNodeView[]): void {
    const branches = nodes.filter((n) => n.depth > 0 && !n.onPath).length;
    setText(
      this._summary,
      nodes.length === 0
        ? t('Nothing in this session yet.')
        : branches
          ? t('{0} entries, {1} off the current branch', nodes.length, branches)
          : t('{0} entries', nodes.length),
    );
    this._list.replaceChildren(
      ...nodes.map((n) => {
        const who = n.kind === 'user' ? t('You') : t('Pi');
        // An entry's text and label come from the session file: invisible characters in them show.
        const text = showInvisibles(n.text, { oneLine: true });
        const label = n.label ? showInvisibles(n.label, { oneLine: true }) : undefined;
        const state = `${n.branchStart ? t(', starts a branch') : ''}${n.isLeaf ? t(' (you are here)') : n.onPath ? '' : t(' (other branch)')}`;
        return h(
          'li',
          {
            class: `tree-item tree-${n.kind}${n.onPath ? ' on-path' : ''}${n.isLeaf ? ' is-leaf' : ''}`,
            'data-entry-id': n.id,
            'data-depth': n.depth,
            'aria-current': n.isLeaf ? 'true' : undefined,
          },
          h(
            'button',
            {
              type: 'button',
              class: 'tree-entry',
              'data-action': TreeAction.NavigateTree,
              'aria-label': t('{0}: {1}{2}{3}. Move here.', who, text, label ? ` [${label}]` : '', state),
            },
            // Plain text indent (the CSP allows no inline styles): two spaces a level, a corner where a branch starts.
            h(
              'span',
              { class: 'tree-indent', 'aria-hidden': 'true' },
              `${'  '.repeat(Math.max(0, Math.min(n.depth, 12) - 1))}${n.depth ? (n.branchStart ? '└ ' : '  ') : ''}`,
            ),
            h('span', { class: 'tree-who' }, `${who}: `),
            h('span', { class: 'tree-text' }, text),
            ...(label ? [h('span', { class: 'tree-label' }, label)] : []),
          ),
        );
      }),
    );
  }

  focus(): void {
    this._list.querySelector<HTMLElement>('.is-leaf button, button')?.focus();
  }
}
