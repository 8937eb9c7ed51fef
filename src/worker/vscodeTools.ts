/**
 * The panel's Pi extension that gives Pi what VS Code knows (issue 37): the `vscode_*` tools, each answered by the
 * extension host with the VS Code API, and the new errors after Pi's `edit`, `write` and `vscode_rename` appended
 * to the result the model sees.
 */

import type { ExtensionFactory, ToolDefinition } from '@earendil-works/pi-coding-agent';
import type { Scheduler } from '../shared/batcher.ts';
import { newErrorsLabel, READ_ONLY_VSCODE_TOOLS, timeoutText, VSCODE_TOOL_NAMES, type VscodeToolName } from '../shared/vscodeTools.ts';
import type { HostRequestMethod, HostRequests, Logger } from '../shared/wire/workerProtocol.ts';
import { errorText } from './agentSession.ts';
import { resolveToolPath } from './toolPath.ts';
import { within } from './within.ts';

/** Sends a request to the extension host. */
export type AskHost = <M extends HostRequestMethod>(method: M, params: HostRequests[M]['params']) => Promise<HostRequests[M]['result']>;

/** What the extension reads at each session it is built for. */
export interface VscodeToolsOptions {
  /** Setting `piPanel.vscodeTools`. */
  readonly tools: boolean;
  /** Setting `piPanel.diagnosticsAfterEdit`. */
  readonly afterEdit: boolean;
  readonly cwd: string | undefined;
}

/** How long the worker waits for the host's answer: the host's own per-call limit (30 s), plus room for a busy main thread. */
const HOST_ANSWER_MS = 45_000;

/** How long the note of errors before an edit may hold the edit up. */
const BEFORE_EDIT_MS = 3000;

/** Tools after which the new errors are appended. */
const CHANGING_TOOLS = new Set(['edit', 'write', 'vscode_rename']);

const place = {
  path: { type: 'string', description: 'File path relative to the workspace folder.' },
  line: { type: 'integer', minimum: 1, description: 'Line, 1-based.' },
  column: { type: 'integer', minimum: 1, description: 'Column (character in the line), 1-based, on the symbol.' },
};
const target = {
  type: 'object',
  properties: { ...place, symbol: { type: 'string', description: 'A symbol name, found through the workspace symbols, instead of path/line/column.' } },
  additionalProperties: false,
};

/** Each tool's description and JSON Schema (Pi validates plain JSON Schema as it does MCP tools'). */
const TOOLS: Readonly<Record<VscodeToolName, { label: string; description: string; snippet: string; parameters: object }>> = {
  vscode_diagnostics: {
    label: 'VS Code problems',
    description:
      "Errors and warnings that VS Code's language servers report (the Problems panel), errors first. Give `paths` (workspace-relative) to check those files (they are opened for the language servers); without it, every problem known now.",
    snippet: "List errors and warnings from VS Code's language servers",
    parameters: {
      type: 'object',
      properties: { paths: { type: 'array', items: { type: 'string' }, description: 'Workspace-relative file paths.' } },
      additionalProperties: false,
    },
  },
  vscode_definition: {
    label: 'VS Code go to definition',
    description:
      'Where a symbol is defined, from VS Code\'s language server. Give { path, line, column } (1-based, on the symbol) or { symbol }. Answers "path:line:column: code" lines.',
    snippet: 'Find where a symbol is defined (language server)',
    parameters: target,
  },
  vscode_references: {
    label: 'VS Code find references',
    description:
      'Every reference to a symbol, from VS Code\'s language server (more precise than grep). Give { path, line, column } (1-based, on the symbol) or { symbol }. Answers "path:line:column: code" lines.',
    snippet: 'Find all references to a symbol (language server)',
    parameters: target,
  },
  vscode_hover: {
    label: 'VS Code hover',
    description: 'The type and documentation VS Code shows when hovering a symbol. Give { path, line, column } (1-based) or { symbol }.',
    snippet: 'Show the type and docs of a symbol (language server)',
    parameters: target,
  },
  vscode_symbols: {
    label: 'VS Code symbols',
    description: "Symbols from VS Code's language servers: give `path` for that file's outline, or `query` to search the workspace's symbols by name.",
    snippet: 'List a file outline or search workspace symbols',
    parameters: {
      type: 'object',
      properties: { path: place.path, query: { type: 'string', description: 'Part of a symbol name, for workspace symbols.' } },
      additionalProperties: false,
    },
  },
  vscode_rename: {
    label: 'VS Code rename symbol',
    description:
      "Renames a symbol everywhere it is used, through VS Code's language server (the editor's Rename Symbol), and saves the changed files. Give { path, line, column } (1-based, on the symbol) and newName.",
    snippet: 'Rename a symbol across files (language server)',
    parameters: {
      type: 'object',
      properties: { ...place, newName: { type: 'string', description: 'The new name.' } },
      required: ['path', 'line', 'column', 'newName'],
      additionalProperties: false,
    },
  },
};

