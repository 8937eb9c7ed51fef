/**
 * Folds a run of consecutive read-only tool calls (`read`, `grep`, `find`, `ls`, VS Code's look-up tools) into one
 * line that expands ("Read 5 files, searched 2 patterns"), so ten look-ups do not push the answer off screen. The
 * cards stay in the DOM inside the folded rows (tests and outside checks find them by their attributes); a call that
 * failed, an edit, and any text the model wrote end a run.
 */

import type { MessageView, ToolCardView, ToolStatus } from '../shared/transcript/rows.ts';
import { h, setAttr, setText } from './dom.ts';
import { t } from './l10n.ts';

/** A rendered row: its state and its element. */
export interface GroupRow {
  readonly message: MessageView;
  readonly el: HTMLElement;
}

const READ_ONLY = new Set(['read', 'grep', 'find', 'ls']);

/** Whether a call of `name` only looks (VS Code's tools by their prefix, except rename, which edits files). */
function isReadOnlyTool(name: string): boolean {
  return READ_ONLY.has(name) || (name.startsWith('vscode_') && name !== 'vscode_rename');
}

/** "Read 5 files, searched 2 patterns": what a run of read-only calls did, by kind, in the order kinds first appear. */
function groupSummary(names: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const name of names) {
    const kind = name.startsWith('vscode_') ? 'vscode' : name;
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  const parts = [...counts].map(([kind, n]) => phrase(kind, n));
  const text = parts.join(t(', '));
  return text.charAt(0).toLocaleUpperCase() + text.slice(1);
}

function phrase(kind: string, n: number): string {
  switch (kind) {
    case 'read':
      return n === 1 ? t('read 1 file') : t('read {0} files', n);
    case 'grep':
      return n === 1 ? t('searched 1 pattern') : t('searched {0} patterns', n);
    case 'find':
      return n === 1 ? t('looked for files once') : t('looked for files {0} times', n);
    case 'ls':
      return n === 1 ? t('listed 1 folder') : t('listed {0} folders', n);
    default:
      return n === 1 ? t('asked VS Code once') : t('asked VS Code {0} times', n);
  }
}

type Step = { readonly kind: 'calls'; readonly calls: readonly { id: string; name: string; status: ToolStatus }[] } | { readonly kind: 'through' | 'break' };

/** What a row means for a run: read-only calls that did not fail, a row a run passes through (a folded result), or its end. */
function stepOf(m: MessageView, toolOf: (id: string) => ToolCardView | undefined): Step {
  if (m.role === 'toolResult') return m.blocks.length === 0 && !m.media?.length ? { kind: 'through' } : { kind: 'break' };
  if (m.role !== 'assistant') return { kind: 'break' };
  const calls: { id: string; name: string; status: ToolStatus }[] = [];
  for (const b of m.blocks) {
    if (!b) continue;
    if (b.kind === 'text' && b.text.trim() !== '') return { kind: 'break' };
    if (b.kind !== 'toolCall') continue;
    const card = b.toolCallId !== undefined ? toolOf(b.toolCallId) : undefined;
    const name = card?.toolName || b.toolName || '';
    const status = card?.status ?? 'pending';
    // A failing call always stands alone, where it can be seen.
    if (!b.toolCallId || !isReadOnlyTool(name) || status === 'error') return { kind: 'break' };
    calls.push({ id: b.toolCallId, name, status });
  }
  if (calls.length) return { kind: 'calls', calls };
  // A reply still starting (nothing but thinking yet) may go on with a call; a finished one without calls ends the run.
  return m.final ? { kind: 'break' } : { kind: 'through' };
}

interface Group {
  readonly key: string;
  readonly rows: readonly HTMLElement[];
  readonly summary: HTMLButtonElement;
}

/** The groups of the rendered rows; `update` after each render that changed rows or tool states. */
export class ToolGroups {
  /** Groups the user opened, by their first call's id (a group keeps it as calls join it). */
  private readonly _open = new Set<string>();
  private _groups = new Map<string, Group>();

  /** Marks the runs among `rows` (in order) and puts each run's line at its top. */
  update(rows: Iterable<GroupRow>, toolOf: (id: string) => ToolCardView | undefined): void {
    const next = new Map<string, Group>();
    let runRows: HTMLElement[] = [];
    let calls: { id: string; name: string; status: ToolStatus }[] = [];
    const flush = () => {
      if (calls.length >= 2) {
        const key = calls[0]!.id;
        const summary = this._groups.get(key)?.summary ?? this._summary(key);
        const group = { key, rows: runRows, summary };
        next.set(key, group);
        this._draw(group, calls);
      }
      runRows = [];
      calls = [];
    };
    for (const row of rows) {
      const step = stepOf(row.message, toolOf);
      if (step.kind === 'break') flush();
      else if (step.kind === 'calls') {
        runRows.push(row.el);
        calls.push(...step.calls);
      } else if (calls.length) runRows.push(row.el);
    }
    flush();
    const kept = new Set<HTMLElement>();
    for (const g of next.values()) for (const el of g.rows) kept.add(el);
    for (const g of this._groups.values()) {
      if (next.get(g.key)?.summary !== g.summary) g.summary.remove();
      for (const el of g.rows) {
        if (kept.has(el)) continue;
        el.removeAttribute('data-tool-group');
        el.removeAttribute('data-group-open');
      }
    }
    this._groups = next;
  }

  private _summary(key: string): HTMLButtonElement {
    const b = h(
      'button',
      { type: 'button', class: 'tool-group-summary', 'aria-expanded': 'false' },
      h('span', { class: 'tool-glyph', 'aria-hidden': 'true' }),
      h('span', { class: 'tool-group-text' }),
    );
    b.addEventListener('click', () => {
      if (!this._open.delete(key)) this._open.add(key);
      const g = this._groups.get(key);
      if (g) this._setOpen(g);
    });
    return b;
  }

  private _draw(g: Group, calls: readonly { name: string; status: ToolStatus }[]): void {
    const first = g.rows[0]!;
    if (g.summary.parentElement !== first || first.firstChild !== g.summary) first.insertBefore(g.summary, first.firstChild);
    const running = calls.some((c) => c.status === 'running' || c.status === 'pending');
    setAttr(g.summary, 'data-status', running ? 'running' : 'done');
    setText(g.summary.firstChild as HTMLElement, running ? '◌' : '✓');
    setText(g.summary.lastChild as HTMLElement, groupSummary(calls.map((c) => c.name)));
    for (const [i, el] of g.rows.entries()) setAttr(el, 'data-tool-group', i === 0 ? 'first' : 'member');
    this._setOpen(g);
  }

  private _setOpen(g: Group): void {
    const open = this._open.has(g.key);
    setAttr(g.summary, 'aria-expanded', String(open));
    for (const el of g.rows) setAttr(el, 'data-group-open', String(open));
  }
}
