/** What Pi's extensions show through the panel (dialogs, widgets, the working message): wire types and a pure reducer. */

/** The dialog kinds Pi's `ExtensionUIContext` offers; each is an inline card in the chat. */
export type DialogKind = 'select' | 'confirm' | 'input' | 'editor';

/** An open extension dialog, as the webview and the notification mirror show it. */
export interface DialogView {
  /** Chosen by the worker; the answer names it. */
  readonly id: string;
  readonly kind: DialogKind;
  readonly title: string;
  /** confirm: the question under the title. */
  readonly message?: string;
  /** select: the choices; confirm: `Yes` / `No`. */
  readonly options?: readonly string[];
  /** input: a hint; editor: the prefilled text. */
  readonly placeholder?: string;
  readonly prefill?: string;
  /** The dialog answers itself as dismissed after this long (Pi's `timeout` option). */
  readonly timeoutMs?: number;
  /** Epoch ms it opened (the countdown is derived from it). */
  readonly at: number;
  /**
   * The panel's own approval (`piPanel.approval`), not an extension's question: answered only in the chat's
   * card, which offers a reason with Deny; the text is shown in full.
   */
  readonly approval?: boolean;
}

/** A block of text lines an extension keeps above the composer (`setWidget` with string lines). */
export interface WidgetView {
  readonly key: string;
  readonly lines: readonly string[];
}

export interface ExtensionUiState {
  readonly dialogs: readonly DialogView[];
  readonly widgets: readonly WidgetView[];
  /** `setWorkingMessage`; undefined restores the default. */
  readonly workingMessage?: string;
  /** `setWorkingVisible(false)` hides the working indicator. */
  readonly workingHidden?: boolean;
  /** A `!` command running now; its row joins the transcript when it ends. */
  readonly shell?: ShellView;
}

export interface ShellView {
  readonly id: string;
  readonly command: string;
  readonly excluded: boolean;
  /** The tail of the output so far. */
  readonly output: string;
  readonly at: number;
}

/** Output of a running `!` command kept for the live row; Pi keeps the whole of it. */
export const MAX_SHELL_OUTPUT = 100_000;

type ShellEvent =
  | { readonly type: 'bashStart'; readonly id: string; readonly command: string; readonly excluded: boolean; readonly at: number }
  | { readonly type: 'bashOutput'; readonly id: string; readonly delta: string }
  | { readonly type: 'bashEnd'; readonly id?: string };

/** The live shell row: started, output appended, gone once it ends. */
export function reduceShell(s: ExtensionUiState | undefined, ev: ShellEvent): ExtensionUiState {
  const ui = s ?? initialExtensionUi;
  switch (ev.type) {
    case 'bashStart':
      return { ...ui, shell: { id: ev.id, command: ev.command, excluded: ev.excluded, output: '', at: ev.at } };
    case 'bashOutput': {
      if (ui.shell?.id !== ev.id) return ui;
      const output = ui.shell.output + ev.delta;
      return { ...ui, shell: { ...ui.shell, output: output.length > MAX_SHELL_OUTPUT ? output.slice(-MAX_SHELL_OUTPUT) : output } };
    }
    case 'bashEnd':
      return ui.shell && ui.shell.id === ev.id ? { ...ui, shell: undefined } : ui;
  }
}

export type ExtensionUiEvent =
  | { readonly type: 'dialogOpen'; readonly dialog: DialogView }
  /** The dialog is answered, dismissed, timed out or aborted; `outcome` says which, for the log and tests. */
  | { readonly type: 'dialogClose'; readonly id: string; readonly outcome: string }
  | { readonly type: 'widget'; readonly key: string; readonly lines?: readonly string[] }
  /** No `message` restores the default. */
  | { readonly type: 'workingMessage'; readonly message?: string }
  | { readonly type: 'workingVisible'; readonly visible: boolean };

export const initialExtensionUi: ExtensionUiState = { dialogs: [], widgets: [] };

/** Lines and characters kept of one widget: an extension must not be able to flood the view. */
export const MAX_WIDGET_LINES = 20;
export const MAX_WIDGET_LINE_CHARS = 500;

export function reduceExtensionUi(s: ExtensionUiState | undefined, ev: ExtensionUiEvent): ExtensionUiState {
  const ui = s ?? initialExtensionUi;
  switch (ev.type) {
    case 'dialogOpen':
      return { ...ui, dialogs: [...ui.dialogs.filter((d) => d.id !== ev.dialog.id), ev.dialog] };
    case 'dialogClose':
      return ui.dialogs.some((d) => d.id === ev.id) ? { ...ui, dialogs: ui.dialogs.filter((d) => d.id !== ev.id) } : ui;
    case 'widget': {
      const rest = ui.widgets.filter((w) => w.key !== ev.key);
      if (!ev.lines) return { ...ui, widgets: rest };
      const lines = ev.lines.slice(0, MAX_WIDGET_LINES).map((l) => String(l).slice(0, MAX_WIDGET_LINE_CHARS));
      // A widget set again keeps its place.
      const i = ui.widgets.findIndex((w) => w.key === ev.key);
      const widgets = ui.widgets.slice();
      if (i >= 0) widgets[i] = { key: ev.key, lines };
      else widgets.push({ key: ev.key, lines });
      return { ...ui, widgets };
    }
    case 'workingMessage':
      return { ...ui, workingMessage: ev.message };
    case 'workingVisible':
      return { ...ui, workingHidden: !ev.visible };
  }
}

/** The choices a dialog card offers as buttons (input and editor submit their text instead). */
export function dialogChoices(d: DialogView): readonly string[] {
  if (d.kind === 'confirm') return ['Yes', 'No'];
  if (d.kind === 'select') return d.options ?? [];
  return [];
}
