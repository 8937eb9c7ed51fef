/** A worktree chat's strip under the header: the branch its Pi works on, and Apply, Discard and Open in New Window (which the host asks about in a card). */

import { assertNever } from '../shared/exhaustive.ts';
import type { WebviewToHost } from '../shared/wire/webviewProtocol.ts';
import { WorktreeAction } from './actions.ts';
import { closestAction, h } from './dom.ts';
import { t } from './l10n.ts';

/** The strip, or nothing for a chat in the workspace (`branch` undefined: the body has no `data-worktree`). */
export function worktreeStrip(branch: string | undefined, post: (msg: WebviewToHost) => void): HTMLElement | undefined {
  if (!branch) return undefined;
  const button = (action: (typeof WorktreeAction)[keyof typeof WorktreeAction], label: string, title: string, primary = false) =>
    h('button', { type: 'button', class: primary ? 'btn' : 'btn btn-secondary', 'data-action': action, title }, label);
  const el = h(
    'div',
    { class: 'worktree-strip', 'data-testid': 'worktree', role: 'region', 'aria-label': t('Worktree') },
    h(
      'span',
      { class: 'worktree-branch', title: t('Pi works in its own git worktree, on this branch; the workspace is unchanged until you apply.') },
      branchLabel(branch),
    ),
    button(WorktreeAction.ApplyWorktree, t('Apply'), t("Bring this worktree's changes into the workspace as uncommitted changes"), true),
    button(WorktreeAction.DiscardWorktree, t('Discard'), t('Delete this worktree and its branch')),
    button(WorktreeAction.OpenWorktreeWindow, t('Open in New Window'), t('Open the worktree in a new VS Code window')),
  );
  el.addEventListener('click', (e) => {
    const hit = closestAction(e.target, WorktreeAction);
    if (!hit) return;
    switch (hit.action) {
      case WorktreeAction.ApplyWorktree:
        return post({ type: 'runCommand', command: 'applyWorktree' });
      case WorktreeAction.DiscardWorktree:
        return post({ type: 'runCommand', command: 'discardWorktree' });
      case WorktreeAction.OpenWorktreeWindow:
        return post({ type: 'runCommand', command: 'openWorktreeWindow' });
      default:
        return assertNever(hit.action, 'worktree action');
    }
  });
  return el;
}

/** The chat's branch was renamed: the body's `data-worktree` and the strip's label name the new one. */
export function renameWorktreeBranch(root: HTMLElement, branch: string): void {
  root.ownerDocument.body.dataset.worktree = branch;
  const label = root.querySelector('.worktree-branch');
  if (label) label.textContent = branchLabel(branch);
}

// The strip and a rename both write this label, so the two always read the same.
function branchLabel(branch: string): string {
  return t('Worktree: {0}', branch);
}
