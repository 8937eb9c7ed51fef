/**
 * The panel's plan mode, as a Pi extension: while on, Pi is offered its read-only tools only and any other
 * tool call is blocked with a reason (fail-closed); the plan reply is kept to act on; acting leaves plan mode,
 * puts back exactly the tools active before and tracks the plan's checklist, which Pi ticks with the `plan_todo`
 * tool. The state is a custom entry of the session, so it survives a reload and comes back on resume (as far as it
 * agrees with the branch and the tools Pi allows the session).
 */

import type { ExtensionAPI, ExtensionFactory, ToolDefinition } from '@earendil-works/pi-coding-agent';
import { checklistOf, noPlan, planProgress, type PlanItem, type PlanView } from '../shared/plan.ts';
import type { CommandHandlers } from '../shared/wire/commands.ts';

/** Pi's own tools that only read (as Pi registers them, never an extension's tool of the same name). */
const READ_ONLY_BUILTINS: readonly string[] = ['read', 'grep', 'find', 'ls'];

/** The custom session entry holding plan mode's state. */
const PLAN_ENTRY = 'pi-panel-plan';

/** The panel's checklist tool. */
const TODO_TOOL = 'plan_todo';

/** What the read-only decision needs of a tool (Pi's `ToolInfo`). */
export interface ToolFacts {
  readonly name: string;
  readonly sourceInfo?: { readonly path?: string };
  readonly annotations?: { readonly readOnlyHint?: boolean };
}

/**
 * The tools plan mode lets Pi use: Pi's built-in `read`, `grep`, `find` and `ls` (registered by Pi itself, so an
 * extension's replacement of one of them is not trusted by its name), and every tool its author marks read-only
 * (`annotations.readOnlyHint`, as MCP servers do), whatever its name.
 */
export function readOnlyToolNames(tools: readonly ToolFacts[]): Set<string> {
  const names = new Set<string>();
  for (const t of tools) {
    const builtin = READ_ONLY_BUILTINS.includes(t.name) && t.sourceInfo?.path === `builtin:${t.name}`;
    if (builtin || t.annotations?.readOnlyHint === true) names.add(t.name);
  }
  return names;
}

/** The reason a call outside the read-only set gets, which the model and the tool card show. */
function blockedReason(toolName: string): string {
  return `Plan mode is on: only read-only tools may run, so "${toolName}" was not run and nothing was changed. Describe the change in your plan instead; the user acts on the plan when it is ready.`;
}

/** Told to the model (not shown) before each prompt while plan mode is on. */
const PLAN_CONTEXT = [
  '[PLAN MODE] The user wants a plan, not changes.',
  'You may only use read-only tools to look at the project; a call of any other tool is blocked.',
  'When you have looked enough, reply with the plan as a numbered checklist (1., 2., 3., one item per line),',
  'each item a concrete step. Do not make the changes.',
].join('\n');

/** The custom message carrying `PLAN_CONTEXT`. */
const PLAN_CONTEXT_TYPE = 'pi-panel-plan-mode';

/** What the message that acts on a plan says before the plan. */
const ACT_PREFIX = `Act on this plan now. After you finish each item, call the \`${TODO_TOOL}\` tool with the numbers of the items done so far.`;

/** What a session's plan mode keeps in its custom entry. */
interface Saved extends PlanView {
  /** The tools active when plan mode was turned on, put back when it is left. */
  readonly toolsBefore?: readonly string[];
}

/** What plan mode reads of a session's branch entry. */
interface BranchEntry {
  readonly type: string;
  readonly customType?: string;
  readonly data?: unknown;
  readonly message?: unknown;
}

/** An assistant message's text as the chat shows it (trimmed); '' for any other message. */
function replyText(message: unknown): string {
  const m = message as { role?: unknown; content?: unknown } | undefined;
  if (m?.role !== 'assistant' || !Array.isArray(m.content)) return '';
  return (m.content as { type?: unknown; text?: unknown }[])
    .map((c) => (c?.type === 'text' && typeof c.text === 'string' ? c.text : ''))
    .join('')
    .trim();
}

/** One session's plan mode. */
class SessionPlan {
  on = false;
  draft: string | undefined;
  items: PlanItem[] = [];
  toolsBefore: string[] | undefined;
  private readonly _pi: ExtensionAPI;
  private readonly _emit: (plan: PlanView) => void;

  constructor(pi: ExtensionAPI, emit: (plan: PlanView) => void) {
    this._pi = pi;
    this._emit = emit;
  }

