/** Requests the main thread makes of the open session itself: its model, thinking level, name, exports and Pi's commands. */

import * as path from 'node:path';
import type { CommandHandlers } from '../shared/wire/commands.ts';
import type { ModelChoice } from '../shared/wire/workerProtocol.ts';
import type { AgentSessionLike, ThinkingLevel } from './agentSession.ts';
import { exportSessionHtml } from './sessionFiles.ts';
import { listPiCommands } from './piCommands.ts';

/** Every thinking level Pi knows: a level Pi adds is a compile error here until it is listed. */
const THINKING_LEVELS: Readonly<Record<ThinkingLevel, true>> = { off: true, minimal: true, low: true, medium: true, high: true, xhigh: true, max: true };

function isThinkingLevel(level: string): level is ThinkingLevel {
  return Object.hasOwn(THINKING_LEVELS, level);
}

/** The models with credentials, and the session's. */
async function listModels(s: AgentSessionLike): Promise<{ models: ModelChoice[]; current?: string }> {
  const models = (await s.modelRuntime.getAvailable()).map((m) => ({ provider: m.provider, id: m.id, name: m.name }));
  return { models, current: s.model ? `${s.model.provider}/${s.model.id}` : undefined };
}

/** Switches the session to a model with credentials; throws when there is none such. */
async function setModel(s: AgentSessionLike, provider: string, id: string, persist = false): Promise<void> {
  const model = (await s.modelRuntime.getAvailable()).find((m) => m.provider === provider && m.id === id);
  if (!model) throw new Error(`no model ${provider}/${id} with credentials`);
  // `persist`: also Pi's default for new sessions (settings.json), as Ctrl+S in Pi's own picker.
  await s.setModel(model, persist ? { persist: true } : {});
}

/** The levels the session's model offers, and the session's. */
function thinkingLevels(s: AgentSessionLike): { levels: string[]; current?: string } {
  return { levels: [...s.getAvailableThinkingLevels()], current: s.thinkingLevel };
}

/** Sets the level; Pi clamps one the model does not offer to the nearest it does. */
function setThinkingLevel(s: AgentSessionLike, level: string): void {
  if (!isThinkingLevel(level)) throw new Error(`no thinking level "${level}"`);
  s.setThinkingLevel(level);
}

/** `/name title`, as Pi's own command does it. */
function setSessionName(s: AgentSessionLike, name: string): void {
  if (!s.setSessionName) throw new Error('this session cannot be named');
  s.setSessionName(name);
}

/** Writes the session as HTML to `file`; the absolute path written. */
async function exportHtml(s: AgentSessionLike, file: string): Promise<string> {
  // Pi's template inlines some fields unescaped: a crafted session's markup there must become numbers first.
  if (s.sessionManager) return exportSessionHtml({ exportToHtml: (f) => s.exportToHtml(f), sessionManager: s.sessionManager }, file);
  // Always to the path the user chose: Pi's default is relative to the process, not the workspace.
  return path.resolve(await s.exportToHtml(file));
}

/** Writes the session as JSONL to `file`; the absolute path written. */
function exportJsonl(s: AgentSessionLike, file: string): string {
  if (!s.exportToJsonl) throw new Error('this session cannot be exported');
  return path.resolve(s.exportToJsonl(file));
}

/** The text of the last assistant answer, if any. */
function lastAnswer(s: AgentSessionLike): string | undefined {
  return s.getLastAssistantText?.();
}

/** What the open session's commands need: the session, and telling the views its model or level changed. */
export interface SessionRequestTarget {
  /** The live session (opening it on first use), or a rejection saying why there is none. */
  session(): Promise<AgentSessionLike>;
  /** The model or thinking level changed: the header shows it. */
  changed(): void;
}

/** The commands of the table (`COMMANDS`) answered by the open session itself. */
export function sessionRequestCommands(
  target: SessionRequestTarget,
): CommandHandlers<
  | 'listModels'
  | 'setModel'
  | 'pickModel'
  | 'thinkingLevels'
  | 'setThinkingLevel'
  | 'setSessionName'
  | 'exportHtml'
  | 'exportJsonl'
  | 'lastAnswer'
  | 'listCommands'
> {
  const { session, changed } = target;
  return {
    listModels: async () => listModels(await session()),
    setModel: async ({ provider, id }) => {
      await setModel(await session(), provider, id);
      changed();
    },
    pickModel: async ({ model, scope }) => {
      const cut = model.indexOf('/');
      await setModel(await session(), model.slice(0, cut), model.slice(cut + 1), scope === 'default');
      changed();
    },
    thinkingLevels: async () => thinkingLevels(await session()),
    setThinkingLevel: async ({ level }) => {
      setThinkingLevel(await session(), level);
      changed();
    },
    setSessionName: async ({ name }) => setSessionName(await session(), name),
    exportHtml: async ({ file }) => ({ file: await exportHtml(await session(), file) }),
    exportJsonl: async ({ file }) => ({ file: exportJsonl(await session(), file) }),
    lastAnswer: async () => {
      const text = lastAnswer(await session());
      return text ? { text } : {};
    },
    listCommands: async () => ({ commands: listPiCommands(await session()) }),
  };
}
