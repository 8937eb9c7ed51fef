/** The view's own keyboard shortcuts: find in chat, the prompt navigator's steps, and Escape to cancel a run. */

import { toDisposable, type IDisposable } from '../shared/disposable.ts';

/** What the shortcuts act on. */
export interface ViewKeyTargets {
  /** Ctrl/Cmd+F: the chat's own find box. */
  find(): void;
  /** Alt+Up/Down: the previous (-1) or next (1) of the user's own messages. */
  step(direction: -1 | 1): void;
  /** Escape, unless something on the page took it: cancels the run if one is going (true: it took the key). */
  cancel(): boolean;
}

/** Listens for the view's shortcuts on `doc` until disposed. */
export function viewKeys(doc: Document, targets: ViewKeyTargets): IDisposable {
  const onKey = (e: KeyboardEvent): void => {
    // The chat's own find searches the whole session; the page's find would see only the rows on screen.
    if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'f') {
      e.preventDefault();
      targets.find();
      return;
    }
    if (e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey && (e.key === 'ArrowUp' || e.key === 'ArrowDown')) {
      e.preventDefault();
      targets.step(e.key === 'ArrowUp' ? -1 : 1);
      return;
    }
    if (e.key === 'Escape' && !e.defaultPrevented && targets.cancel()) e.preventDefault();
  };
  doc.addEventListener('keydown', onKey);
  return toDisposable(() => doc.removeEventListener('keydown', onKey));
}
