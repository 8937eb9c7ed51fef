/**
 * The VS Code face of Pi's `ExtensionUIContext`, in the worker: dialogs become wire events answered by the
 * main thread, status / title / composer calls become notifications, and terminal-only calls say once that
 * the panel cannot show them instead of hanging.
 */

import type { ExtensionError, ExtensionUIContext, ExtensionUIDialogOptions } from '@earendil-works/pi-coding-agent';
import type { Scheduler } from '../shared/batcher.ts';
import type { CommandHandlers } from '../shared/wire/commands.ts';
import type { DialogKind, DialogView, ExtensionUiEvent } from '../shared/wire/events.ts';
import type { NoticeLevel, WireEvent } from '../shared/wire/events.ts';
import type { ExtensionUiNotice, Logger, UserNotification } from '../shared/wire/workerProtocol.ts';
import { showInvisibles } from '../shared/visibleText.ts';
import type { ApprovalAnswer, ApprovalAsker } from './approvalExtension.ts';

/** A load error or warning of a resource (extension, skill, prompt, theme), as Pi's runtime reports it. */
export interface LoadDiagnostic {
  readonly type: 'error' | 'warning' | 'info';
  readonly message: string;
  readonly path?: string;
}

/** Where the UI context's effects go; the worker wires these to the session controller and the channel. */
export interface ExtensionUiHost {
  /** Wire events into the transcript (dialogs, widgets, the working message, notices). */
  emit(events: readonly WireEvent[]): void;
  /** VS Code surfaces outside the transcript. */
  surface(notice: ExtensionUiNotice): void;
  /** A VS Code notification. */
  notify(n: UserNotification): void;
  readonly log: Logger;
  readonly clock: Scheduler;
}

interface Pending {
  readonly kind: DialogKind;
  readonly title: string;
  finish(value: string | undefined, outcome: string, reason?: string): void;
}

/** What a dialog resolves to inside the worker: the answer, and the reason typed into an approval card. */
interface Answer {
  readonly value: string | undefined;
  readonly reason?: string;
}

/** Longest reason a Deny sends back to Pi. */
const MAX_REASON = 2000;

/**
 * Fewest milliseconds between two view titles: a spinner extension sets one about 12 times a second, which
 * would re-lay the view's header as often. The latest title always arrives.
 */
export const TITLE_INTERVAL_MS = 250;

/** Longest dialog title, message or option the card shows. */
const MAX_TEXT = 4000;
const MAX_OPTIONS = 50;

export class ExtensionUi {
  /** Pass to `bindExtensions({ uiContext })`. */
  readonly context: ExtensionUIContext;
  private readonly _host: ExtensionUiHost;
  private readonly _pending = new Map<string, Pending>();
  private readonly _told = new Set<string>();
  /** Widget keys shown now, removed when the session is replaced. */
  private readonly _widgets = new Set<string>();
  private _next = 0;
  private _editorText = '';
  /** Whether an extension hid the working indicator (`setWorkingVisible(false)`). */
  private _workingHidden = false;
  /** A title held back by the throttle, sent when the interval ends. */
  private _heldTitle: string | undefined;
  private _cancelTitleTimer: (() => void) | undefined;
  /** Which extension file registered a command (the session's runner), to name it when the command throws. */
  private _commandOwner: ((name: string) => string | undefined) | undefined;

  constructor(host: ExtensionUiHost) {
    this._host = host;
    this.context = this._makeContext();
  }

  /** The commands of the table (`COMMANDS`) the extension UI answers: a dialog's answer, the panel's own question, the composer's text. */
  readonly commands: CommandHandlers<'answerDialog' | 'askPanel' | 'composerText'> = {
    answerDialog: async ({ id, value, reason }) => ({ answered: this.answer(id, value, reason) }),
    askPanel: async ({ title, message, options }) => {
      const answer = await this.ask({ kind: 'select', title, message, options });
      return answer === undefined ? {} : { answer };
    },
    composerText: async ({ text }) => this.setEditorText(text),
  };

  /**
   * The panel's approvals ask through the same cards, marked as the panel's own: a choice with the command or
   * the full preview under the title, nothing clipped or stripped, and an optional reason sent with Deny.
   */
  readonly approvals: ApprovalAsker = {
    ask: async (title, message, choices, signal): Promise<ApprovalAnswer | undefined> => {
      const a = await this._open('select', { title, message, options: [...choices], approval: true }, signal ? { signal } : undefined);
      return a.value === undefined ? undefined : { choice: a.value, ...(a.reason ? { reason: a.reason } : {}) };
    },
  };

