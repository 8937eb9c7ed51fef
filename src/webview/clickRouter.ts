/**
 * One delegated click handler for everything clickable inside the conversation and the status line: links go
 * to the host, and each `ConversationAction` to what it does. Only the host decides what opens.
 */

import { assertNever } from '../shared/exhaustive.ts';
import { type WebviewToHost } from '../shared/wire/webviewProtocol.ts';
import type { UserRow } from '../shared/transcript/rows.ts';
import type { Announcer } from './a11y.ts';
import { ConversationAction } from './actions.ts';
import type { ComposerBridge } from './composerBridge.ts';
import { diagramSource, diagramSvg, toggleDiagramSource } from './diagrams.ts';
import { closestAction } from './dom.ts';
import type { ImageViewer } from './images.ts';
import { safeHref } from './markdown.ts';
import type { Paging, TranscriptHolder } from './paging.ts';
import type { TranscriptView } from './transcriptView.ts';
import { t } from './l10n.ts';

/** What the conversation's actions reach. */
export interface ClickTargets {
  readonly holder: TranscriptHolder;
  readonly transcript: TranscriptView;
  /** The blocks and cards the user opened or closed, by key; `persist` saves them. */
  readonly toggled: Record<string, boolean>;
  persist(): void;
  readonly paging: Paging;
  readonly composer: ComposerBridge;
  readonly imageViewer: ImageViewer;
  /** Where "Copied" is said. */
  readonly announcer: Announcer;
  post(msg: WebviewToHost): void;
  /** The provider of the chat's model (`anthropic` of `anthropic/claude-…`), for a notice's Replace key. */
  provider?(): string | undefined;
}

/** Routes clicks in `areas` (the conversation first: middle clicks on its links open nothing either). */
export class ClickRouter {
  private readonly _t: ClickTargets;

  constructor(t: ClickTargets, conversation: HTMLElement, ...areas: HTMLElement[]) {
    this._t = t;
    // A link's click (mouse, or Enter on a focused link) stops here: VS Code's webview would otherwise open
    // any `<a href>` itself from its window listener.
    for (const area of [conversation, ...areas]) area.addEventListener('click', (e) => this._onClick(e));
    // Middle clicks never open anything.
    conversation.addEventListener('auxclick', (e) => {
      if ((e.target as Element).closest('a')) {
        e.preventDefault();
        e.stopPropagation();
      }
    });
  }

