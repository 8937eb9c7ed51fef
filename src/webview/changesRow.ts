/** The "Changes" row after a run that changed files: per file +/− lines, Open Diff and Undo; Undo all. */

import type { FileChangeView } from '../shared/wire/events.ts';
import { ConversationAction } from './actions.ts';
import { button } from './components.ts';
import { h } from './dom.ts';

/** Renders `files` into `el` (the row's body), replacing what was there. */
export function renderChanges(el: HTMLElement, files: readonly FileChangeView[]): void {
  const open = files.filter((f) => !f.undone && !f.note);
  const head = h(
    'div',
    { class: 'changes-head' },
    h('span', { class: 'changes-title' }, 'Changes'),
    h('span', { class: 'changes-count' }, `${files.length} file${files.length === 1 ? '' : 's'}`),
  );
  if (open.length > 0)
    head.append(
      button('Undo all', ConversationAction.UndoAll, 'secondary', { class: 'btn btn-secondary btn-small', 'aria-label': "Undo all of this run's changes" }),
    );
  const list = h('ul', { class: 'changes-list' });
  for (const f of files) list.append(fileItem(f));
  el.replaceChildren(head, list);
}

function fileItem(f: FileChangeView): HTMLElement {
  const li = h('li', { class: 'change-file', 'data-path': f.path, 'data-undone': f.undone ? 'true' : undefined });
  li.append(
    button(f.path, ConversationAction.OpenFile, 'link', {
      class: 'btn btn-link file-link',
      'data-path': f.path,
      title: `Open ${f.path} at the first changed line`,
    }),
    h('span', { class: 'change-added', 'aria-label': `${f.added} lines added` }, `+${f.added}`),
    h('span', { class: 'change-removed', 'aria-label': `${f.removed} lines removed` }, `−${f.removed}`),
  );
  if (f.created) li.append(h('span', { class: 'change-note' }, 'new'));
  if (f.note) {
    li.append(h('span', { class: 'change-note' }, `no diff or undo: ${f.note}`));
    return li;
  }
  if (f.undone) {
    li.append(h('span', { class: 'change-note' }, 'undone'));
    return li;
  }
  li.append(
    button('Open Diff', ConversationAction.OpenDiff, 'secondary', {
      class: 'btn btn-secondary btn-small',
      'data-path': f.path,
      'aria-label': `Open diff of ${f.path}`,
    }),
    button('Undo', ConversationAction.UndoFile, 'secondary', {
      class: 'btn btn-secondary btn-small',
      'data-path': f.path,
      'aria-label': f.created ? `Undo: delete ${f.path}, which Pi created` : `Undo the changes to ${f.path}`,
    }),
  );
  return li;
}
