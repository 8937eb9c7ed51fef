/**
 * The dialog cards Pi's extensions and tool approvals open in the chat (select, confirm, input, editor),
 * answered inline by mouse or keyboard. Keyed by dialog id, so a render touches only what changed.
 */

import { dialogChoices, type ExtensionUiState } from '../shared/transcript/dialogsAndWidgets.ts';
import { type DialogView } from '../shared/wire/events.ts';
import { showInvisibles } from '../shared/visibleText.ts';
import { ConversationAction, DirectAction } from './actions.ts';
import { button } from './components.ts';
import { h, setHidden, setText } from './dom.ts';
import { t } from './l10n.ts';

export interface DialogHost {
  /** The user's answer; no `value` dismisses the dialog; `reason` is what an approval card's Deny sends. */
  answer(id: string, value: string | undefined, reason?: string): void;
  /** Focuses the composer: where focus goes when a closed card's opener is gone. */
  home?(): void;
}

interface Card {
  readonly el: HTMLElement;
  readonly dialog: DialogView;
  readonly countdown: HTMLElement;
  /** What takes focus when the card appears. */
  readonly first: HTMLElement;
}

/** The open dialogs, in the order they opened, inline after the transcript. */
export class DialogList {
  readonly el: HTMLElement;
  private readonly _cards = new Map<string, Card>();
  /** What had focus when a card took it (the Restore button that asked), by dialog id: focus goes back there. */
  private readonly _openers = new Map<string, HTMLElement>();
  private readonly _host: DialogHost;
  private _dialogs: readonly DialogView[] | undefined;
  /** Cards made so far: numbers each card's element ids. */
  private _cardCount = 0;
  private _ticker: ReturnType<typeof setInterval> | undefined;

  constructor(host: DialogHost) {
    this._host = host;
    this.el = h('div', { class: 'dialogs' });
    this.el.addEventListener('click', (e) => this._onClick(e));
    this.el.addEventListener('keydown', (e) => this._onKey(e));
  }

  /** Shows `dialogs`; a dialog that is new takes keyboard focus. */
  render(ui: ExtensionUiState | undefined): void {
    const dialogs = ui?.dialogs ?? [];
    if (dialogs === this._dialogs) return;
    this._dialogs = dialogs;
    const open = new Set(dialogs.map((d) => d.id));
    let focusLost = false;
    let opener: HTMLElement | undefined;
    for (const [id, card] of this._cards) {
      if (open.has(id)) continue;
      if (card.el.contains(document.activeElement)) {
        focusLost = true;
        opener ??= this._openers.get(id);
      }
      card.el.remove();
      this._cards.delete(id);
      this._openers.delete(id);
    }
    let fresh: Card | undefined;
    for (const d of dialogs) {
      if (this._cards.has(d.id)) continue;
      const card = makeCard(d, ++this._cardCount);
      this._cards.set(d.id, card);
      this.el.append(card.el);
      fresh ??= card;
    }
    this._tick();
    const timed = dialogs.some((d) => d.timeoutMs);
    if (timed && !this._ticker) this._ticker = setInterval(() => this._tick(), 1000);
    else if (!timed && this._ticker) {
      clearInterval(this._ticker);
      this._ticker = undefined;
    }
    // Focus moves to the question; once it is answered, to the next open one.
    const target = fresh ?? (focusLost ? [...this._cards.values()][0] : undefined);
    if (fresh) {
      const before = document.activeElement;
      if (before instanceof HTMLElement && before !== document.body && !this.el.contains(before)) this._openers.set(fresh.dialog.id, before);
    }
    if (target) target.first.focus();
    // The last card closed with focus in it: back to what opened it, or the composer; never the page body.
    else if (focusLost) {
      if (opener?.isConnected && !(opener as HTMLButtonElement).disabled) opener.focus();
      else this._host.home?.();
    }
  }

  /** Stops the countdown's ticking. */
  dispose(): void {
    clearInterval(this._ticker);
    this._ticker = undefined;
  }

  private _tick(): void {
    const now = Date.now();
    for (const card of this._cards.values()) {
      const timeout = card.dialog.timeoutMs;
      if (!timeout) continue;
      const secs = Math.max(0, Math.ceil((card.dialog.at + timeout - now) / 1000));
      setText(card.countdown, t('Dismissed automatically in {0} s', secs));
    }
  }

  private _cardOf(target: EventTarget | null): Card | undefined {
    const el = (target as Element | null)?.closest?.('[data-testid="dialog"]');
    const id = el?.getAttribute('data-dialog-id');
    return id ? this._cards.get(id) : undefined;
  }