  /** The panel's own questions (a restore's choice and confirmation): shown in full, marked as the panel's. */
  async ask(question: {
    kind: DialogKind;
    title: string;
    message?: string;
    options?: readonly string[];
    restore?: DialogView['restore'];
  }): Promise<string | undefined> {
    const { kind, ...fields } = question;
    return (await this._open(kind, { ...fields, panel: true }, undefined)).value;
  }

  /** Dialogs waiting for the user. */
  get pendingCount(): number {
    return this._pending.size;
  }

  /** The user answered dialog `id` (no `value`: dismissed; `reason`: what an approval's Deny says why). False when it is no longer open. */
  answer(id: string, value: string | undefined, reason?: string): boolean {
    const p = this._pending.get(id);
    if (!p) return false;
    if (value !== undefined && p.kind === 'select') {
      // Only one of the offered choices is an answer; anything else the webview sent is a dismissal.
      const options = this._options.get(id) ?? [];
      if (!options.includes(value)) value = undefined;
    }
    p.finish(value, value === undefined ? 'dismissed' : `answered ${value}`, typeof reason === 'string' ? reason.slice(0, MAX_REASON) : undefined);
    return true;
  }

  /** Answers every open dialog as dismissed (Cancel, a new session). */
  dismissAll(outcome = 'dismissed'): void {
    for (const p of [...this._pending.values()]) p.finish(undefined, outcome);
  }

  /** Extensions were bound: the view reports the composer's text only when there are some. */
  bound(count: number): void {
    this._host.surface({ kind: 'bound', count });
  }

  /**
   * A session is about to bind its extensions (new, resumed, forked, reloaded, a restarted worker): what the
   * last one's extensions put up goes, as the CLI starts each session with a clean footer and title.
   */
  reset(commandOwner?: (name: string) => string | undefined): void {
    this._commandOwner = commandOwner;
    // A title the last session's extension set and the throttle still holds belongs to that session.
    this._cancelTitleTimer?.();
    this._cancelTitleTimer = undefined;
    this._heldTitle = undefined;
    this._host.surface({ kind: 'reset' });
    for (const key of this._widgets) this._emitUi({ type: 'widget', key });
    this._widgets.clear();
    this._emitUi({ type: 'workingMessage' });
    this._workingHidden = false;
    this._emitUi({ type: 'workingVisible', visible: true });
  }

  /**
   * The user starts a run: the working indicator shows again if an extension hid it. An extension that hides
   * it for its own progress display (a terminal editor, which the panel cannot show) would otherwise leave
   * the chat without any sign of work for good; one that hides it per run does so again from its handlers.
   */
  runStarting(): void {
    if (!this._workingHidden) return;
    this._workingHidden = false;
    this._emitUi({ type: 'workingVisible', visible: true });
  }

  /**
   * Load errors and warnings of extensions, skills, prompts and themes: each logged and shown once as a
   * notice naming the file, as the CLI prints them at start and after `/reload`.
   */
  diagnostics(list: readonly LoadDiagnostic[]): void {
    for (const d of list) {
      const level: NoticeLevel = d.type;
      const text = d.path && !d.message.includes(d.path) ? `${d.path}: ${d.message}` : d.message;
      this._host.log[level === 'warning' ? 'warn' : level](`Pi: ${text}`);
      this._notice(level, text);
    }
  }

  /** The composer's text as the webview last reported it. */
  setEditorText(text: string): void {
    this._editorText = text;
  }

  /** `bindExtensions({ onError })`: the log, plus a notice naming the extension and what failed. */
  readonly onError = (err: ExtensionError): void => {
    // Pi reports a throwing command as `command:NAME`; the user wants to know which extension it belongs to.
    const command = /^command:(.*)$/s.exec(err.extensionPath)?.[1];
    const file = command !== undefined ? this._ownerOf(command) : err.extensionPath;
    const where = command !== undefined ? `/${command}` : err.event;
    this._host.log.error(`Pi extension ${file ?? err.extensionPath} failed in ${where}: ${err.error}${err.stack ? `\n${err.stack}` : ''}`);
    const text = file
      ? `The Pi extension "${extensionName(file)}" failed (${where}): ${err.error}`
      : `The Pi extension command /${command ?? ''} failed: ${err.error}`;
    this._notice('error', text);
  };

  private _ownerOf(command: string): string | undefined {
    try {
      return this._commandOwner?.(command);
    } catch {
      // A runner already replaced by the next session's: the notice names the command alone.
      return undefined;
    }
  }

  /** `setTitle`, at most one every `TITLE_INTERVAL_MS`; the last one set always reaches the view. */
  private _title(title: string): void {
    if (this._cancelTitleTimer) {
      this._heldTitle = title;
      return;
    }
    this._host.surface({ kind: 'title', title });
    this._cancelTitleTimer = this._host.clock.setTimer(() => {
      this._cancelTitleTimer = undefined;
      const held = this._heldTitle;
      this._heldTitle = undefined;
      if (held !== undefined) this._title(held);
    }, TITLE_INTERVAL_MS);
  }

