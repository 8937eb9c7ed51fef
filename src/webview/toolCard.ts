/**
 * A tool card, in two layers: the model's draft call (name and streaming arguments, from the block),
 * then the execution keyed by `toolCallId` (status, live output, result, duration, from the tool state).
 * Success, failure and duration come only from the tool state, never from the block. Arguments and output
 * over a size bound are clipped, with Show all / Show less, for every tool.
 */

import { showInvisibles } from '../shared/visibleText.ts';
import type { BlockView, ToolCardView, ToolStatus } from '../shared/transcript/rows.ts';
import { ConversationAction } from './actions.ts';
import { ClipView, headOf, piecesOf, prettyJson, type ClipContent } from './clip.ts';
import { scrollRegion, srOnly } from './components.ts';
import { h, setAttr, setHidden, setText } from './dom.ts';
import { FileActions, isFileTool } from './fileActions.ts';
import { imageGallery } from './images.ts';
import { clipLines, cleanTerminalText, editPairs, formatDuration, parseArgs, str, toolSummary } from './format.ts';
import { t } from './l10n.ts';
import { newErrorsIn } from '../shared/vscodeTools.ts';

const OUTPUT_LINES = 30;
const OUTPUT_CHARS = 6000;
const ARG_LINES = 40;
const ARG_CHARS = 6000;

/** Tools after which the panel appends the new errors VS Code reports. */
const CHANGING_TOOLS = new Set(['edit', 'write', 'vscode_rename']);

const STATUS_LABEL: Record<ToolStatus, string> = { pending: 'pending', running: 'running', done: 'done', error: 'failed' };
const STATUS_GLYPH: Record<ToolStatus, string> = { pending: '○', running: '◌', done: '✓', error: '✕' };

export interface ToolCardUi {
  isOpen(key: string): boolean | undefined;
  /** The session's folder: file paths on cards are shown relative to it. */
  cwd?(): string | undefined;
}

export class ToolCard {
  readonly el: HTMLElement;
  private readonly _glyph: HTMLElement;
  private readonly _statusText: HTMLElement;
  private readonly _name: HTMLElement;
  private readonly _summary: HTMLElement;
  private readonly _duration: HTMLElement;
  /** "2 new errors" after a change, from the note the panel appended to its result. */
  private readonly _newErrors: HTMLElement;
  private readonly _args: HTMLElement;
  private readonly _output: HTMLElement;
  private readonly _outputClip: ClipView;
  /** A file tool's call that failed or was blocked: "Not applied" and the reason, in one line. */
  private readonly _proposal: HTMLElement;
  private readonly _reason: HTMLElement;
  /** Long arguments (unknown tools' JSON, a written file, raw text), kept across renders so its toggle keeps focus. */
  private _argsClip: ClipView | undefined;
  private _argsContent: ClipContent | undefined;
  private _argsName: string | undefined;
  private _argsText: string | undefined;
  private _argsStreaming = false;
  private readonly _files = new FileActions();
  private _block: BlockView | undefined;
  private _card: ToolCardView | undefined;
  private _outputKey: string | undefined;
  private _media: ToolCardView['media'];
  private _gallery: HTMLElement | undefined;
  private readonly _ui: ToolCardUi;
  /** The current state's card of a call, for the calls this one made (shown inside it). */
  private readonly _lookup: (toolCallId: string) => ToolCardView | undefined;
  private readonly _childList: HTMLElement;
  private readonly _childCards = new Map<string, ToolCard>();

  constructor(ui: ToolCardUi, lookup: (toolCallId: string) => ToolCardView | undefined = () => undefined) {
    this._ui = ui;
    this._lookup = lookup;
    this._childList = h('div', { class: 'tool-children', role: 'group', 'aria-label': t('Calls made by this tool'), hidden: true });
    this._glyph = h('span', { class: 'tool-glyph', 'aria-hidden': 'true' });
    this._statusText = srOnly('');
    this._name = h('span', { class: 'tool-name' });
    this._summary = h('span', { class: 'tool-summary' });
    this._duration = h('span', { class: 'tool-duration' });
    this._newErrors = h('span', { class: 'tool-new-errors', hidden: true });
    this._args = h('div', { class: 'tool-args' });
    this._outputClip = new ClipView('tool-output-text', ConversationAction.ToolShowAll);
    this._output = h('div', { class: 'tool-output', hidden: true }, this._outputClip.el);
    this._reason = h('span', { class: 'tool-reason' });
    this._proposal = h('div', { class: 'tool-proposal', hidden: true }, h('span', { class: 'tool-proposal-label' }, t('Not applied:')), ' ', this._reason);
    this.el = h(
      'div',
      { class: 'tool-card', 'data-status': 'pending' },
      h('div', { class: 'tool-head' }, this._glyph, this._statusText, this._name, this._summary, this._newErrors, this._duration, this._files.toolbar),
      this._proposal,
      this._files.el,
      this._args,
      this._childList,
      this._output,
    );
  }

