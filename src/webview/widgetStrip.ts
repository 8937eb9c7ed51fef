/** The strip above the composer where Pi's extensions show their widgets (`setWidget` with lines), keyed by widget key. */

import type { ExtensionUiState, WidgetView } from '../shared/transcript/dialogsAndWidgets.ts';
import { showInvisibles } from '../shared/visibleText.ts';
import { h, setHidden } from './dom.ts';
import { t } from './l10n.ts';

/** Extensions' widgets (`setWidget` with lines), above the composer. */
export class WidgetStrip {
  readonly el: HTMLElement;
  private _widgets: readonly WidgetView[] | undefined;

  constructor() {
    this.el = h('div', { class: 'widget-strip', 'data-testid': 'widgets', role: 'region', 'aria-label': t('Extension widgets'), hidden: true });
  }

  render(ui: ExtensionUiState | undefined): void {
    const widgets = ui?.widgets ?? [];
    if (widgets === this._widgets) return;
    this._widgets = widgets;
    this.el.replaceChildren(
      ...widgets.map((w) =>
        h('div', { class: 'widget', 'data-widget-key': w.key }, ...w.lines.map((l) => h('div', { class: 'widget-line' }, showInvisibles(l)))),
      ),
    );
    setHidden(this.el, widgets.length === 0);
  }
}