  private _answer(card: Card, value: string | undefined, reason?: string): void {
    if (card.el.hasAttribute('data-answered')) return;
    card.el.setAttribute('data-answered', value === undefined ? 'dismissed' : 'answered');
    // Disabling the focused button would drop focus to the page body: the card holds it until it closes.
    const hadFocus = card.el.contains(document.activeElement);
    for (const b of card.el.querySelectorAll('button')) b.disabled = true;
    if (hadFocus) {
      card.el.tabIndex = -1;
      card.el.focus({ preventScroll: true });
    }
    this._host.answer(card.dialog.id, value, reason?.trim() || undefined);
  }

  /** An approval's Deny: at once, with whatever reason is in the card's field. */
  private _deny(card: Card): void {
    this._answer(card, DENY, card.el.querySelector<HTMLInputElement>('.dialog-reason')?.value);
  }

  private _onClick(e: MouseEvent): void {
    const card = this._cardOf(e.target);
    if (!card) return;
    const btn = (e.target as Element).closest('button');
    if (!btn) return;
    if (card.dialog.approval && btn.getAttribute('data-choice') === DENY) this._deny(card);
    else if (btn.hasAttribute('data-choice')) {
      const field = card.el.querySelector<HTMLInputElement | HTMLTextAreaElement>('.dialog-field');
      // input and editor submit their text; select and confirm their label.
      this._answer(card, field ? field.value : btn.getAttribute('data-choice')!);
    } else if (btn.getAttribute('data-action') === DirectAction.DialogDismiss) this._answer(card, undefined);
  }