/** The `vscode_*` tools and the errors after edits, for every session Pi builds. */
export class VscodeTools {
  private readonly _options: () => VscodeToolsOptions;
  private readonly _ask: AskHost;
  private readonly _willWrite: (files: readonly string[]) => void;
  private readonly _log: Logger;
  private readonly _clock: Scheduler;
  /** Tool calls whose files had their errors noted before they changed. */
  private readonly _noted = new Map<string, readonly string[]>();

  /** `willWrite` records the files a rename is about to change (the Changes row, Undo). */
  constructor(options: () => VscodeToolsOptions, ask: AskHost, willWrite: (files: readonly string[]) => void, log: Logger, clock: Scheduler) {
    this._options = options;
    this._clock = clock;
    this._ask = ask;
    this._willWrite = willWrite;
    this._log = log;
  }

  readonly factory: ExtensionFactory = (pi) => {
    const o = this._options();
    if (o.tools) for (const name of VSCODE_TOOL_NAMES) pi.registerTool(this._tool(name, o.afterEdit));
    if (!o.afterEdit) return;
    // Last of the panel's hooks: a call plan mode or the user blocked never gets here.
    pi.on('tool_call', async (event) => {
      if (event.toolName !== 'edit' && event.toolName !== 'write') return undefined;
      const given = (event.input as { path?: unknown } | undefined)?.path;
      const cwd = this._options().cwd;
      if (typeof given !== 'string' || !cwd) return undefined;
      await this._noteBefore(event.toolCallId, [resolveToolPath(given, cwd)]);
      return undefined;
    });
    pi.on('tool_result', async (event) => {
      const paths = this._noted.get(event.toolCallId);
      this._noted.delete(event.toolCallId);
      if (!paths || event.isError || !CHANGING_TOOLS.has(event.toolName)) return undefined;
      let after: HostRequests['editDiagnostics']['result'];
      try {
        after = await within(this._clock, this._ask('editDiagnostics', { step: 'after', id: event.toolCallId, paths }), HOST_ANSWER_MS, () => ({
          note: '',
          count: 0,
        }));
      } catch (err) {
        this._log.warn(`Diagnostics after ${event.toolName} failed: ${errorText(err)}`);
        return undefined;
      }
      if (!after.count) return undefined;
      const details = typeof event.details === 'object' && event.details !== null ? event.details : {};
      return {
        content: [...event.content, { type: 'text' as const, text: after.note }],
        details: { ...details, newErrors: after.count, newErrorsLabel: newErrorsLabel(after.count) },
      };
    });
  };

  /** Notes the errors in `paths` before tool call `id` changes them (bounded: an edit is never held up long). */
  private async _noteBefore(id: string, paths: readonly string[]): Promise<void> {
    try {
      await within(this._clock, this._ask('editDiagnostics', { step: 'before', id, paths }), BEFORE_EDIT_MS);
      this._noted.set(id, paths);
    } catch (err) {
      this._log.warn(`Diagnostics before a change failed: ${errorText(err)}`);
    }
  }

  private _tool(name: VscodeToolName, afterEdit: boolean): ToolDefinition {
    const spec = TOOLS[name];
    const readOnly = READ_ONLY_VSCODE_TOOLS.includes(name);
    return {
      name,
      label: spec.label,
      description: spec.description,
      promptSnippet: spec.snippet,
      parameters: spec.parameters as unknown as ToolDefinition['parameters'],
      annotations: readOnly ? { readOnlyHint: true } : { readOnlyHint: false, destructiveHint: false },
      // A rename writes files the other calls of the same message may read.
      ...(readOnly ? {} : { executionMode: 'sequential' as const }),
      execute: async (toolCallId, params) => {
        const ask = (step?: 'plan' | 'apply') =>
          within(this._clock, this._ask('vscodeTool', { tool: name, args: params, id: toolCallId, ...(step ? { step } : {}) }), HOST_ANSWER_MS, () => ({
            text: timeoutText(HOST_ANSWER_MS),
            isError: true,
          }));
        if (readOnly) return result(await ask());
        const plan = await ask('plan');
        if (plan.isError || !plan.files?.length) return result(plan);
        this._willWrite(plan.files);
        if (afterEdit) await this._noteBefore(toolCallId, plan.files);
        const applied = await ask('apply');
        return { ...result(applied), details: { files: plan.files } };
      },
    };
  }
}

/** A tool result; an error throws, which Pi reports to the model as the tool's failure. */
function result(answer: { readonly text: string; readonly isError?: boolean }): {
  content: { type: 'text'; text: string }[];
  details: Record<string, unknown>;
} {
  if (answer.isError) throw new Error(answer.text);
  return { content: [{ type: 'text', text: answer.text }], details: {} };
}