  get view(): PlanView {
    return { on: this.on, items: this.items, ...(this.draft ? { draft: this.draft } : {}) };
  }

  /** The read-only tools now; none when Pi cannot say (blocking everything fails closed). */
  readOnly(): Set<string> {
    try {
      return readOnlyToolNames(this._pi.getAllTools());
    } catch {
      return new Set();
    }
  }

  setOn(on: boolean): void {
    if (on === this.on) return this.changed();
    this.on = on;
    if (on) {
      this.draft = undefined;
      this.toolsBefore = this._pi.getActiveTools();
      this.applyTools();
    } else this.restoreTools();
    this.changed();
  }

  /** Leaves plan mode and makes `text`'s items the checklist. */
  act(text: string): void {
    if (this.on) {
      this.on = false;
      this.restoreTools();
    }
    this.draft = undefined;
    this.items = checklistOf(text).map((t) => ({ text: t, done: false }));
    this.changed();
  }

  /**
   * Plan mode's tools: those active before, plus Pi's read-only built-ins and the checklist tool; the loadout
   * hook of `plan_todo` hides every other one from the model (setting the tools runs it again).
   */
  applyTools(): void {
    const before = this.toolsBefore ?? this._pi.getActiveTools();
    const known = new Set(this._pi.getAllTools().map((t) => t.name));
    const extra = [...READ_ONLY_BUILTINS, TODO_TOOL].filter((n) => known.has(n) && !before.includes(n));
    this._pi.setActiveTools([...before, ...extra]);
  }

  /** Exactly the tools that were active when plan mode was turned on. */
  restoreTools(): void {
    this._pi.setActiveTools(this.toolsBefore ?? this._pi.getActiveTools());
    this.toolsBefore = undefined;
  }

  /** Saves the state in the session and shows it. */
  changed(): void {
    const saved: Saved = { ...this.view, ...(this.toolsBefore ? { toolsBefore: this.toolsBefore } : {}) };
    try {
      this._pi.appendEntry(PLAN_ENTRY, saved);
    } catch {
      // A session being replaced takes no entries; the state is shown anyway.
    }
    this._emit(this.view);
  }

  /**
   * The state a session's last plan entry saved (a resumed or reloaded session). A session file is input like any
   * other, so only what agrees with the rest of it comes back: the plan to act on only when it is the text of a reply
   * on the branch before the entry (what the user sees), and the tools to put back only those of `allowed` (what Pi
   * made active for the session from the user's settings), so an entry can never turn a tool on.
   */
  restore(entries: readonly BranchEntry[], allowed: readonly string[]): void {
    const at = entries.findLastIndex((e) => e.type === 'custom' && e.customType === PLAN_ENTRY);
    const data = entries[at]?.data as Partial<Saved> | undefined;
    if (!data || typeof data !== 'object') return;
    this.on = data.on === true;
    const draft = typeof data.draft === 'string' && data.draft ? data.draft : undefined;
    this.draft = draft !== undefined && entries.slice(0, at).some((e) => e.type === 'message' && replyText(e.message) === draft) ? draft : undefined;
    this.items = Array.isArray(data.items)
      ? data.items.filter((i): i is PlanItem => typeof i?.text === 'string' && typeof i.done === 'boolean').map((i) => ({ text: i.text, done: i.done }))
      : [];
    this.toolsBefore =
      this.on && Array.isArray(data.toolsBefore) ? data.toolsBefore.filter((n): n is string => typeof n === 'string' && allowed.includes(n)) : undefined;
  }

  /** Ticks items (1-based); the text the tool answers with. */
  tick(done: readonly number[]): string {
    if (!this.items.length) return 'There is no checklist to tick: the user has not acted on a plan.';
    const wrong = done.filter((n) => !Number.isInteger(n) || n < 1 || n > this.items.length);
    this.items = this.items.map((item, i) => (done.includes(i + 1) ? { ...item, done: true } : item));
    this.changed();
    const p = planProgress(this.items);
    const next = p.current >= 0 ? ` Next: ${p.current + 1}. ${this.items[p.current]!.text}` : ' Every item is done.';
    const note = wrong.length ? ` (No item ${wrong.join(', ')}: the checklist has ${this.items.length}.)` : '';
    return `Checklist: ${p.done} of ${p.total} done.${next}${note}`;
  }
}

/** The `plan_todo` tool's parameters, as JSON Schema (Pi validates plain JSON Schema as it does MCP tools'). */
const TODO_PARAMETERS = {
  type: 'object',
  properties: {
    done: { type: 'array', items: { type: 'integer', minimum: 1 }, description: 'Numbers (from 1) of the plan items finished so far.' },
  },
  required: ['done'],
  additionalProperties: false,
};

