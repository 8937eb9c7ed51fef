/**
 * The composer's side of the host: the messages that fill or focus it (texts back from the queue, chips,
 * an extension's `setEditorText`, "Edit and resend"), and its draft reported while Pi's extensions may read it.
 */

import { isCodeChip } from '../shared/chips.ts';
import { Disposable, toDisposable } from '../shared/disposable.ts';
import { isImageMimeType, parseImageAttachments, type ImageAttachment } from '../shared/images.ts';
import type { WebviewToHost } from '../shared/wire/webviewProtocol.ts';
import type { UserRow } from '../shared/transcript/rows.ts';
import type { Composer } from './composer.ts';
import type { HostMessageHandlers } from './dispatcher.ts';

/** The host messages the composer answers. */
export type ComposerMessages = Pick<
  HostMessageHandlers,
  'restoreInput' | 'addChip' | 'focusComposer' | 'trackComposer' | 'commands' | 'editorText' | 'setInput'
>;

/** How often, at most, the draft goes to the host while it is tracked (ms). */
const REPORT_DELAY_MS = 300;

/** Answers the host's composer messages and reports the draft; remembers the messages being edited until the host's rewind answers. */
export class ComposerBridge extends Disposable {
  readonly handlers: ComposerMessages;
  private readonly _composer: Composer;
  private readonly _post: (msg: WebviewToHost) => void;
  /** Set by the host while Pi's extensions are bound. */
  private _tracking = false;
  private _timer: ReturnType<typeof setTimeout> | undefined;
  /**
   * Texts of messages "Edit and resend" put in the composer whose rewind the host has not answered yet: that
   * answer (`setInput` with the same text) comes at any time, after the user typed or even sent, and changes nothing.
   */
  private readonly _rewinding: string[] = [];

  /** `showChat`: brings the chat back when the host fills the composer from another mode. */
  constructor(composer: Composer, post: (msg: WebviewToHost) => void, showChat: () => void) {
    super();
    this._composer = composer;
    this._post = post;
    this._register(toDisposable(() => clearTimeout(this._timer)));
    this.handlers = {
      restoreInput: (msg) => {
        if (!Array.isArray(msg.texts)) return;
        const images = msg.images === undefined ? undefined : parseImageAttachments(msg.images);
        composer.restore(
          msg.texts.filter((t): t is string => typeof t === 'string'),
          images?.ok ? images.images : [],
        );
      },
      addChip: (msg) => {
        if (isCodeChip(msg.chip)) composer.addChip(msg.chip, typeof msg.prompt === 'string' ? msg.prompt : undefined);
      },
      focusComposer: () => composer.focus(),
      trackComposer: (msg) => {
        this._tracking = msg.on === true;
        if (this._tracking) this.draftChanged();
      },
      commands: (msg) => {
        if (Array.isArray(msg.commands)) composer.slashMenu.setCommands(msg.commands.filter((c) => typeof c?.name === 'string'));
      },
      editorText: (msg) => {
        if (typeof msg.text === 'string') composer.setText(msg.text, msg.paste === true);
      },
      setInput: (msg) => {
        if (typeof msg.text !== 'string') return;
        const answered = this._rewinding.indexOf(msg.text);
        if (answered >= 0) {
          this._rewinding.splice(answered, 1);
          return;
        }
        showChat();
        this._replace(msg.text, []);
      },
    };
  }

  /** Lets an extension's `getEditorText()` read the draft; at most a few times a second while typing. */
  draftChanged(): void {
    if (!this._tracking || this._timer !== undefined || this.isDisposed) return;
    this._timer = setTimeout(() => {
      this._timer = undefined;
      this._post({ type: 'composerText', text: this._composer.draft });
    }, REPORT_DELAY_MS);
  }

  /**
   * "Edit and resend" of a row: its text and images replace the draft at once, so what the user edits and
   * sends never depends on when the host's rewind lands.
   */
  startEdit(text: string, media: UserRow['media']): void {
    this._rewinding.push(text);
    this._replace(text, attachmentsOf(media));
  }

  private _replace(text: string, images: readonly ImageAttachment[]): void {
    this._composer.textarea.value = '';
    this._composer.restore([text], images);
    this._composer.focus();
  }
}

/** The images of a row the composer can attach again (those the view has the bytes of). */
function attachmentsOf(media: UserRow['media']): ImageAttachment[] {
  const out: ImageAttachment[] = [];
  for (const v of media ?? []) if (v.data && isImageMimeType(v.mimeType)) out.push({ mimeType: v.mimeType, data: v.data });
  return out;
}
