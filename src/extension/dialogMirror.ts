/**
 * A waiting question (an approval, a Pi extension's dialog) announced as a notification while the chat is
 * hidden, retired when the dialog closes another way (answered in the chat, timed out, cancelled). No
 * `vscode` here: the surface is passed in.
 */

import type { DialogView } from '../shared/wire/events.ts';
import { plainNotificationText } from '../shared/notificationText.ts';
import { t } from '../shared/l10n.ts';

/** What the mirror needs of VS Code. */
export interface MirrorSurface {
  /** A notification with buttons; resolves with the one clicked, or undefined when it is closed. */
  show(text: string, buttons: readonly string[]): PromiseLike<string | undefined>;
  openChat(): PromiseLike<void>;
  /** A short, passing message (the status bar's), for a click that came too late to count. */
  say(text: string): void;
}

/** The notification's one button, in the display language (looked up when shown: the bundle is set at activation). */
const openChatLabel = () => t('Open Chat');

/**
 * A question is answered in the chat's card only, where its whole text is shown as it is: a notification
 * renders `[label](…)` as a link and is capped, so what it shows is not a basis for any answer. It says that
 * Pi is waiting and offers Open Chat, nothing else: the surface cannot answer a dialog at all.
 *
 * VS Code cannot take a notification back, so once its dialog closes the notification's buttons are
 * disarmed: a late click answers nothing (the dialog, or a later one with the same choices, is left alone)
 * and says why.
 */
export class DialogMirror {
  /** Mirrored dialogs still open, by id; the value is how they ended once they do. */
  private readonly _open = new Map<string, string | undefined>();
  /** Dialogs open in the chat, by id, and whether they were announced. */
  private readonly _waiting = new Map<string, { dialog: DialogView; announced: boolean }>();
  private readonly _surface: MirrorSurface;

  constructor(surface: MirrorSurface) {
    this._surface = surface;
  }

  /**
   * A dialog opened in the chat: announced now when the chat is out of sight, else once it goes out of sight
   * while the dialog is still open (the view's hiding and the dialog reach the host by separate paths, so a
   * chat hidden just as a question opens is told of it a moment later). Each dialog is announced once.
   */
  opened(d: DialogView, visible: boolean): void {
    this._waiting.set(d.id, { dialog: d, announced: this._waiting.get(d.id)?.announced ?? false });
    this.sightChanged(visible);
  }

  /** The chat may have gone out of sight (or come back): announces each open dialog not announced yet. */
  sightChanged(visible: boolean): void {
    if (visible || !this._waiting.size) return;
    for (const entry of this._waiting.values()) {
      if (entry.announced) continue;
      entry.announced = true;
      void this.mirror(entry.dialog);
    }
  }

  /** Shows `d` as a notification; resolves when the notification is clicked or closed. */
  async mirror(d: DialogView): Promise<void> {
    if (this._open.has(d.id)) return;
    this._open.set(d.id, undefined);
    const text = d.approval
      ? t('Pi is waiting for your approval. Open the chat to read what would run and answer there.')
      : t('Pi is waiting for you: {0}. Open the chat to answer.', plainNotificationText(d.title));
    try {
      const openChat = openChatLabel();
      const picked = await this._surface.show(text, [openChat]);
      const ended = this._open.get(d.id);
      if (picked !== openChat) return;
      if (ended !== undefined) {
        this._surface.say(t('Pi: "{0}" was already {1}.', plainNotificationText(d.title), ending(ended)));
        return;
      }
      await this._surface.openChat();
    } finally {
      this._open.delete(d.id);
    }
  }

  /** The dialog closed (`outcome`: "answered Allow", "dismissed", "timed out", …): its notification no longer answers it. */
  closed(id: string, outcome: string): void {
    this._waiting.delete(id);
    if (this._open.has(id)) this._open.set(id, outcome || 'closed');
  }

  /** Mirrored dialogs whose notification is still out, open or not. */
  get pending(): number {
    return this._open.size;
  }
}

/** How a dialog's outcome ("answered Allow", "timed out", "session closed", …) reads after "was already". */
function ending(outcome: string): string {
  if (outcome.startsWith('answered ')) return `answered (${outcome.slice('answered '.length)})`;
  if (outcome === 'session closed') return t('closed with its session');
  return outcome;
}