  private _onKey(e: KeyboardEvent): void {
    const card = this._cardOf(e.target);
    if (!card || e.isComposing) return;
    const target = e.target as HTMLElement;
    if (e.key === 'Escape') {
      // Escape dismisses the question; it must not also cancel the run.
      e.preventDefault();
      e.stopPropagation();
      this._answer(card, undefined);
      return;
    }
    if (e.key === 'Enter' && target.classList.contains('dialog-reason')) {
      // Typing a reason means denying: Enter sends it.
      e.preventDefault();
      this._deny(card);
      return;
    }
    if (e.key === 'Enter' && target.classList.contains('dialog-field')) {
      // A one-line input submits on Enter; the editor on Ctrl/Cmd+Enter (Enter is a new line there).
      if (target.tagName === 'TEXTAREA' && !(e.ctrlKey || e.metaKey)) return;
      e.preventDefault();
      this._answer(card, (target as HTMLInputElement | HTMLTextAreaElement).value);
      return;
    }
    // l10n-ignore: not text the user reads
    if (['ArrowDown', 'ArrowUp', 'ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(e.key) && target.hasAttribute('data-choice')) {
      const choices = [...card.el.querySelectorAll<HTMLButtonElement>('button[data-choice]')];
      const i = choices.indexOf(target as HTMLButtonElement);
      const next =
        e.key === 'Home'
          ? 0
          : e.key === 'End'
            ? choices.length - 1
            : (i + (e.key === 'ArrowDown' || e.key === 'ArrowRight' ? 1 : -1) + choices.length) % choices.length;
      e.preventDefault();
      choices[next]?.focus();
    }
  }
}

/**
 * A restore card's files: each opens the diff of the checkpoint ↔ now (clickRouter.ts routes `open-diff`, the
 * checkpoint is the list's `data-run-id`).
 */
function restoreFiles(r: NonNullable<DialogView['restore']>): HTMLElement {
  const list = h('ul', { class: 'changes-list restore-files', 'data-run-id': r.checkpoint, 'aria-label': t('Files that will change') });
  for (const f of r.files) {
    // As in the Changes row: the name's invisible characters show (`data-path` keeps it as it is).
    const name = showInvisibles(f.path, { oneLine: true });
    list.append(
      h(
        'li',
        { class: 'change-file', 'data-path': f.path },
        button(name, ConversationAction.OpenDiff, 'link', {
          class: 'btn btn-link file-link',
          'data-path': f.path,
          title: t('Open the diff of {0}: the checkpoint ↔ now', name),
        }),
        h('span', { class: 'change-added', 'aria-label': t('{0} lines added since', f.added) }, `+${f.added}`),
        h('span', { class: 'change-removed', 'aria-label': t('{0} lines removed since', f.removed) }, `−${f.removed}`),
        ...(f.created ? [h('span', { class: 'change-note' }, t('new: restoring deletes it'))] : []),
        ...(f.note ? [h('span', { class: 'change-note' }, showInvisibles(f.note))] : []),
      ),
    );
  }
  return list;
}

/**
 * A choice's label: the approval card's choices (and a confirm's Yes / No, which the worker words)
 * in the display language; `data-choice` keeps the English the worker answers with, which e2e cases click by.
 */
function choiceLabel(approval: boolean | undefined, choice: string): string {
  if (approval && choice === 'Allow') return t('Allow');
  if (approval && choice === 'Allow for session') return t('Allow for session');
  if (approval && choice === 'Always allow') return t('Always allow');
  if (approval && choice === DENY) return t('Deny');
  if (choice === 'Yes') return t('Yes');
  if (choice === 'No') return t('No');
  // A worktree chat's Apply and Discard cards.
  if (choice === 'Apply') return t('Apply');
  if (choice === 'Merge Branch') return t('Merge Branch');
  if (choice === 'Discard') return t('Discard');
  if (choice === 'Cancel') return t('Cancel');
  return showInvisibles(choice);
}

/** The approval card's Deny, as its `data-choice` (the English the worker answers with). */
// l10n-ignore: not text the user reads
const DENY = 'Deny';

/** `n`: a number no other card of the page has, for its element ids. */
function makeCard(d: DialogView, n: number): Card {
  const titleId = `dialog-title-${n}`;
  const messageId = `dialog-message-${n}`;
  const choices = dialogChoices(d);
  const title = h('div', { class: 'dialog-title', id: titleId }, showInvisibles(d.title));
  // An approval's text is the whole command or preview: it scrolls, by keyboard too.
  const message = d.message
    ? h(
        'div',
        { class: 'dialog-message', id: messageId, ...(d.approval ? { tabindex: 0, role: 'region', 'aria-label': t('What Pi will run or write') } : {}) },
        showInvisibles(d.message),
      )
    : undefined;
  const reason =
    d.approval && choices.includes(DENY)
      ? h('input', {
          type: 'text',
          class: 'dialog-reason',
          'aria-label': t('Reason for Deny (optional), sent to Pi'),
          placeholder: t('Reason for Deny (optional), sent to Pi'),
        })
      : undefined;
  const countdown = h('div', { class: 'dialog-countdown', 'aria-live': 'off' });
  setHidden(countdown, !d.timeoutMs);
  let field: HTMLInputElement | HTMLTextAreaElement | undefined;
  if (d.kind === 'input') {
    field = h('input', { type: 'text', class: 'dialog-field', 'aria-labelledby': titleId, placeholder: d.placeholder ?? '' });
  } else if (d.kind === 'editor') {
    field = h('textarea', { class: 'dialog-field', rows: 6, 'aria-labelledby': titleId, 'aria-describedby': `${messageId}-hint` });
    field.value = d.prefill ?? '';
  }
  const buttons = choices.length
    ? choices.map((c, i) => button(choiceLabel(d.approval, c), DirectAction.DialogChoice, i === 0 ? 'primary' : 'secondary', { 'data-choice': c }))
    : [button(t('Submit'), DirectAction.DialogChoice, 'primary', { 'data-choice': 'Submit' })];
  const dismiss = button(t('Dismiss'), DirectAction.DialogDismiss, 'secondary', { title: t('Dismiss (Escape)') });
  const hint = h(
    'div',
    { class: 'dialog-hint', id: `${messageId}-hint` },
    d.kind === 'editor'
      ? t('Ctrl+Enter submits · Escape dismisses')
      : d.kind === 'input'
        ? t('Enter submits · Escape dismisses')
        : d.approval
          ? t('Arrow keys move · Enter chooses · Enter in the reason denies · Escape dismisses')
          : t('Arrow keys move · Enter chooses · Escape dismisses'),
  );
  const el = h(
    'section',
    {
      class: `dialog-card dialog-${d.kind}${d.approval ? ' dialog-approval' : ''}`,
      'data-testid': 'dialog',
      'data-kind': d.kind,
      'data-dialog-id': d.id,
      role: 'dialog',
      'aria-modal': 'false',
      'aria-labelledby': titleId,
      ...(message ? { 'aria-describedby': messageId } : {}),
    },
    h(
      'div',
      { class: 'dialog-origin' },
      d.approval ? t("Pi Agent Panel's approval (setting piPanel.approval)") : d.panel ? t('Pi Agent Panel asks') : t('A Pi extension asks'),
    ),
    title,
    ...(message ? [message] : []),
    ...(d.restore ? [restoreFiles(d.restore)] : []),
    ...(field ? [field] : []),
    ...(reason ? [reason] : []),
    h('div', { class: 'dialog-choices', role: 'group', 'aria-label': t('Answers') }, ...buttons, dismiss),
    hint,
    countdown,
  );
  return { el, dialog: d, countdown, first: field ?? buttons[0]! };
}
