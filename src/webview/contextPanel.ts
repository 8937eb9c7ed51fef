/** The header's context gauge and the breakdown it opens: what fills the context, the costs, compaction ahead, and Drop from context. */

import type { ContextBreakdownView, ContextPartName, CostView } from '../shared/contextGauge.ts';
import type { WebviewToHost } from '../shared/wire/webviewProtocol.ts';
import { DirectAction } from './actions.ts';
import { h, setAttr, setClass, setHidden, setText } from './dom.ts';
import { formatNumber, t } from './l10n.ts';

const PART_LABEL: Record<ContextPartName, () => string> = {
  system: () => t('System prompt'),
  tools: () => t('Tool definitions'),
  messages: () => t('Messages'),
  toolResults: () => t('Tool results'),
  images: () => t('Images'),
  free: () => t('Free'),
};

const money = (c: CostView): string => (c.billed ? t('${0} (billed)', c.cost.toFixed(4)) : t('${0} (estimated)', c.cost.toFixed(4)));

/** The gauge (a button in the header) and its panel (shown below the header while open). */
export class ContextPanel {
  /** The header's button: "context 42%"; it opens and closes the breakdown. */
  readonly gauge: HTMLButtonElement;
  /** The breakdown, `data-testid="context-breakdown"`. */
  readonly el: HTMLElement;
  private readonly _summary: HTMLElement;
  private readonly _parts: HTMLElement;
  private readonly _legend: HTMLElement;
  private readonly _costs: HTMLElement;
  private readonly _compaction: HTMLElement;
  private readonly _largestHead: HTMLElement;
  private readonly _largest: HTMLElement;
  private _view: ContextBreakdownView | undefined;
  private _busy = false;

