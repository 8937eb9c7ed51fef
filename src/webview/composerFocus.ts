/**
 * Where the focus goes when a page made again gets it. A hidden view's page is dropped (it is not kept alive) and a
 * new one is made when the view is shown: a page kept alive would have the browser put the focus back on the element
 * that had it, a new one starts on its body. So the page remembers (in its UI state) whether the composer had the
 * focus when it went, and the new page puts the focus back there the first time it gets it.
 */

export class ComposerFocus {
  private _had: boolean;
  private _returned = false;
  private readonly _input: HTMLElement;

  /** `had`: the composer had the focus as the last page went (its UI state); `changed`: keep the new answer. */
  constructor(input: HTMLElement, had: boolean, changed: () => void) {
    this._input = input;
    this._had = had;
    const set = (on: boolean): void => {
      if (on === this._had) return;
      this._had = on;
      changed();
    };
    input.addEventListener('focus', () => set(true));
    // Only a move to another element of this page: the focus leaving the page (another tab, the editor) keeps the
    // answer, and the page may be gone before a later save could be written.
    input.addEventListener('blur', (e) => {
      if (e.relatedTarget instanceof Node && e.relatedTarget !== input) set(false);
    });
  }

  /** Whether the composer has the focus, or had it when the focus left the page. */
  get had(): boolean {
    return this._had;
  }

  /** The page got the focus: the first time, the composer gets it back if it had it. */
  pageFocused(): void {
    if (this._returned) return;
    this._returned = true;
    if (this._had && document.activeElement !== this._input) this._input.focus();
  }
}
