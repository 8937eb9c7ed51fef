/** The "Changes" row after a run that changed files, as a compact list: per file its name, +/− lines and icon buttons Open Diff and Undo; Undo all. */

import { showInvisibles } from '../shared/visibleText.ts';
import type { FileChangeView } from '../shared/wire/events.ts';
import { ConversationAction } from './actions.ts';
import { button, codiconButton, toolbar } from './components.ts';
import { h } from './dom.ts';
import { t } from './l10n.ts';
import { markPending } from './reviewPending.ts';

/** Renders `files` into `el` (the row's body), replacing what was there. */
export function renderChanges(el: HTMLElement, files: readonly FileChangeView[]): void {
  const open = files.filter((f) => !f.undone && !f.note);
  const head = h(
    'div',
    { class: 'changes-head' },
    h('span', { class: 'changes-title' }, t('Changes')),
    h('span', { class: 'changes-count' }, `${files.length} file${files.length === 1 ? '' : 's'}`),
  );
  if (open.length > 0) head.append(toolbar(codiconButton('discard', t("Undo all of this run's changes"), ConversationAction.UndoAll)));
  const list = h('ul', { class: 'changes-list' });
  for (const f of files) list.append(fileItem(f));
  el.replaceChildren(head, list);
  markPending(el);
}

function fileItem(f: FileChangeView): HTMLElement {
  const li = h('li', { class: 'change-file', 'data-path': f.path, 'data-undone': f.undone ? 'true' : undefined });
  // A file name is anyone's text: a U+202E in it must show, not reverse the name (`data-path` keeps it as it is).
  const name = showInvisibles(f.path, { oneLine: true });
  li.append(
    button(name, ConversationAction.OpenFile, 'link', {
      class: 'btn btn-link file-link',
      'data-path': f.path,
      title: t('Open {0} at the first changed line', name),
    }),
    h('span', { class: 'change-added', 'aria-label': t('{0} lines added', f.added) }, `+${f.added}`),
    h('span', { class: 'change-removed', 'aria-label': t('{0} lines removed', f.removed) }, `−${f.removed}`),
  );
  if (f.created) li.append(h('span', { class: 'change-note' }, 'new'));
  if (f.note) {
    li.append(h('span', { class: 'change-note' }, t('no diff or undo: {0}', showInvisibles(f.note))));
    return li;
  }
  if (f.undone) {
    li.append(h('span', { class: 'change-note' }, 'undone'));
    return li;
  }
  li.append(
    toolbar(
      codiconButton('diff', t('Open diff of {0}', name), ConversationAction.OpenDiff, { 'data-path': f.path }),
      codiconButton('discard', f.created ? t('Undo: delete {0}, which Pi created', name) : t('Undo the changes to {0}', name), ConversationAction.UndoFile, {
        'data-path': f.path,
      }),
    ),
  );
  return li;
}
