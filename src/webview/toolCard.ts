/**
 * A tool card, in two layers: the model's draft call (name and streaming arguments, from the block),
 * then the execution keyed by `toolCallId` (status, live output, result, duration, from the tool state).
 * Success, failure and duration come only from the tool state, never from the block.
 */

import { showBidiControls } from '../shared/bidi.ts';
import type { BlockView, ToolCardView, ToolStatus } from '../shared/transcript.ts';
import { button, scrollRegion, srOnly } from './components.ts';
import { h, setAttr, setHidden, setText } from './dom.ts';
import { FileActions } from './fileActions.ts';
import { clipLines, cleanTerminalText, editPairs, formatDuration, parseArgs, str, toolSummary } from './format.ts';

const OUTPUT_LINES = 30;
const OUTPUT_CHARS = 6000;
const ARG_LINES = 40;

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
  private readonly _args: HTMLElement;
  private readonly _output: HTMLElement;
  private readonly _outputPre: HTMLElement;
  private readonly _more: HTMLButtonElement;
  private readonly _files = new FileActions();
  private _argsKey: string | undefined;
  private _block: BlockView | undefined;
  private _card: ToolCardView | undefined;
  private _outputKey: string | undefined;
  private readonly _ui: ToolCardUi;

  constructor(ui: ToolCardUi) {
    this._ui = ui;
    this._glyph = h('span', { class: 'tool-glyph', 'aria-hidden': 'true' });
    this._statusText = srOnly('');
    this._name = h('span', { class: 'tool-name' });
    this._summary = h('span', { class: 'tool-summary' });
    this._duration = h('span', { class: 'tool-duration' });
    this._args = h('div', { class: 'tool-args' });
    this._outputPre = scrollRegion(h('pre', { class: 'tool-output-text' }), 'Tool output');
    this._more = button('Show all', 'tool-show-all', 'link');
    this._output = h('div', { class: 'tool-output', hidden: true }, this._outputPre, this._more);
    this.el = h(
      'div',
      { class: 'tool-card', 'data-status': 'pending' },
      h('div', { class: 'tool-head' }, this._glyph, this._statusText, this._name, this._summary, this._duration),
      this._files.el,
      this._args,
      this._output,
    );
  }

  get toolCallId(): string | undefined {
    return this._card?.toolCallId ?? this._block?.toolCallId;
  }

  /** Renders from the block (the model's call) and the tool state (the execution), either possibly absent. */
  update(block: BlockView | undefined, card: ToolCardView | undefined): void {
    if (block === this._block && card === this._card) return;
    this._block = block;
    this._card = card;
    const id = card?.toolCallId ?? block?.toolCallId;
    const name = card?.toolName || block?.toolName || 'tool';
    const status: ToolStatus = card?.status ?? 'pending';
    setAttr(this.el, 'data-tool-call-id', id);
    setAttr(this.el, 'data-tool-name', name);
    setAttr(this.el, 'data-status', status);
    setAttr(this.el, 'data-duration-ms', card?.durationMs);
    setText(this._glyph, STATUS_GLYPH[status]);
    setText(this._statusText, `${STATUS_LABEL[status]}: `);
    // Name and summary are the one line a reader trusts: a bidi override must show, not reorder them.
    setText(this._name, showBidiControls(name));
    setText(this._duration, card?.durationMs !== undefined ? formatDuration(card.durationMs) : '');

    // The executed arguments win over the drafted ones (a hook may have changed them).
    const argText = card?.args || block?.text || '';
    const streaming = !card && block !== undefined && !block.final;
    const argsKey = `${name}\u0000${streaming ? 's' : 'f'}\u0000${argText}`;
    if (argsKey !== this._argsKey) {
      this._argsKey = argsKey;
      this._renderArgs(name, argText, streaming);
    }
    this._files.update(name, argText, card, this._ui.cwd?.());
    this._renderOutput();
  }

  /** Re-renders after a UI toggle ("show all"). */
  refresh(): void {
    this._outputKey = undefined;
    this._renderOutput();
  }

  private _renderArgs(name: string, text: string, streaming: boolean): void {
    const args = parseArgs(text);
    setText(this._summary, showBidiControls(toolSummary(name, args)));
    if (!args) {
      // Still streaming (or not JSON): the raw text, appended in place as it grows.
      let pre = this._args.firstElementChild;
      if (!pre || !pre.classList.contains('tool-args-raw')) {
        pre = scrollRegion(h('pre', { class: 'tool-args-raw' }), 'Arguments');
        this._args.replaceChildren(pre);
      }
      setText(pre, text);
      setAttr(this._args, 'data-streaming', streaming ? 'true' : undefined);
      return;
    }
    setAttr(this._args, 'data-streaming', undefined);
    this._args.replaceChildren(...renderArgs(name, args));
  }

  private _renderOutput(): void {
    const card = this._card;
    const output = card ? cleanTerminalText(card.output) : '';
    const id = this.toolCallId ?? '';
    const all = this._ui.isOpen(`tool:${id}`) === true;
    const key = `${card?.status}\u0000${all}\u0000${output}`;
    if (key === this._outputKey) return;
    this._outputKey = key;
    setHidden(this._output, !card || (output === '' && card.status !== 'error'));
    if (!card) return;
    const clip = all
      ? { text: output, hiddenLines: 0, totalLines: 0 }
      : clipLines(output, OUTPUT_LINES, OUTPUT_CHARS, card.status === 'running' ? 'tail' : 'head');
    setText(this._outputPre, clip.text || (card.status === 'error' ? '(failed without output)' : ''));
    setAttr(this._outputPre, 'data-clipped', clip.hiddenLines ? (card.status === 'running' ? 'head' : 'tail') : undefined);
    setHidden(this._more, clip.hiddenLines === 0);
    if (clip.hiddenLines) setText(this._more, `Show all (${clip.totalLines} lines)`);
  }
}

function renderArgs(name: string, args: Record<string, unknown>): Node[] {
  switch (name) {
    case 'bash': {
      // A short one-line command is already in the header.
      const command = str(args.command) ?? '';
      return command.includes('\n') || command.length > 60 ? [scrollRegion(h('pre', { class: 'tool-command' }, command), 'Command')] : [];
    }
    case 'read': {
      const parts: string[] = [];
      if (typeof args.offset === 'number') parts.push(`from line ${args.offset}`);
      if (typeof args.limit === 'number') parts.push(`${args.limit} lines`);
      return parts.length ? [h('div', { class: 'tool-detail' }, parts.join(', '))] : [];
    }
    case 'write': {
      const content = str(args.content) ?? '';
      const clip = clipLines(content, ARG_LINES, 8000, 'head');
      const nodes: Node[] = [scrollRegion(h('pre', { class: 'tool-file-content' }, clip.text), 'File content')];
      if (clip.hiddenLines) nodes.push(h('div', { class: 'tool-detail' }, `… ${clip.hiddenLines} more lines`));
      return nodes;
    }
    case 'edit':
      return [renderDiff(editPairs(args))];
    default:
      return [scrollRegion(h('pre', { class: 'tool-args-json' }, JSON.stringify(args, null, 2)), 'Arguments')];
  }
}

function renderDiff(pairs: readonly { oldText: string; newText: string }[]): HTMLElement {
  const pre = scrollRegion(h('pre', { class: 'tool-diff' }), 'Changes');
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
          pre.append(h('span', { class: 'diff-sep' }, '… diff truncated\n'));
          return pre;
        }
        pre.append(h('span', { class: cls }, `${prefix} ${line}\n`));
      }
    }
  }
  return pre;
}
