/** What shows around the rows: Pi's extensions' dialogs, widgets and working message, and the running `!` command (a pure reducer). */

import type { DialogView, ExtensionUiEvent } from '../wire/events.ts';

/** A block of text lines an extension keeps above the composer (`setWidget` with string lines). */
export interface WidgetView {
  readonly key: string;
  readonly lines: readonly string[];
}

/** What Pi's extensions and a running `!` command show around the rows. */
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

/** A `!` command running now. */
export interface ShellView {
  readonly id: string;
  readonly command: string;
  readonly excluded: boolean;
  /** The tail of the output so far. */
  readonly output: string;
  readonly at: number;
}

/** Output of a running `!` command kept for the live row; Pi keeps the whole of it. */
const MAX_SHELL_OUTPUT = 100_000;

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

/** Nothing open, no widgets. */
const initialExtensionUi: ExtensionUiState = { dialogs: [], widgets: [] };

/** Lines and characters kept of one widget: an extension must not be able to flood the view. */
export const MAX_WIDGET_LINES = 20;
const MAX_WIDGET_LINE_CHARS = 500;

/** Applies one of Pi's extension UI events. */
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
  // The answers' values, English on the wire; the card shows them translated. l10n-ignore
  if (d.kind === 'confirm') return ['Yes', 'No'];
  if (d.kind === 'select') return d.options ?? [];
  return [];
}
