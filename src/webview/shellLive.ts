/** A `!` / `!!` shell command in the chat: its `$ command` header, and the command running now with its output streaming. */

import type { ExtensionUiState, ShellView } from '../shared/transcript/dialogsAndWidgets.ts';
import { showInvisibles } from '../shared/visibleText.ts';
import { h, setText } from './dom.ts';
import { t } from './l10n.ts';

/** `$ command` above a shell row's output; `!!` rows say they were kept out of the model's context. */
export function shellHeader(command: string, excluded: boolean): HTMLElement {
  return h(
    'div',
    { class: 'shell-command' },
    h('span', { class: 'shell-prompt', 'aria-hidden': 'true' }, '$ '),
    h('code', {}, showInvisibles(command)),
    ...(excluded ? [h('span', { class: 'shell-excluded' }, t(' (not sent to the model)'))] : []),
  );
}

/** The `!` command running now, streaming its output; it becomes a transcript row when it ends. */
export class ShellLive {
  readonly el: HTMLElement;
  private _shell: ShellView | undefined;
  private _output: HTMLElement | undefined;

  constructor() {
    this.el = h('div', { class: 'shell-live' });
  }

  render(ui: ExtensionUiState | undefined): void {
    const shell = ui?.shell;
    if (shell === this._shell) return;
    if (!shell) {
      this.el.replaceChildren();
      this._output = undefined;
    } else if (shell.id !== this._shell?.id || !this._output) {
      this._output = h('pre', { class: 'shell-output' });
      this.el.replaceChildren(
        h(
          'div',
          { class: 'row row-bash', 'data-role': 'bash', 'data-status': 'running', ...(shell.excluded ? { 'data-excluded': 'true' } : {}) },
          shellHeader(shell.command, shell.excluded),
          this._output,
        ),
      );
    }
    if (shell && this._output) setText(this._output, shell.output);
    this._shell = shell;
  }
}
