/** Plan mode's state as both sides see it (the toggle, the plan reply ready to act on, its checklist) and the pure reading of a plan's items. */

/** One item of the plan's checklist. */
export interface PlanItem {
  readonly text: string;
  readonly done: boolean;
}

/** Plan mode of one chat: on or off, the last plan reply (until acted on), and the checklist being worked through. */
export interface PlanView {
  /** Pi may use read-only tools only. */
  readonly on: boolean;
  /** The text of the plan reply that ended last in plan mode: Open Plan and Act on Plan use it. */
  readonly draft?: string;
  /** The acted-on plan's items, ticked as Pi reports progress (the `todo` tool). */
  readonly items: readonly PlanItem[];
}

/** Plan mode off, no plan. */
export const noPlan: PlanView = { on: false, items: [] };

/** Items kept of one plan and characters of one item: a reply must not be able to flood the view. */
const MAX_PLAN_ITEMS = 50;
const MAX_PLAN_ITEM_CHARS = 300;

/**
 * The items of a plan: its numbered list items (`1.` or `1)`), else its `Step 1:` lines, else its task-list
 * items (`- [ ]`), in order. A nested list's lines (indented) are details of their item, not items.
 */
export function checklistOf(text: string): string[] {
  const numbered: string[] = [];
  const steps: string[] = [];
  const tasks: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const n = /^ {0,3}\d{1,3}[.)]\s+(?:\[[ xX]\]\s+)?(.+)$/.exec(line);
    if (n) numbered.push(clean(n[1]!));
    const s = /^ {0,3}(?:\*\*)?step \d{1,3}(?:\*\*)?[.:)](?:\*\*)?\s+(.+)$/i.exec(line);
    if (s) steps.push(clean(s[1]!));
    const t = /^ {0,3}[-*+]\s+\[[ xX]\]\s+(.+)$/.exec(line);
    if (t) tasks.push(clean(t[1]!));
  }
  const items = (numbered.length ? numbered : steps.length ? steps : tasks).filter((s) => s.length > 0);
  return items.slice(0, MAX_PLAN_ITEMS);
}

/** An item's text without Markdown emphasis around it, cut to its limit. */
function clean(s: string): string {
  return s
    .trim()
    .replace(/^\*\*(.+)\*\*$/, '$1')
    .slice(0, MAX_PLAN_ITEM_CHARS);
}

/** Where a checklist is: how many items are done, the first one left (the current one, -1 when all are done), and how many are left. */
export interface PlanProgress {
  readonly done: number;
  readonly current: number;
  readonly left: number;
  readonly total: number;
}

export function planProgress(items: readonly PlanItem[]): PlanProgress {
  const done = items.filter((i) => i.done).length;
  return { done, current: items.findIndex((i) => !i.done), left: items.length - done, total: items.length };
}

/** `p` when it has the shape of a plan (a reply of a newer worker, a session entry written by hand), else undefined. */
export function asPlanView(p: unknown): PlanView | undefined {
  if (typeof p !== 'object' || p === null) return undefined;
  const o = p as Record<string, unknown>;
  if (typeof o.on !== 'boolean' || !Array.isArray(o.items)) return undefined;
  const items: PlanItem[] = [];
  for (const i of o.items.slice(0, MAX_PLAN_ITEMS) as unknown[]) {
    if (typeof i !== 'object' || i === null) return undefined;
    const it = i as Record<string, unknown>;
    if (typeof it.text !== 'string' || typeof it.done !== 'boolean') return undefined;
    items.push({ text: it.text.slice(0, MAX_PLAN_ITEM_CHARS), done: it.done });
  }
  return { on: o.on, items, ...(typeof o.draft === 'string' && o.draft ? { draft: o.draft } : {}) };
}