  constructor(post: (msg: WebviewToHost) => void) {
    this.gauge = h('button', {
      type: 'button',
      class: 'context-usage header-picker',
      'data-testid': 'context-gauge',
      'data-action': DirectAction.ShowContext,
      'aria-expanded': 'false',
      'aria-controls': 'pi-context-breakdown',
      hidden: true,
    });
    this._summary = h('p', { class: 'context-summary' });
    this._parts = h('ul', { class: 'context-parts' });
    this._legend = h('p', { class: 'context-legend' }, t("≈ estimated: Pi's count of 4 characters a token (an image counts 1,200)"));
    this._costs = h('p', { class: 'context-costs' });
    this._compaction = h('p', { class: 'context-compaction' });
    this._largestHead = h('h3', { class: 'context-largest-head' }, t('Largest tool outputs'));
    this._largest = h('ul', { class: 'context-largest' });
    this.el = h(
      'section',
      { class: 'context-breakdown', id: 'pi-context-breakdown', 'data-testid': 'context-breakdown', 'aria-label': t('Context breakdown'), hidden: true },
      this._summary,
      this._parts,
      this._legend,
      this._costs,
      this._compaction,
      this._largestHead,
      this._largest,
    );
    this.gauge.addEventListener('click', () => this.toggle());
    this.el.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape') return;
      e.stopPropagation();
      this.toggle(false);
      this.gauge.focus();
    });
    this.el.addEventListener('click', (e) => {
      const button = (e.target as Element).closest(`[data-action="${DirectAction.DropFromContext}"]`);
      const entryId = button?.getAttribute('data-entry-id');
      if (!button || !entryId || button.hasAttribute('disabled')) return;
      // Once: the breakdown from the worker replaces the item when the edit is written.
      button.setAttribute('disabled', '');
      post({ type: 'dropFromContext', entryId });
    });
  }

  /** While a run is active Drop waits (the worker refuses an edit mid-run: it would land between the run's entries). */
  setBusy(busy: boolean): void {
    if (busy === this._busy) return;
    this._busy = busy;
    for (const b of Array.from(this._largest.querySelectorAll(`[data-action="${DirectAction.DropFromContext}"]`)))
      setAttr(b, 'disabled', busy ? '' : undefined);
  }

  /** Opens or closes the breakdown. */
  toggle(open = this.el.hidden): void {
    setHidden(this.el, !open || !this._view);
    setAttr(this.gauge, 'aria-expanded', String(!this.el.hidden));
  }

  /** `totals`: the session's token and cost line, which the gauge's tooltip adds. */
  render(view: ContextBreakdownView | undefined, percent: number | undefined, totals?: string): void {
    const shown = percent ?? (view?.used !== undefined ? Math.round((view.used / view.contextWindow) * 100) : undefined);
    const near = view?.compaction?.near === true;
    setText(this.gauge, shown !== undefined ? t('context {0}%', shown) + (near ? ' ⚠' : '') : view ? t('context') : '');
    setHidden(this.gauge, shown === undefined && !view);
    setClass(this.gauge, 'near-compaction', near);
    const title = near
      ? t('Pi will compact the context soon. Show what fills it')
      : view
        ? t('Show what fills the context')
        : t("How full the model's context window is");
    setAttr(this.gauge, 'title', totals ? `${title}\n${totals}` : title);
    if (view === this._view) return;
    this._view = view;
    if (!view) return this.toggle(false);
    this._renderSummary(view);
    this._renderParts(view);
    this._renderCosts(view);
    this._renderCompaction(view);
    this._renderLargest(view);
  }

  private _renderSummary(v: ContextBreakdownView): void {
    const used = v.used !== undefined ? formatNumber(v.used) : t('unknown until the next reply');
    setText(
      this._summary,
      t('{0} of {1} tokens in use', used, formatNumber(v.contextWindow)) + (v.used !== undefined && v.usedEstimated ? ` ${t('(partly estimated)')}` : ''),
    );
  }

  private _renderParts(v: ContextBreakdownView): void {
    setHidden(this._legend, !v.parts.some((p) => p.estimated));
    this._parts.replaceChildren(
      ...v.parts.map((p) =>
        h(
          'li',
          { 'data-part': p.part, 'data-tokens': p.tokens, 'data-estimated': p.estimated },
          h('span', { class: 'context-part-name' }, PART_LABEL[p.part]()),
          h('meter', { min: 0, max: 100, value: p.share, 'aria-hidden': 'true' }),
          h('span', { class: 'context-part-size' }, (p.estimated ? '≈ ' : '') + t('{0} tokens ({1}%)', formatNumber(p.tokens), p.share)),
        ),
      ),
    );
  }

  private _renderCosts(v: ContextBreakdownView): void {
    const r = v.lastReply;
    const reply = r
      ? t(
          'Last reply: {0} in, {1} out, cache {2} read / {3} write, {4}.',
          formatNumber(r.input),
          formatNumber(r.output),
          formatNumber(r.cacheRead),
          formatNumber(r.cacheWrite),
          money(r),
        )
      : '';
    setText(this._costs, [reply, t('Session: {0}.', money(v.session))].filter(Boolean).join(' '));
  }

  private _renderCompaction(v: ContextBreakdownView): void {
    const c = v.compaction;
    setAttr(this._compaction, 'role', c?.near ? 'alert' : undefined);
    setClass(this._compaction, 'warning', c?.near === true);
    const keeps = c
      ? t(
          'Compaction replaces older messages with a summary; it keeps the system prompt, the tools and about the last {0} tokens of messages as they are.',
          formatNumber(c.keepRecentTokens),
        )
      : '';
    const when = !c
      ? ''
      : !c.enabled
        ? t('Auto-compaction is off.')
        : c.near
          ? t('Pi will compact the context soon: it does at {0} tokens.', formatNumber(c.threshold))
          : t('Pi compacts the context on its own at {0} tokens.', formatNumber(c.threshold));
    setText(this._compaction, [when, keeps].filter(Boolean).join(' '));
  }

  private _renderLargest(v: ContextBreakdownView): void {
    const items = v.largest;
    setHidden(this._largestHead, items.length === 0);
    this._largest.replaceChildren(
      ...items.map((i) => {
        const size = t('{0} tokens', formatNumber(i.tokens));
        return h(
          'li',
          { 'data-entry-id': i.entryId, 'data-tool-call-id': i.toolCallId },
          h('span', { class: 'context-item-name' }, i.toolName || t('tool')),
          h('span', { class: 'context-item-size' }, size),
          ...(v.canDrop
            ? [
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'header-picker',
                    'data-action': DirectAction.DropFromContext,
                    'data-entry-id': i.entryId,
                    disabled: this._busy,
                    'aria-label': t('Drop from context: {0} output, {1}', i.toolName || t('tool'), size),
                    title: t('Replace this output with a short note in what the model sees (the transcript and the session file keep it)'),
                  },
                  t('Drop from context'),
                ),
              ]
            : []),
        );
      }),
    );
  }
}

/** Marks the tool cards whose results were dropped from the context (`dropped`: their tool call ids). */
export function markDroppedCards(root: ParentNode, dropped: readonly string[] | undefined): void {
  for (const id of dropped ?? []) {
    const card = root.querySelector(`.tool-card[data-tool-call-id="${CSS.escape(id)}"]`);
    if (!card || card.getAttribute('data-dropped-from-context') === 'true') continue;
    card.setAttribute('data-dropped-from-context', 'true');
    card.querySelector('.tool-head')?.append(h('span', { class: 'tool-dropped' }, t('dropped from context')));
  }
}
