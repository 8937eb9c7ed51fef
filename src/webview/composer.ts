/**
 * The composer: a multi-line text area that is never disabled, Send while idle, Steer / Follow-up /
 * Cancel while a run is active, input history on Up/Down, and the queue strip above it.
 * Keys: Enter or Ctrl/Cmd+Enter sends (steers while running), Shift+Enter is a new line,
 * Alt+Enter queues a follow-up, Escape cancels a running run.
 */

import { expandChips, type CodeChip } from '../shared/chips.ts';
import type { ImageAttachment } from '../shared/images.ts';
import { assertNever } from '../shared/exhaustive.ts';
import { MAX_PROMPT_CHARS, type SendMode } from '../shared/wire/webviewProtocol.ts';
import { isBuiltin, parseSlash, type BuiltinName } from '../shared/slashCommands.ts';
import { ComposerAction, DirectAction, QueueAction } from './actions.ts';
import { ChipStrip } from './chips.ts';
import { button } from './components.ts';
import { closestAction, h, setAttr, setHidden, setText } from './dom.ts';
import { filesOf, IMAGE_ACCEPT, ImageStrip } from './images.ts';
import { SlashMenu } from './slashMenu.ts';
import { droppedUris, URI_LIST_TYPES } from './uriDrop.ts';
import { formatNumber, t } from './l10n.ts';

const HISTORY_MAX = 100;

export interface ComposerHost {
  /** `images` are the attached images, if any (then `text` may be empty). */
  send(text: string, mode: SendMode, images?: readonly ImageAttachment[]): void;
  cancel(): void;
  /** The draft or history changed (for UI-state persistence). */
  changed(): void;
  /** `@` typed at the start of a word: the host opens its workspace file picker. */
  pickFile(): void;
  /** Files or folders dropped from the Explorer or an editor tab (their URIs): the host makes chips of them. */
  dropUris(uris: readonly string[]): void;
  /** One of the panel's own slash commands (`/new`, `/compact …`). */
  slash(name: BuiltinName, args: string): void;
  /** The slash menu opened: ask the host for the commands. */
  requestCommands(): void;
  /** `!command` runs in Pi's shell; `!!command` too, kept out of the model's context. */
  bash(command: string, excluded: boolean): void;
  /** The attached images changed (added, removed, sent). */
  imagesChanged(images: readonly ImageAttachment[]): void;
}

export class Composer {
  readonly el: HTMLElement;
  readonly textarea: HTMLTextAreaElement;
  private readonly _actions: HTMLElement;
  private readonly _bar: HTMLElement;
  private readonly _send: HTMLButtonElement;
  private readonly _steer: HTMLButtonElement;
  private readonly _followUp: HTMLButtonElement;
  private readonly _cancel: HTMLButtonElement;
  private readonly _hint: HTMLElement;
  private readonly _error: HTMLElement;
  private readonly _host: ComposerHost;
  private _running: boolean | undefined;
  private _history: string[];
  /** Position while browsing history; `history.length` is the draft being written. */
  private _historyPos: number;
  private _stash = '';
  private readonly _chips: ChipStrip;
  private readonly _images: ImageStrip;
  private readonly _fileInput: HTMLInputElement;
  readonly slashMenu: SlashMenu;
  /** Edit on the queue strip: the next send saves the composer's text into that queued message; `draft` comes back after. */
  private _editing: { readonly save: (text: string) => void; readonly draft: string } | undefined;
  private readonly _editBanner: HTMLElement;
  private readonly _editLabel: HTMLElement;