  get toolCallId(): string | undefined {
    return this._card?.toolCallId ?? this._block?.toolCallId;
  }

  /** Renders from the block (the model's call) and the tool state (the execution), either possibly absent. */
  update(block: BlockView | undefined, card: ToolCardView | undefined): void {
    if (block === this._block && card === this._card) {
      this.updateChildren();
      return;
    }
    this._block = block;
    this._card = card;
    const id = card?.toolCallId ?? block?.toolCallId;
    const name = card?.toolName || block?.toolName || 'tool';
    const status: ToolStatus = card?.status ?? 'pending';
    setAttr(this.el, 'data-tool-call-id', id);
    setAttr(this.el, 'data-tool-name', name);
    setAttr(this.el, 'data-status', status);
    setAttr(this.el, 'data-duration-ms', card?.durationMs);
    // A blocked (plan mode, a denied approval) or failed edit changed nothing: it reads as a proposal, not a diff that happened.
    setAttr(this.el, 'data-applied', isFileTool(name) && status === 'error' ? 'false' : undefined);
    setText(this._glyph, STATUS_GLYPH[status]);
    setText(this._statusText, `${STATUS_LABEL[status]}: `);
    // Name and summary are the one line a reader trusts: a bidi override must show, not reorder them, and tag
    // or zero-width characters must show, not hide in them.
    setText(this._name, showInvisibles(name, { oneLine: true }));
    setText(this._duration, card?.durationMs !== undefined ? formatDuration(card.durationMs) : '');
    const newErrors = card?.status === 'done' && CHANGING_TOOLS.has(name) ? newErrorsIn(card.output) : undefined;
    setAttr(this._newErrors, 'data-new-errors', newErrors);
    setHidden(this._newErrors, newErrors === undefined);
    setText(this._newErrors, newErrors === undefined ? '' : newErrors === 1 ? t('1 new error') : t('{0} new errors', newErrors));

    // The executed arguments win over the drafted ones (a hook may have changed them).
    const argText = card?.args || block?.text || '';
    const streaming = !card && block !== undefined && !block.final;
    if (name !== this._argsName || argText !== this._argsText || streaming !== this._argsStreaming) {
      this._argsName = name;
      this._argsText = argText;
      this._argsStreaming = streaming;
      this._renderArgs(name, argText, streaming);
    }
    this._files.update(name, argText, card, this._ui.cwd?.());
    this.updateChildren();
    this._renderOutput();
    if (card?.media !== this._media) this._renderMedia(card?.media);
  }

  /** The result's images (a screenshot, an image file read), below its text. */
  private _renderMedia(media: ToolCardView['media']): void {
    this._media = media;
    this._gallery?.remove();
    this._gallery = media?.length ? imageGallery(media, t('Tool result')) : undefined;
    if (this._gallery) this.el.append(this._gallery);
  }

  /**
   * Brings the nested cards up to date: one per call this one made (a codemode script's MCP calls), each a
   * card like any other. A nested card is unchanged unless its own state changed, so this is cheap.
   */
  updateChildren(): void {
    const ids = this._card?.children ?? [];
    setHidden(this._childList, ids.length === 0);
    for (const id of ids) {
      let child = this._childCards.get(id);
      if (!child) {
        child = new ToolCard(this._ui, this._lookup);
        this._childCards.set(id, child);
        this._childList.append(child.el);
      }
      child.update(undefined, this._lookup(id));
    }
  }

  /** Re-renders after a UI toggle (Show all / Show less). */
  refresh(): void {
    this._outputKey = undefined;
    this._renderOutput();
    for (const child of this._childCards.values()) child.refresh();
    if (this._argsClip && this._argsContent) this._argsClip.show(this._argsContent, this._isOpen('args'));
  }

  private _isOpen(kind: 'tool' | 'args'): boolean {
    return this._ui.isOpen(`${kind}:${this.toolCallId ?? ''}`) === true;
  }

  private _renderArgs(name: string, text: string, streaming: boolean): void {
    // While the call streams, its JSON is complete only once it ends with a brace: parse no sooner (a
    // megabyte of arguments would be parsed again on every frame).
    const args = !streaming || endsWithBrace(text) ? parseArgs(text) : undefined;
    setText(this._summary, showInvisibles(toolSummary(name, args), { oneLine: true }));
    setAttr(this._args, 'data-streaming', !args && streaming ? 'true' : undefined);
    if (!args) {
      // Still streaming (the newest lines, like live output) or not JSON (the head, with Show all).
      this._showArgsClip('tool-args-raw', streaming ? tailOf(text) : clipContent(text, ARG_LINES, ARG_CHARS));
      return;
    }
    const view = renderArgs(name, args);
    if (Array.isArray(view)) {
      this._argsClip = undefined;
      this._argsContent = undefined;
      this._args.replaceChildren(...view);
    } else this._showArgsClip(view.cls, view.content);
  }

