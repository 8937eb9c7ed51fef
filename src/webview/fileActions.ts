/**
 * The file actions of an `edit` or `write` card: its path as a link to the first changed line, and Open Diff as an
 * icon button in the card's toolbar, offered only for a call that ran (a blocked or failed one changed nothing).
 */

import type { ToolCardView } from '../shared/transcript/rows.ts';
import { showInvisibles } from '../shared/visibleText.ts';
import { ConversationAction } from './actions.ts';
import { button, codiconButton, nameIconButton, toolbar } from './components.ts';
import { setAttr, setHidden } from './dom.ts';
import { parseArgs } from './format.ts';
import { t } from './l10n.ts';

const FILE_TOOLS = new Set(['edit', 'write']);

/** Whether `toolName` is a tool that changes a file (its card gets file actions, and reads as a proposal when it did not run). */
export function isFileTool(toolName: string): boolean {
  return FILE_TOOLS.has(toolName);
}

/** The path a file tool names, workspace-relative when it is inside `cwd`. */
function filePathOf(toolName: string, args: Record<string, unknown> | undefined, cwd: string | undefined): string | undefined {
  if (!FILE_TOOLS.has(toolName) || !args) return undefined;
  const p = args.path ?? args.file_path ?? args.filePath;
  if (typeof p !== 'string' || !p) return undefined;
  return relativeTo(p, cwd);
}

/** `p` relative to `cwd` when it lies inside it ('/'-separated); otherwise as given. */
function relativeTo(p: string, cwd: string | undefined): string {
  const norm = p.replaceAll('\\', '/');
  if (!cwd) return norm;
  const root = cwd.replaceAll('\\', '/').replace(/\/+$/, '');
  return norm.startsWith(`${root}/`) ? norm.slice(root.length + 1) : norm;
}

/**
 * The path link under a file tool's header (`el`) and its Open Diff (`toolbar`, for the header's end); hidden until
 * the tool has started (a draft call changed nothing).
 */
export class FileActions {
  readonly el: HTMLElement;
  readonly toolbar: HTMLElement;
  private readonly _open: HTMLButtonElement;
  private readonly _diff: HTMLButtonElement;

  constructor() {
    this._open = button('', ConversationAction.OpenFile, 'link', { class: 'btn btn-link file-link' });
    this._diff = codiconButton('diff', t('Open Diff'), ConversationAction.OpenDiff);
    this.el = document.createElement('div');
    this.el.className = 'file-actions';
    this.el.hidden = true;
    this.el.append(this._open);
    this.toolbar = toolbar(this._diff);
    this.toolbar.hidden = true;
  }

  /** `argText`: the executed call's arguments (JSON); `cwd`: the session's folder, for a workspace-relative path. */
  update(toolName: string, argText: string, card: ToolCardView | undefined, cwd: string | undefined): void {
    const path = card && FILE_TOOLS.has(toolName) ? filePathOf(toolName, parseArgs(argText), cwd) : undefined;
    const show = path !== undefined;
    setHidden(this.el, !show);
    // A call that failed or was blocked changed nothing: a diff of it would look like a change that happened.
    setHidden(this.toolbar, !show || card?.status === 'error');
    if (!show) return;
    for (const b of [this._open, this._diff]) setAttr(b, 'data-path', path);
    // The path comes from the model's call: invisible characters in it show (data-path keeps it as it is).
    const shown = showInvisibles(path, { oneLine: true });
    if (this._open.textContent !== shown) this._open.textContent = shown;
    setAttr(this._open, 'title', t('Open {0} at the first changed line', shown));
    nameIconButton(this._diff, t('Open diff of {0}', shown));
  }
}