  constructor(host: ComposerHost, draft: string, history: readonly string[]) {
    this._host = host;
    this._history = history.slice(-HISTORY_MAX);
    this._historyPos = this._history.length;
    this.textarea = h('textarea', {
      'data-testid': 'composer',
      class: 'composer-input',
      rows: 3,
      placeholder: t('Ask Pi… (Enter to send, Shift+Enter for a new line)'),
      'aria-label': t('Message to Pi'),
      'aria-describedby': 'composer-hint',
    });
    this.textarea.value = draft;
    this.slashMenu = new SlashMenu({ requestCommands: () => host.requestCommands() });
    setAttr(this.textarea, 'aria-autocomplete', 'list');
    setAttr(this.textarea, 'aria-controls', this.slashMenu.listId);
    // No aria-expanded: a textbox may not carry it (axe: aria-allowed-attr); the open listbox is named by aria-controls.
    this.slashMenu.el.addEventListener('mousedown', (e) => {
      // Keep focus in the composer while choosing with the mouse.
      e.preventDefault();
      const c = this.slashMenu.commandAt(e.target);
      if (!c) return;
      this.slashMenu.close();
      this._setValue(`/${c.name} `);
    });
    this._send = button(t('Send'), ComposerAction.Send, 'primary', { 'data-testid': 'send', title: t('Send (Enter)') });
    this._steer = button(t('Steer'), ComposerAction.Steer, 'primary', {
      'data-testid': 'steer',
      title: t('Steer: delivered after the current tool results (Enter)'),
    });
    this._followUp = button(t('Follow-up'), ComposerAction.FollowUp, 'secondary', {
      'data-testid': 'followUp',
      title: t('Follow-up: delivered after the run (Alt+Enter)'),
    });
    this._cancel = button(t('Cancel'), ComposerAction.Cancel, 'secondary', { 'data-testid': 'cancel', title: t('Cancel the run (Escape)') });
    this._hint = h('div', { id: 'composer-hint', class: 'composer-hint' });
    this._actions = h('div', { class: 'composer-actions' });
    this._error = h('div', { class: 'composer-error', role: 'alert', hidden: true });
    this._chips = new ChipStrip(
      () => this._host.changed(),
      () => this.focus(),
    );
    this._images = new ImageStrip(
      () => this._host.changed(),
      (message) => this._showError(message),
      () => this.focus(),
    );
    this._images.onDidChange = (images) => host.imagesChanged(images);
    // The picker is the keyboard's (and the tests') way in; paste and drop are the quick ones.
    this._fileInput = h('input', {
      type: 'file',
      accept: IMAGE_ACCEPT,
      multiple: true,
      class: 'sr-only',
      tabindex: -1,
      'aria-hidden': 'true',
      'data-testid': 'image-input',
    });
    this._fileInput.addEventListener('change', () => {
      const files = Array.from(this._fileInput.files ?? []);
      this._fileInput.value = '';
      void this._images.addFiles(files);
    });
    const attach = h(
      'button',
      {
        type: 'button',
        class: 'btn btn-icon attach-image',
        'data-testid': 'attach-image',
        'data-action': DirectAction.AttachImage,
        'aria-label': t('Attach images'),
        title: t('Attach images (or paste or drop them here)'),
      },
      // A picture glyph drawn by the stylesheet in the theme's colour (an emoji may be missing from the font).
      h('span', { class: 'attach-image-icon', 'aria-hidden': 'true' }),
    );
    attach.addEventListener('click', () => this._fileInput.click());
    this._editLabel = h('span', { class: 'queue-editing-label' });
    const stopEditing = button(t('Stop editing'), QueueAction.StopEditingQueued, 'secondary');
    stopEditing.addEventListener('click', () => this._endEdit());
    this._editBanner = h('div', { class: 'queue-editing', role: 'status', hidden: true }, this._editLabel, stopEditing);
    this.el = h(
      'div',
      { class: 'composer' },
      this._editBanner,
      this.slashMenu.el,
      this._chips.el,
      this._images.el,
      this.textarea,
      this._error,
      (this._bar = h('div', { class: 'composer-bar' }, attach, this._fileInput, this._hint, this._actions)),
    );
    this.textarea.addEventListener('paste', (e) => {
      const files = filesOf(e.clipboardData);
      // Text with a picture beside it (a spreadsheet, a web page) pastes as text.
      if (!files.length || e.clipboardData?.types.includes('text/plain')) return;
      e.preventDefault();
      void this._images.addFiles(files);
    });
    this.el.addEventListener('dragover', (e) => {
      const types = e.dataTransfer?.types ?? [];
      // l10n-ignore: a DataTransfer type
      if (!types.includes('Files') && !URI_LIST_TYPES.some((t) => types.includes(t))) return;
      e.preventDefault();
      e.dataTransfer!.dropEffect = 'copy';
    });
    this.el.addEventListener('drop', (e) => {
      // The workbench's own drag (Explorer, editor tabs) carries URIs: those become the chips `@` makes.
      const uris = droppedUris(e.dataTransfer);
      if (uris.length) {
        e.preventDefault();
        this._host.dropUris(uris);
        return;
      }
      const files = filesOf(e.dataTransfer);
      if (!files.length) return;
      e.preventDefault();
      void this._images.addFiles(files);
    });
    this.textarea.addEventListener('keydown', (e) => this._onKey(e));
    this.textarea.addEventListener('input', (e) => {
      this._historyPos = this._history.length;
      if ((e as InputEvent).data === '@') this._maybePickFile();
      setHidden(this._error, true);
      this._syncMenu();
      this._host.changed();
    });
    this._actions.addEventListener('click', (e) => {
      const hit = closestAction(e.target, ComposerAction);
      if (!hit) return;
      switch (hit.action) {
        case ComposerAction.Send:
          return this.submit('prompt');
        case ComposerAction.Steer:
          return this.submit('steer');
        case ComposerAction.FollowUp:
          return this.submit('followUp');
        case ComposerAction.Cancel:
          return this._host.cancel();
        default:
          return assertNever(hit.action, 'composer action');
      }
    });
    this.setRunning(false);
  }