  private readonly _options = new Map<string, readonly string[]>();

  private async _dialog(
    kind: DialogKind,
    fields: Omit<DialogView, 'id' | 'kind' | 'at' | 'timeoutMs' | 'approval' | 'panel' | 'restore'>,
    opts: ExtensionUIDialogOptions | undefined,
  ): Promise<string | undefined> {
    return (await this._open(kind, fields, opts)).value;
  }

  private _open(kind: DialogKind, fields: Omit<DialogView, 'id' | 'kind' | 'at' | 'timeoutMs'>, opts: ExtensionUIDialogOptions | undefined): Promise<Answer> {
    if (opts?.signal?.aborted) return Promise.resolve({ value: undefined });
    const id = `dialog-${++this._next}`;
    const clock = this._host.clock;
    const timeoutMs = typeof opts?.timeout === 'number' && opts.timeout > 0 ? opts.timeout : undefined;
    // The panel's approval shows what will run in full (the card scrolls); an extension's text is capped, saying so.
    const shown = fields.approval || fields.panel ? showInvisibles : clip;
    const dialog: DialogView = {
      id,
      kind,
      title: shown(fields.title) || 'A Pi extension asks',
      ...(fields.message !== undefined ? { message: shown(fields.message) } : {}),
      ...(fields.approval ? { approval: true } : {}),
      ...(fields.panel ? { panel: true } : {}),
      ...(fields.restore ? { restore: fields.restore } : {}),
      ...(fields.options ? { options: fields.options.slice(0, MAX_OPTIONS).map((o) => clip(String(o))) } : {}),
      ...(fields.placeholder !== undefined ? { placeholder: clip(fields.placeholder) } : {}),
      ...(fields.prefill !== undefined ? { prefill: fields.prefill } : {}),
      ...(timeoutMs ? { timeoutMs } : {}),
      at: clock.now(),
    };
    return new Promise((resolve) => {
      let cancelTimer: (() => void) | undefined;
      const onAbort = () => finish(undefined, 'aborted');
      const finish = (value: string | undefined, outcome: string, reason?: string) => {
        if (!this._pending.delete(id)) return;
        this._options.delete(id);
        cancelTimer?.();
        opts?.signal?.removeEventListener('abort', onAbort);
        this._emitUi({ type: 'dialogClose', id, outcome });
        resolve({ value, ...(reason?.trim() ? { reason: reason.trim() } : {}) });
      };
      this._pending.set(id, { kind, title: dialog.title, finish });
      if (dialog.options) this._options.set(id, kind === 'confirm' ? ['Yes', 'No'] : dialog.options);
      opts?.signal?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs) cancelTimer = clock.setTimer(() => finish(undefined, 'timed out'), timeoutMs);
      this._emitUi({ type: 'dialogOpen', dialog });
    });
  }

  private _emitUi(ev: ExtensionUiEvent): void {
    this._host.emit([ev]);
  }

  private _notice(level: NoticeLevel, text: string): void {
    this._host.emit([{ type: 'noticeMessage', level, text }]);
  }

  /** A terminal-only call: one notice per extension and call, naming the extension. */
  private _tuiOnly(what: string): void {
    const name = callerExtension();
    const key = `${name}:${what}`;
    if (this._told.has(key)) return;
    this._told.add(key);
    this._host.log.info(`Pi extension "${name}" called ${what}, which needs Pi's terminal UI; the panel skips it.`);
    this._notice('info', `The Pi extension "${name}" uses ${what}, which only Pi's terminal UI can show. The panel skips it; the rest of the extension works.`);
  }

  private _makeContext(): ExtensionUIContext {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the context is a plain object whose methods Pi may detach
    const self = this;
    const context: ExtensionUIContext = {
      select: (title, options, opts) => self._dialog('select', { title, options: Array.isArray(options) ? options : [] }, opts),
      confirm: async (title, message, opts) => (await self._dialog('confirm', { title, message, options: ['Yes', 'No'] }, opts)) === 'Yes',
      input: (title, placeholder, opts) => self._dialog('input', { title, placeholder }, opts),
      editor: (title, prefill) => self._dialog('editor', { title, prefill }, undefined),
      notify(message, type) {
        const level: NoticeLevel = type === 'error' || type === 'warning' ? type : 'info';
        self._host.notify({ level, message: String(message) });
      },
      onTerminalInput() {
        self._tuiOnly('terminal input');
        return () => undefined;
      },
      setStatus(key, text) {
        self._host.surface(text === undefined ? { kind: 'status', key: String(key) } : { kind: 'status', key: String(key), text: plain(text) });
      },
      setWorkingMessage(message) {
        self._emitUi(message === undefined ? { type: 'workingMessage' } : { type: 'workingMessage', message: plain(message) });
      },
      setWorkingVisible(visible) {
        self._workingHidden = visible === false;
        self._emitUi({ type: 'workingVisible', visible: visible !== false });
      },
      setWorkingIndicator() {
        // The view's indicator follows VS Code's theme; frames drawn for a terminal would not fit.
      },
      setHiddenThinkingLabel() {
        // Thinking blocks are shown (folded) in the panel, never hidden behind a label.
      },
      setWidget(key: string, content: unknown) {
        if (content === undefined) {
          self._widgets.delete(String(key));
          self._emitUi({ type: 'widget', key: String(key) });
        } else if (Array.isArray(content)) {
          self._widgets.add(String(key));
          self._emitUi({ type: 'widget', key: String(key), lines: content.map((l) => plain(String(l))) });
        } else self._tuiOnly('a component widget');
      },
      setFooter(factory) {
        if (factory) self._tuiOnly('a custom footer');
      },
      setHeader(factory) {
        if (factory) self._tuiOnly('a custom header');
      },
      setTitle(title) {
        self._title(plain(String(title)));
      },
      async custom() {
        self._tuiOnly('a custom component (ctx.ui.custom)');
        // Dismissed, as if the user closed it: the extension's own fallback decides what happens.
        return undefined as never;
      },
      pasteToEditor(text) {
        self._host.surface({ kind: 'editorText', text: String(text), paste: true });
      },
      setEditorText(text) {
        self._editorText = String(text);
        self._host.surface({ kind: 'editorText', text: String(text), paste: false });
      },
      getEditorText: () => self._editorText,
      addAutocompleteProvider() {
        self._tuiOnly('an autocomplete provider');
      },
      setEditorComponent(factory) {
        if (factory) self._tuiOnly('a custom editor');
      },
      getEditorComponent: () => undefined,
      get theme() {
        return plainTheme;
      },
      getAllThemes: () => [],
      getTheme: () => undefined,
      setTheme() {
        self._tuiOnly('setTheme (the panel follows the VS Code theme)');
        return { success: false, error: 'The panel follows the VS Code theme.' };
      },
      getToolsExpanded: () => false,
      setToolsExpanded() {
        // Tool cards fold and unfold in the view itself.
      },
    } as ExtensionUIContext;
    return context;
  }
}

