/** The view's header: the model and thinking-level pickers, the context gauge, the session's name, and the Sessions and Branches buttons. */

import { showInvisibles } from '../shared/visibleText.ts';
import { assertNever } from '../shared/exhaustive.ts';
import { type SessionInfoView, type ViewMode, type WebviewToHost } from '../shared/wire/webviewProtocol.ts';
import { statsLine } from '../shared/sessions.ts';
import type { TranscriptState } from '../shared/transcript/rows.ts';
import { HeaderAction } from './actions.ts';
import { closestAction, h, setAttr, setHidden, setText } from './dom.ts';
import { ContextPanel } from './contextPanel.ts';
import { t } from './l10n.ts';

/** The header bar; the host's pickers open from it and it switches the view's mode. */
export class Header {
  readonly el: HTMLElement;
  private readonly _model: HTMLButtonElement;
  private readonly _level: HTMLButtonElement;
  /** The context gauge and its breakdown (the app places the breakdown below the header). */
  readonly context: ContextPanel;
  private readonly _title: HTMLElement;
  private readonly _planMode: HTMLElement;
  private readonly _showSessions: HTMLButtonElement;
  private readonly _showTree: HTMLButtonElement;
  private _session: SessionInfoView | undefined;

  /** `setMode`: what the Sessions and Branches buttons show. */
  constructor(post: (msg: WebviewToHost) => void, setMode: (mode: ViewMode) => void) {
    // The model and thinking level are pickers: they run the palette commands in the host. Their visible
    // text (the model name, the level) is their accessible name; what they do is their description (title).
    this._model = h('button', { type: 'button', class: 'model header-picker', 'data-action': HeaderAction.SelectModel, title: t('Select a model') });
    this._level = h('button', {
      type: 'button',
      class: 'thinking-level header-picker',
      'data-action': HeaderAction.SetThinkingLevel,
      title: t('Set the thinking level'),
      hidden: true,
    });
    this.context = new ContextPanel(post);
    this._title = h('span', { class: 'session-name' });
    this._planMode = h(
      'span',
      { class: 'plan-mode-badge', 'data-testid': 'plan-mode', title: t('Plan mode: Pi only reads and proposes a plan'), hidden: true },
      t('Plan mode'),
    );
    this._showSessions = h(
      'button',
      { type: 'button', class: 'header-picker', 'data-action': HeaderAction.ShowSessions, 'aria-label': t('Show sessions') },
      t('Sessions'),
    );
    this._showTree = h(
      'button',
      { type: 'button', class: 'header-picker', 'data-action': HeaderAction.ShowTree, 'aria-label': t("Show this session's branches") },
      t('Branches'),
    );
    this.el = h('header', { class: 'header' }, this._model, this._level, this._planMode, this.context.gauge, this._title, this._showSessions, this._showTree);
    this.el.addEventListener('click', (e) => {
      const hit = closestAction(e.target, HeaderAction);
      if (!hit) return;
      switch (hit.action) {
        case HeaderAction.SelectModel:
          return post({ type: 'runCommand', command: 'selectModel' });
        case HeaderAction.SetThinkingLevel:
          return post({ type: 'runCommand', command: 'setThinkingLevel' });
        case HeaderAction.ShowSessions:
          return setMode('sessions');
        case HeaderAction.ShowTree:
          return setMode('tree');
        default:
          return assertNever(hit.action, 'header action');
      }
    });
  }

  /** Marks the button of the mode shown as pressed. */
  showMode(mode: ViewMode): void {
    setAttr(this._showSessions, 'aria-pressed', String(mode === 'sessions'));
    setAttr(this._showTree, 'aria-pressed', String(mode === 'tree'));
  }

  render(state: TranscriptState, session: SessionInfoView): void {
    if (session !== this._session) {
      this._session = session;
      setText(this._model, showInvisibles(session.model ?? (session.ready ? t('No model configured') : t('Starting Pi…')), { oneLine: true }));
      setAttr(this._model, 'title', session.modelId ? t('{0}: select a model', showInvisibles(session.modelId, { oneLine: true })) : t('Select a model'));
      this.context.render(session.context, session.contextPercent, session.stats ? statsLine(session.stats) : undefined);
      setAttr(
        this._title,
        'title',
        session.stats
          ? `${state.sessionName ? showInvisibles(state.sessionName, { oneLine: true }) : t('This session')}\n${statsLine(session.stats)}`
          : undefined,
      );
    }
    this.context.setBusy(state.run.active);
    const thinking = state.thinkingLevel ?? session.thinkingLevel;
    setText(this._level, thinking ? t('thinking: {0}', thinking) : '');
    setHidden(this._level, !thinking);
    setText(this._title, showInvisibles(state.sessionName ?? '', { oneLine: true }));
    setHidden(this._planMode, state.plan?.on !== true);
  }
}
