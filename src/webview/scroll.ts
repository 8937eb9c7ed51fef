/**
 * Scroll anchoring for the transcript: follow the bottom while the user is there, stay put when they
 * scrolled up, and offer "jump to latest". Following happens in a ResizeObserver callback, after layout,
 * so streaming never forces a synchronous layout from script.
 */

import { DirectAction } from './actions.ts';
import { h, setHidden } from './dom.ts';
import { t } from './l10n.ts';

const BOTTOM_SLACK_PX = 32;

export class ScrollAnchor {
  readonly jump: HTMLButtonElement;
  private readonly _scroller: HTMLElement;
  private _follow: boolean;
  private _programmatic = false;
  onChange: (() => void) | undefined;
  /** False while newer rows wait below the rendered ones: reaching the bottom then pages them in instead of following. */
  canFollow: () => boolean = () => true;

  constructor(scroller: HTMLElement, content: HTMLElement, follow: boolean) {
    this._scroller = scroller;
    this._follow = follow;
    this.jump = h(
      'button',
      { type: 'button', class: 'jump-latest', 'data-action': DirectAction.JumpLatest, hidden: true, 'aria-label': t('Jump to latest message') },
      t('↓ Jump to latest'),
    );
    this.jump.addEventListener('click', () => this.toBottom());
    scroller.addEventListener('scroll', () => this._onScroll(), { passive: true });
    new ResizeObserver(() => {
      if (this._follow) this._stick();
    }).observe(content);
    new ResizeObserver(() => {
      if (this._follow) this._stick();
    }).observe(scroller);
  }

  get following(): boolean {
    return this._follow;
  }

  /** Distance from the bottom in pixels (for UI-state persistence). */
  get fromBottom(): number {
    const s = this._scroller;
    return Math.max(0, s.scrollHeight - s.scrollTop - s.clientHeight);
  }

  toBottom(): void {
    this._follow = true;
    this._stick();
    setHidden(this.jump, true);
    this.onChange?.();
  }

  /** Stops following the newest rows, as a scroll up does (find in chat goes to a match above). */
  release(): void {
    if (!this._follow) return;
    this._follow = false;
    setHidden(this.jump, false);
    this.onChange?.();
  }

  /** Restores a saved position measured from the bottom. */
  restore(follow: boolean, fromBottom: number): void {
    if (follow) return this.toBottom();
    this._follow = false;
    const s = this._scroller;
    this._programmatic = true;
    s.scrollTop = Math.max(0, s.scrollHeight - s.clientHeight - fromBottom);
    setHidden(this.jump, false);
  }

  /**
   * Keeps what the user sees in place while rows are added or dropped above or below it: the row at the
   * top of the view (a child of `rows`) stays where it is, or else the distance from the bottom does.
   */
  keepPosition(change: () => void, rows?: HTMLElement): void {
    const s = this._scroller;
    const anchor = rows ? topChild(rows, s.getBoundingClientRect().top) : undefined;
    const anchorTop = anchor?.getBoundingClientRect().top ?? 0;
    const fromBottom = s.scrollHeight - s.scrollTop;
    change();
    this._programmatic = true;
    if (anchor?.isConnected) s.scrollTop += anchor.getBoundingClientRect().top - anchorTop;
    else s.scrollTop = s.scrollHeight - fromBottom;
  }

  private _stick(): void {
    const s = this._scroller;
    const target = s.scrollHeight - s.clientHeight;
    if (Math.abs(s.scrollTop - target) > 1) {
      this._programmatic = true;
      s.scrollTop = target;
    }
  }

  private _onScroll(): void {
    const s = this._scroller;
    const atBottom = s.scrollHeight - s.scrollTop - s.clientHeight <= BOTTOM_SLACK_PX && this.canFollow();
    if (this._programmatic) {
      this._programmatic = false;
      if (this._follow) return;
    }
    if (atBottom !== this._follow) {
      this._follow = atBottom;
      setHidden(this.jump, atBottom);
    }
    this.onChange?.();
  }
}

/** The first child of `parent` whose bottom is below `top` (the row at the top of the view); a binary search. */
function topChild(parent: HTMLElement, top: number): Element | undefined {
  const kids = parent.children;
  let lo = 0;
  let hi = kids.length - 1;
  let found: Element | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const el = kids[mid]!;
    if (el.getBoundingClientRect().bottom > top) {
      found = el;
      hi = mid - 1;
    } else lo = mid + 1;
  }
  return found;
}