/**
 * A theme whose every styling call returns its text unchanged: extensions colour status texts and widgets
 * with it, and VS Code shows them in its own theme's colours.
 */
const plainTheme = new Proxy(
  {},
  {
    get: (_t, prop) => (prop === 'then' ? undefined : (...args: unknown[]) => (args.length ? String(args[args.length - 1]) : '')),
  },
) as ExtensionUIContext['theme'];

/** Colour and style (SGR) sequences only: they carry no text. Any other sequence is shown with its payload. */
const SGR = /\u001b\[[0-9;:]*m/g;

/** Text an extension styled for a terminal, without its colours; other control characters become visible. */
function plain(text: string): string {
  return showInvisibles(String(text).replace(SGR, ''));
}

/** A dialog's text from an extension: capped, and the card says how much is not shown. */
function clip(text: string | undefined): string {
  const t = plain(text ?? '');
  return t.length > MAX_TEXT ? `${t.slice(0, MAX_TEXT)}… [${t.length - MAX_TEXT} more characters not shown]` : t;
}

/** `foo.ts` of `/home/me/.pi/agent/extensions/foo.ts`; `foo` of `…/extensions/foo/index.ts`. */
function extensionName(extensionPath: string): string {
  const parts = String(extensionPath).split(/[/\\]/).filter(Boolean);
  const last = parts[parts.length - 1] ?? extensionPath;
  return /^index\.[cm]?[jt]s$/.test(last) && parts.length > 1 ? parts[parts.length - 2]! : last;
}

/**
 * The extension that called into the UI context, from the call stack: the first frame outside the panel's
 * own bundles. Pi does not say which extension a `ctx.ui` call came from.
 */
function callerExtension(): string {
  const stack = new Error().stack?.split('\n').slice(1) ?? [];
  for (const line of stack) {
    const m = /\(?((?:file:\/\/)?[^\s()]+?\.[cm]?[jt]s):\d+:\d+\)?\s*$/.exec(line);
    if (!m) continue;
    const file = m[1]!;
    if (/[/\\]dist[/\\](worker\.js|pi[/\\]pi\.cjs)$/.test(file) || /[/\\]src[/\\]worker[/\\]/.test(file) || file.startsWith('node:')) continue;
    return extensionName(file.replace(/^file:\/\//, ''));
  }
  return 'an extension';
}