  get draft(): string {
    return this.textarea.value;
  }

  get history(): readonly string[] {
    return this._history;
  }

  setRunning(running: boolean): void {
    if (running === this._running) return;
    this._running = running;
    const focused = document.activeElement;
    this._actions.replaceChildren(...(running ? [this._cancel, this._followUp, this._steer] : [this._send]));
    // Keep keyboard focus on the composer's buttons when the one in focus was swapped out.
    if (focused instanceof HTMLButtonElement && !focused.isConnected && this.el.contains(this._actions)) (running ? this._steer : this._send).focus();
    setText(this._hint, running ? t('Enter: steer · Alt+Enter: follow-up · Esc: cancel') : t('Enter: send · Shift+Enter: new line'));
    setAttr(this.textarea, 'placeholder', running ? t('Steer Pi, or queue a follow-up…') : t('Ask Pi… (Enter to send, Shift+Enter for a new line)'));
  }

  /** Code handed to Pi with the next message (Add Selection, Add File, `@`); `prompt` starts an empty composer. */
  addChip(chip: CodeChip, prompt?: string): void {
    this._chips.add(chip);
    if (prompt && !this.textarea.value.trim()) this._setValue(prompt);
    this.focus();
  }

  /** `@` at the start of a word opens the file picker; the `@` itself is taken out again. */
  private _maybePickFile(): void {
    const t = this.textarea;
    const at = t.selectionStart - 1;
    if (at < 0 || t.value[at] !== '@' || (at > 0 && !/\s/.test(t.value[at - 1]!))) return;
    t.value = t.value.slice(0, at) + t.value.slice(at + 1);
    t.setSelectionRange(at, at);
    this._host.pickFile();
  }

  /** Images attached to the next message. */
  get images(): readonly ImageAttachment[] {
    return this._images.images;
  }

  private _showError(message: string): void {
    setText(this._error, message);
    setHidden(this._error, false);
  }

  /** Puts a control of another part (the Plan toggle) in the bar, before the hint. */
  addToBar(el: HTMLElement): void {
    this._bar.insertBefore(el, this._hint);
  }

  /**
   * Edit on the queue strip: the composer holds the queued message's text, and the next send (any mode) saves it
   * there instead of sending; Escape or Stop editing gives back what was being written before.
   */
  editQueued(text: string, label: string, save: (text: string) => void): void {
    if (!this._editing) this._editing = { save, draft: this.textarea.value };
    else this._editing = { save, draft: this._editing.draft };
    setText(this._editLabel, label);
    setHidden(this._editBanner, false);
    this._setValue(text);
    this.focus();
  }

  private _endEdit(): void {
    const editing = this._editing;
    if (!editing) return;
    this._editing = undefined;
    setHidden(this._editBanner, true);
    this._setValue(editing.draft);
  }