  private _onClick(e: MouseEvent): void {
    const t = this._t;
    const link = (e.target as Element).closest('a');
    if (link) {
      e.preventDefault();
      e.stopPropagation();
      const href = safeHref(link.getAttribute('href') ?? '');
      if (href) t.post({ type: 'openLink', href });
      return;
    }
    const hit = closestAction(e.target, ConversationAction);
    if (!hit) return;
    const { el, action } = hit;
    switch (action) {
      case ConversationAction.OpenImage:
        return t.imageViewer.open(el as HTMLElement);
      case ConversationAction.LoadEarlier:
        return t.paging.showEarlier();
      case ConversationAction.ForceIdle:
        return t.post({ type: 'forceIdle' });
      case ConversationAction.ShowLog:
        return t.post({ type: 'showLog' });
      case ConversationAction.RetryLast:
        return t.post({ type: 'retryLast' });
      case ConversationAction.ReplaceKey: {
        const provider = t.provider?.();
        return provider ? t.post({ type: 'signIn', provider, method: 'apiKey' }) : undefined;
      }
      case ConversationAction.ContinueInterrupted:
        return t.post({ type: 'continueInterrupted' });
      case ConversationAction.EditResend:
      case ConversationAction.ForkHere: {
        const row = this._userRow(el);
        if (!row?.entryId) return;
        const edit = action === ConversationAction.EditResend;
        if (edit) t.composer.startEdit(textOf(row), row.media);
        return t.post({ type: edit ? 'editResend' : 'forkHere', entryId: row.entryId });
      }
      case ConversationAction.Restore: {
        const entryId = this._userRow(el)?.entryId;
        if (entryId) t.post({ type: 'restore', entryId });
        return;
      }
      case ConversationAction.UndoRestore:
        return t.post({ type: 'undoRestore' });
      case ConversationAction.ToggleBlock: {
        const block = el.closest('[data-block]');
        const row = el.closest('[data-msg-id]');
        if (!block || !row) return;
        const key = `${row.getAttribute('data-msg-id')}:${block.getAttribute('data-content-index')}`;
        t.toggled[key] = el.getAttribute('aria-expanded') !== 'true';
        t.transcript.refreshPart(el);
        return t.persist();
      }
      case ConversationAction.ToolShowAll:
      case ConversationAction.ToolArgsShowAll: {
        const card = el.closest('[data-tool-call-id]');
        if (!card) return;
        return this._flip(`${action === ConversationAction.ToolShowAll ? 'tool' : 'args'}:${card.getAttribute('data-tool-call-id')}`, el);
      }
      case ConversationAction.ResultShowAll: {
        const row = el.closest('[data-msg-id]');
        if (!row) return;
        return this._flip(`result:${row.getAttribute('data-msg-id')}`, el);
      }
      case ConversationAction.OpenFile:
      case ConversationAction.OpenDiff:
      case ConversationAction.UndoFile:
      case ConversationAction.UndoAll: {
        const path = el.getAttribute('data-path') ?? undefined;
        // The row's run (a restore card's checkpoint): Open Diff's left side, and what Undo acts on.
        const runId = el.closest('[data-run-id]')?.getAttribute('data-run-id') ?? undefined;
        if (action === ConversationAction.UndoAll) t.post({ type: 'undo', ...(runId ? { runId } : {}) });
        else if (!path) return;
        else if (action === ConversationAction.OpenFile) t.post({ type: 'openFile', path, firstChange: true });
        else if (action === ConversationAction.OpenDiff) t.post({ type: 'openDiff', path, ...(runId ? { runId } : {}) });
        else t.post({ type: 'undo', path, ...(runId ? { runId } : {}) });
        return;
      }
      case ConversationAction.KeepAll:
        return t.post({ type: 'runCommand', command: 'keepAllChanges' });
      case ConversationAction.Review:
        return t.post({ type: 'runCommand', command: 'reviewChanges' });
      case ConversationAction.CopyCode:
      case ConversationAction.InsertCode: {
        const code = el.closest('.code-block')?.querySelector('code')?.textContent ?? '';
        if (action === ConversationAction.InsertCode) t.post({ type: 'insertCode', text: code });
        else void this._copyText(code, el);
        return;
      }
      case ConversationAction.DiagramSource:
      case ConversationAction.CopyDiagram:
      case ConversationAction.OpenSvg: {
        const figure = el.closest('figure.diagram');
        if (!figure) return;
        if (action === ConversationAction.DiagramSource) return toggleDiagramSource(figure);
        if (action === ConversationAction.CopyDiagram) return void this._copyText(diagramSource(figure), el);
        const svg = diagramSvg(figure);
        if (svg) t.post({ type: 'openSvg', svg });
        return;
      }
      default:
        return assertNever(action, 'conversation action');
    }
  }

  /** Shows all of a clipped text, or less again; not kept across reloads. */
  private _flip(key: string, el: Element): void {
    this._t.toggled[key] = !this._t.toggled[key];
    this._t.transcript.refreshPart(el);
  }

  /**
   * The user row an action sits in. Its session entry names it to the worker; a row without one (Pi has not
   * written the message yet) has its actions disabled, and a click on one sends nothing.
   */
  private _userRow(el: Element): UserRow | undefined {
    const id = Number(el.closest('[data-msg-id]')?.getAttribute('data-msg-id'));
    const row = this._t.holder.state.messages.find((m) => m.id === id);
    return row?.role === 'user' ? row : undefined;
  }

  private async _copyText(text: string, button: Element): Promise<void> {
    const label = button.getAttribute('aria-label');
    let copied: boolean;
    try {
      await navigator.clipboard.writeText(text);
      copied = true;
    } catch {
      copied = false;
    }
    const said = copied ? t('Copied') : t('Copy failed');
    // The name changes with the visible text, and the change is announced (a name change alone is not).
    button.textContent = said;
    button.setAttribute('aria-label', said);
    this._t.announcer.say(copied ? t('Copied to the clipboard') : t('Copy failed'));
    setTimeout(() => {
      button.textContent = t('Copy');
      if (label !== null) button.setAttribute('aria-label', label);
    }, 1500);
  }
}

/** A user row's text, as the composer takes it back. */
function textOf(row: UserRow): string {
  return row.blocks.map((b) => b?.text ?? '').join('');
}