  private _showArgsClip(cls: string, content: ClipContent): void {
    let clip = this._argsClip;
    if (!clip || !clip.pre.classList.contains(cls)) {
      clip = this._argsClip = new ClipView(cls, ConversationAction.ToolArgsShowAll);
      this._args.replaceChildren(clip.el);
    }
    this._argsContent = content;
    clip.show(content, this._isOpen('args'));
  }

  private _renderOutput(): void {
    const card = this._card;
    const output = card ? cleanTerminalText(card.output) : '';
    const all = this._isOpen('tool');
    const key = `${card?.status}\u0000${all}\u0000${output}`;
    if (key === this._outputKey) return;
    this._outputKey = key;
    const notApplied = this.el.getAttribute('data-applied') === 'false';
    setHidden(this._proposal, !notApplied);
    setHidden(this._output, !card || notApplied || (output === '' && card.status !== 'error'));
    if (!card) return;
    if (notApplied) {
      // One line a reader can scan; the whole reason stays in the DOM (and in its tooltip).
      const reason = output.trim() || t('(failed without output)');
      setText(this._reason, reason);
      setAttr(this._reason, 'title', reason);
      return;
    }
    if (output === '') {
      this._outputClip.show({ text: card.status === 'error' ? t('(failed without output)') : '', clipped: false, all: () => [] }, false);
      return;
    }
    this._outputClip.show(clipContent(output, OUTPUT_LINES, OUTPUT_CHARS, card.status === 'running' ? 'tail' : 'head'), all, card.status !== 'running');
  }
}

/** Clipped text with its whole available on demand. */
export function clipContent(text: string, lines: number, chars: number, keep: 'head' | 'tail' = 'head'): ClipContent {
  const clip = clipLines(text, lines, chars, keep);
  return { text: clip.text, clipped: clip.hiddenLines > 0, totalLines: clip.totalLines, keep, all: () => piecesOf(text) };
}

/** The newest lines of text that is still growing; cheap however long the text is. */
function tailOf(text: string): ClipContent {
  const recent = text.length > ARG_CHARS ? text.slice(-ARG_CHARS) : text;
  const clip = clipLines(recent, ARG_LINES, ARG_CHARS, 'tail');
  return { text: clip.text, clipped: false, keep: 'tail', all: () => [text] };
}

function endsWithBrace(text: string): boolean {
  let i = text.length - 1;
  while (i >= 0 && /\s/.test(text[i]!)) i--;
  return text[i] === '}';
}

/** A tool's arguments: small nodes for the tools the panel knows, or clipped long text. */
function renderArgs(name: string, args: Record<string, unknown>): Node[] | { cls: string; content: ClipContent } {
  switch (name) {
    case 'bash': {
      // A short one-line command is already in the header.
      const command = str(args.command) ?? '';
      return command.includes('\n') || command.length > 60 ? [scrollRegion(h('pre', { class: 'tool-command' }, command), t('Command'))] : [];
    }
    case 'read': {
      const parts: string[] = [];
      if (typeof args.offset === 'number') parts.push(t('from line {0}', args.offset));
      if (typeof args.limit === 'number') parts.push(`${args.limit} lines`);
      return parts.length ? [h('div', { class: 'tool-detail' }, parts.join(', '))] : [];
    }
    case 'write':
      return { cls: 'tool-file-content', content: clipContent(str(args.content) ?? '', ARG_LINES, ARG_CHARS) };
    case 'edit':
      return [renderDiff(editPairs(args))];
    default: {
      // Only the head is pretty-printed now; the rest when the user asks for it.
      const head = headOf(prettyJson(args), ARG_LINES, ARG_CHARS);
      return { cls: 'tool-args-json', content: { text: head.text, clipped: head.more, keep: 'head', all: () => prettyJson(args) } };
    }
  }
}

function renderDiff(pairs: readonly { oldText: string; newText: string }[]): HTMLElement {
  const pre = scrollRegion(h('pre', { class: 'tool-diff' }), t('Changes'));
  let lines = 0;
  for (const [i, p] of pairs.entries()) {
    if (i > 0) pre.append(h('span', { class: 'diff-sep' }, '⋯\n'));
    for (const [prefix, cls, text] of [
      ['-', 'diff-del', p.oldText],
      ['+', 'diff-ins', p.newText],
    ] as const) {
      if (text === '') continue;
      for (const line of text.split('\n')) {
        if (lines++ >= 400) {
          pre.append(h('span', { class: 'diff-sep' }, t('… diff truncated\n')));
          return pre;
        }
        pre.append(h('span', { class: cls }, `${prefix} ${line}\n`));
      }
    }
  }
  return pre;
}