  /** Sends the composer's text in `mode` (a prompt becomes a steer while a run is active). */
  submit(mode: SendMode): void {
    const typed = this.textarea.value;
    if (this._editing) {
      if (!typed.trim() || typed.length > MAX_PROMPT_CHARS) return;
      const { save } = this._editing;
      this._endEdit();
      save(typed);
      return;
    }
    const images = this._images.images;
    if (!typed.trim() && !this._chips.chips.length && !images.length) return;
    const text = expandChips(this._chips.chips, typed);
    if (text.length > MAX_PROMPT_CHARS) {
      // Kept in the composer: nothing typed or pasted is thrown away.
      setText(
        this._error,
        t(
          'This message is {0} characters; Pi takes at most {1}. Save it to a file in the workspace and ask Pi to read it.',
          formatNumber(text.length),
          formatNumber(MAX_PROMPT_CHARS),
        ),
      );
      setHidden(this._error, false);
      return;
    }
    const effective: SendMode = this._running ? (mode === 'prompt' ? 'steer' : mode) : 'prompt';
    // The panel's own commands run here; any other `/…` goes to Pi, which runs or expands it. A command (or a
    // `!` shell line) must start the message, so chips wait in the composer for the next one.
    const slash = parseSlash(typed);
    const bang = /^\s*(!!?)([\s\S]*)$/.exec(typed);
    const command = slash !== undefined || (bang !== null && bang[2]!.trim() !== '');
    if (slash && isBuiltin(slash.name)) this._host.slash(slash.name, slash.args);
    else if (bang && bang[2]!.trim()) this._host.bash(bang[2]!.trim(), bang[1] === '!!');
    else if (slash) this._host.send(typed, effective);
    else this._host.send(text, effective, images.length ? images : undefined);
    this.slashMenu.close();
    if (!command) {
      this._chips.clear();
      this._images.clear();
    }
    if (typed.trim() && this._history[this._history.length - 1] !== typed) {
      this._history.push(typed);
      if (this._history.length > HISTORY_MAX) this._history.splice(0, this._history.length - HISTORY_MAX);
    }
    this._historyPos = this._history.length;
    this._stash = '';
    this.textarea.value = '';
    this._host.changed();
  }

  /** Puts texts (and images) taken back from the queue into the composer, after what is already there. */
  restore(texts: readonly string[], images: readonly ImageAttachment[] = []): void {
    if (images.length) this._images.restore(images);
    const parts = [this.textarea.value, ...texts].filter((t) => t.trim() !== '');
    this.textarea.value = parts.join('\n\n');
    this._historyPos = this._history.length;
    this._host.changed();
  }

  focus(): void {
    this.textarea.focus();
  }

  /** A Pi extension's `setEditorText` (replaces the draft) or `pasteToEditor` (inserts at the cursor). */
  setText(text: string, paste: boolean): void {
    const ta = this.textarea;
    if (paste) ta.setRangeText(text, ta.selectionStart, ta.selectionEnd, 'end');
    else ta.value = text;
    this._historyPos = this._history.length;
    this._host.changed();
  }

  private _setValue(text: string): void {
    this.textarea.value = text;
    this.textarea.setSelectionRange(text.length, text.length);
    this._syncMenu();
    this._host.changed();
  }

  private _syncMenu(): void {
    this.slashMenu.update(this.textarea.value);
    setAttr(this.textarea, 'aria-activedescendant', this.slashMenu.activeId);
  }

  private _onKey(e: KeyboardEvent): void {
    if (e.isComposing) return;
    const menu = this.slashMenu.onKey(e, this.textarea.value);
    if (menu.kind !== 'none') {
      e.preventDefault();
      if (menu.kind === 'complete') {
        this._setValue(menu.text);
        if (menu.run) this.submit('prompt');
      }
      setAttr(this.textarea, 'aria-activedescendant', this.slashMenu.activeId);
      return;
    }
    if (e.key === 'Enter') {
      if (e.shiftKey) return;
      e.preventDefault();
      this.submit(e.altKey ? 'followUp' : 'prompt');
      return;
    }
    if (e.key === 'Escape' && this._editing) {
      e.preventDefault();
      e.stopPropagation();
      this._endEdit();
      return;
    }
    if (e.key === 'Escape' && this._running) {
      e.preventDefault();
      this._host.cancel();
      return;
    }
    if ((e.key === 'ArrowUp' || e.key === 'ArrowDown') && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
      const ta = this.textarea;
      if (ta.selectionStart !== ta.selectionEnd) return;
      const up = e.key === 'ArrowUp';
      // Only from the first line (Up) or the last line (Down), so moving inside a long text still works.
      if (up ? ta.value.lastIndexOf('\n', ta.selectionStart - 1) !== -1 : ta.value.indexOf('\n', ta.selectionEnd) !== -1) return;
      const pos = this._historyPos + (up ? -1 : 1);
      if (pos < 0 || pos > this._history.length) return;
      e.preventDefault();
      if (this._historyPos === this._history.length) this._stash = ta.value;
      this._historyPos = pos;
      ta.value = pos === this._history.length ? this._stash : this._history[pos]!;
      const caret = up ? 0 : ta.value.length;
      ta.setSelectionRange(caret, caret);
    }
  }
}
