/**
 * The view's Sessions mode: this workspace's saved sessions a page at a time, a search box, and per session
 * Open, Rename (inline) and Delete (the host asks first). Only the rows of the pages shown are in the DOM.
 */

import { showInvisibles } from '../shared/visibleText.ts';
import { assertNever } from '../shared/exhaustive.ts';
import { type WebviewToHost } from '../shared/wire/webviewProtocol.ts';
import { sessionTitle, shortStats, statsLine, type SessionPage, type SessionSummary } from '../shared/sessions.ts';
import { SessionsAction } from './actions.ts';
import { closestAction, h, setHidden, setText } from './dom.ts';
import { displayLanguage, formatAgo, t } from './l10n.ts';

/** How long the search box waits for typing to pause before asking the host. */
const SEARCH_DEBOUNCE_MS = 150;

export class SessionsView {
  readonly el: HTMLElement;
  private readonly _search: HTMLInputElement;
  private readonly _list: HTMLUListElement;
  private readonly _more: HTMLButtonElement;
  private readonly _summary: HTMLElement;
  private readonly _post: (msg: WebviewToHost) => void;
  private readonly _back: () => void;
  private _shown = 0;
  private _query = '';
  /** What each row on screen shows, so a row can be drawn again when another chat opens or leaves its session. */
  private readonly _rows = new Map<HTMLLIElement, { readonly summary: SessionSummary; readonly current: boolean; readonly openIn: string | undefined }>();
  private _searchTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(post: (msg: WebviewToHost) => void, back: () => void) {
    this._post = post;
    this._back = back;
    this._search = h('input', {
      type: 'search',
      class: 'sessions-search',
      'data-testid': 'sessions-search',
      placeholder: t('Search sessions'),
      'aria-label': t('Search sessions'),
    });
    this._list = h('ul', { class: 'sessions-list', 'aria-label': t('Saved sessions') });
    this._more = h(
      'button',
      { type: 'button', class: 'btn btn-secondary sessions-more', 'data-action': SessionsAction.MoreSessions, hidden: true },
      t('Show more'),
    );
    this._summary = h('p', { class: 'sessions-summary', role: 'status' });
    const backButton = h('button', { type: 'button', class: 'btn btn-secondary btn-small', 'data-action': SessionsAction.BackToChat }, t('Back to chat'));
    this.el = h(
      'section',
      { class: 'sessions', 'data-testid': 'sessions', 'aria-label': t('Sessions'), hidden: true },
      h('div', { class: 'mode-bar' }, h('h2', { class: 'mode-title' }, t('Sessions')), backButton),
      this._search,
      this._summary,
      this._list,
      this._more,
    );
    this._search.addEventListener('input', () => {
      clearTimeout(this._searchTimer);
      this._searchTimer = setTimeout(() => this.reload(), SEARCH_DEBOUNCE_MS);
    });
    this._search.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this._search.value) {
        e.preventDefault();
        e.stopPropagation();
        this._search.value = '';
        this.reload();
      }
    });
    this.el.addEventListener('click', (e) => this._onClick(e));
    this.el.addEventListener('keydown', (e) => this._onKey(e));
  }

  /** Asks the host for the first page of the current search. */
  reload(): void {
    this._query = this._search.value.trim();
    this._post({ type: 'listSessions', query: this._query, offset: 0 });
  }

  focus(): void {
    this._search.focus();
  }

  /** Shows a page: the first replaces the list, later ones append. A page for an older search is dropped. */
  show(page: SessionPage): void {
    if (page.query !== this._query) return;
    if (page.offset !== 0 && page.offset !== this._shown) return;
    if (page.offset === 0) this._rows.clear();
    const rows = page.sessions.map((s) => {
      const shown = { summary: s, current: s.path === page.current, openIn: page.openIn?.[s.path] };
      const li = this._row(shown.summary, shown.current, shown.openIn);
      this._rows.set(li, shown);
      return li;
    });
    if (page.offset === 0) this._list.replaceChildren(...rows);
    else this._list.append(...rows);
    this._shown = page.offset + page.sessions.length;
    const left = page.total - this._shown;
    setHidden(this._more, left <= 0);
    setText(this._more, t('Show more ({0} more)', left));
    setText(
      this._summary,
      page.total === 0
        ? page.query
          ? t('No session matches "{0}".', page.query)
          : t('No saved sessions for this folder yet.')
        : page.query
          ? page.total === 1
            ? t('1 session matching "{0}"', page.query)
            : t('{0} sessions matching "{1}"', page.total, page.query)
          : page.total === 1
            ? t('1 session')
            : t('{0} sessions', page.total),
    );
  }

  /**
   * Another chat opened or left a listed session: its row says so now, not at the next search. A row that had the
   * focus keeps it (the same button in the new row).
   */
  markOpen(openIn: Readonly<Record<string, string>>): void {
    for (const [li, shown] of [...this._rows]) {
      const where = typeof openIn[shown.summary.path] === 'string' ? openIn[shown.summary.path] : undefined;
      if (where === shown.openIn || !li.isConnected) continue;
      const next = { ...shown, openIn: where };
      const row = this._row(next.summary, next.current, next.openIn);
      const focused = document.activeElement instanceof HTMLElement && li.contains(document.activeElement) ? document.activeElement.dataset.action : undefined;
      li.replaceWith(row);
      this._rows.delete(li);
      this._rows.set(row, next);
      if (focused) row.querySelector<HTMLElement>(`[data-action="${focused}"]`)?.focus();
    }
  }

  /** `openIn`: the other chat that has the session open; opening the row shows that chat. */
  private _row(s: SessionSummary, current: boolean, openIn: string | undefined): HTMLLIElement {
    // A session's name comes from its file (or a model's /name): bidi controls in it are shown, not obeyed, and
    // tag or zero-width characters shown, not hidden.
    const title = showInvisibles(sessionTitle(s), { oneLine: true });
    const when = new Date(s.modified);
    const meta = [
      relativeTime(when),
      s.messageCount === 1 ? t('1 message') : t('{0} messages', s.messageCount),
      ...(s.model ? [s.model] : []),
      ...(s.stats && s.stats.input + s.stats.output > 0 ? [shortStats(s.stats)] : []),
      ...(current ? [t('open now')] : []),
    ].join(' · ');
    const where = openIn ? t('open in {0}', showInvisibles(openIn, { oneLine: true })) : undefined;
    const tip = `${title}\n${when.toLocaleString(displayLanguage())}${s.model ? `\n${showInvisibles(s.model, { oneLine: true })}` : ''}${s.stats ? `\n${statsLine(s.stats)}` : ''}${where ? `\n${where}` : ''}`;
    return h(
      'li',
      { class: `session-item${current ? ' is-current' : ''}`, 'data-session-file': s.path, 'aria-current': current ? 'true' : undefined },
      h(
        'button',
        { type: 'button', class: 'session-open', 'data-action': SessionsAction.OpenSession, title: tip },
        h('span', { class: 'session-title' }, title),
        h('span', { class: 'session-meta' }, meta),
        ...(where ? [h('span', { class: 'session-open-in', 'data-testid': 'session-open-in' }, where)] : []),
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'btn-icon session-rename',
          'data-action': SessionsAction.RenameSession,
          'aria-label': t('Rename {0}', title),
          title: t('Rename'),
        },
        t('Rename'),
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'btn-icon session-delete',
          'data-action': SessionsAction.DeleteSession,
          'aria-label': t('Delete {0}', title),
          title: t('Delete'),
          disabled: current,
        },
        t('Delete'),
      ),
    );
  }

  private _onClick(e: MouseEvent): void {
    const hit = closestAction(e.target, SessionsAction);
    if (!hit) return;
    const file = hit.el.closest('[data-session-file]')?.getAttribute('data-session-file') ?? '';
    switch (hit.action) {
      case SessionsAction.BackToChat:
        return this._back();
      case SessionsAction.MoreSessions:
        return this._post({ type: 'listSessions', query: this._query, offset: this._shown });
      case SessionsAction.OpenSession:
        return this._post({ type: 'openSession', file });
      case SessionsAction.DeleteSession:
        return this._post({ type: 'deleteSession', file });
      case SessionsAction.RenameSession:
        return this._startRename(hit.el.closest('li')!, file);
      default:
        return assertNever(hit.action, 'sessions action');
    }
  }

  private _onKey(e: KeyboardEvent): void {
    // Up and down move between sessions, as in a list.
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const current = (e.target as Element).closest?.('.session-item');
    if (!current) return;
    const next = (e.key === 'ArrowDown' ? current.nextElementSibling : current.previousElementSibling)?.querySelector<HTMLElement>('.session-open');
    if (next) {
      e.preventDefault();
      next.focus();
    }
  }

  /** Swaps the title for a text box: Enter saves, Escape or leaving it cancels. */
  private _startRename(row: HTMLElement, file: string): void {
    const titleEl = row.querySelector('.session-title');
    if (!titleEl || row.querySelector('.session-rename-input')) return;
    const input = h('input', {
      type: 'text',
      class: 'session-rename-input',
      value: titleEl.textContent ?? '',
      maxlength: 200,
      'aria-label': t('New session name'),
    });
    const open = row.querySelector<HTMLElement>('.session-open')!;
    setHidden(open, true);
    row.insertBefore(input, open);
    input.focus();
    input.select();
    let finished = false;
    const finish = (save: boolean) => {
      // Removing the focused box fires its blur, which would finish a second time.
      if (finished) return;
      finished = true;
      const name = input.value.trim();
      input.remove();
      setHidden(open, false);
      if (save && name) {
        setText(titleEl, showInvisibles(name, { oneLine: true }));
        this._post({ type: 'renameSession', file, name });
      }
      open.focus();
    };
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        finish(true);
      } else if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        finish(false);
      }
    });
    input.addEventListener('blur', () => finish(false));
  }
}

/** "5 minutes ago", "yesterday", or a date, in the display language. */
function relativeTime(when: Date, now = Date.now()): string {
  const s = Math.round((now - when.getTime()) / 1000);
  if (s < 60) return t('just now');
  if (s < 7 * 86_400) return formatAgo(when.getTime(), now);
  return when.toLocaleDateString(displayLanguage());
}