/** Plan mode of the panel's sessions: the extension Pi loads for each session, and what the host asks of the current one. */
export class PlanMode {
  private readonly _emit: (plan: PlanView) => void;
  private _current: SessionPlan | undefined;

  /** `emit` shows a session's plan state (a wire event). */
  constructor(emit: (plan: PlanView) => void) {
    this._emit = emit;
  }

  /** The current session's state (off, no plan, when no session has bound the extension). */
  get view(): PlanView {
    return this._current?.view ?? noPlan;
  }

  /** Turns plan mode on or off (toggles it without `on`); the state after. */
  setOn(on?: boolean): PlanView {
    const plan = this._current;
    if (!plan) return noPlan;
    plan.setOn(on ?? !plan.on);
    return plan.view;
  }

  /** Leaves plan mode with `text` as the plan to track; the message that asks Pi to act on it. */
  act(text: string): string {
    this._current?.act(text);
    return `${ACT_PREFIX}\n\n${text.trim()}`;
  }

  /**
   * The requests plan mode answers, which the worker registers beside the others: each waits for `opened` (the
   * session open; it rejects when the session cannot start) and Act on plan `send`s its message as a prompt.
   */
  handlers(opened: () => Promise<unknown>, send: (text: string) => Promise<void>): CommandHandlers<'setPlanMode' | 'actOnPlan'> {
    return {
      setPlanMode: async ({ on }) => {
        await opened();
        return { plan: this.setOn(on) };
      },
      actOnPlan: async ({ text }) => {
        await opened();
        await send(this.act(text));
      },
    };
  }

  /** Pi calls it for every session it builds; the last one bound is the current one. */
  readonly factory: ExtensionFactory = (pi) => {
    const plan = new SessionPlan(pi, (view) => {
      if (this._current === plan) this._emit(view);
    });

    const todo: ToolDefinition = {
      name: TODO_TOOL,
      label: 'Plan checklist',
      description:
        'Ticks items of the plan checklist the user sees in the panel. Call it after finishing an item of the plan you are acting on, with the numbers (from 1) of the items done so far.',
      promptSnippet: 'Tick items of the plan checklist as you finish them',
      parameters: TODO_PARAMETERS as unknown as ToolDefinition['parameters'],
      // It changes nothing but the panel's checklist.
      annotations: { readOnlyHint: true },
      prepareLoadout: (loadout) => {
        if (!plan.on) return undefined;
        const readOnly = plan.readOnly();
        return { hiddenDeclarations: loadout.declared.map((t) => t.name).filter((n) => !readOnly.has(n)) };
      },
      execute: async (_id, params) => {
        const done = Array.isArray((params as { done?: unknown }).done)
          ? ((params as { done: unknown[] }).done.filter((n) => typeof n === 'number') as number[])
          : [];
        return { content: [{ type: 'text', text: plan.tick(done) }], details: {} };
      },
    };
    pi.registerTool(todo);

    // Fail-closed: a tool Pi cannot vouch for as read-only does not run, whoever activated it.
    pi.on('tool_call', (event) => {
      if (!plan.on || plan.readOnly().has(event.toolName)) return undefined;
      return { block: true, reason: blockedReason(event.toolName) };
    });

    pi.on('before_agent_start', (event) => {
      if (!plan.on || event.messageType !== 'user') return undefined;
      return { message: { customType: PLAN_CONTEXT_TYPE, content: PLAN_CONTEXT, display: false } };
    });

    // Out of plan mode, the plan-mode instructions of earlier prompts no longer apply: the model does not see them.
    pi.on('context', (event) => {
      if (plan.on) return undefined;
      const messages = event.messages.filter((m) => (m as { customType?: string }).customType !== PLAN_CONTEXT_TYPE);
      return messages.length === event.messages.length ? undefined : { messages };
    });

    pi.on('agent_end', (event) => {
      if (!plan.on) return;
      const text = replyText(event.messages.findLast((m) => m.role === 'assistant'));
      if (!text) return;
      plan.draft = text;
      plan.changed();
    });

    pi.on('session_start', (_event, ctx) => {
      this._current = plan;
      // The tools Pi made active for this session (settings, the branch's loadout), before plan mode adds its own.
      plan.restore(ctx.sessionManager.getBranch(), pi.getActiveTools());
      if (plan.on) plan.applyTools();
      this._emit(plan.view);
    });
  };
}
