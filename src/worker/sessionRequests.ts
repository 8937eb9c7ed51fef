/** Requests the main thread makes of the open session itself: its model, thinking level, name and exports. */

import * as path from 'node:path';
import type { ModelChoice } from '../shared/wire/workerProtocol.ts';
import type { AgentSessionLike, ThinkingLevel } from './agentSession.ts';
import { exportSessionHtml } from './sessionFiles.ts';

/** Every thinking level Pi knows: a level Pi adds is a compile error here until it is listed. */
const THINKING_LEVELS: Readonly<Record<ThinkingLevel, true>> = { off: true, minimal: true, low: true, medium: true, high: true, xhigh: true, max: true };

function isThinkingLevel(level: string): level is ThinkingLevel {
  return Object.hasOwn(THINKING_LEVELS, level);
}

/** The models with credentials, and the session's. */
export async function listModels(s: AgentSessionLike): Promise<{ models: ModelChoice[]; current?: string }> {
  const models = (await s.modelRuntime.getAvailable()).map((m) => ({ provider: m.provider, id: m.id, name: m.name }));
  return { models, current: s.model ? `${s.model.provider}/${s.model.id}` : undefined };
}

/** Switches the session to a model with credentials; throws when there is none such. */
export async function setModel(s: AgentSessionLike, provider: string, id: string, persist = false): Promise<void> {
  const model = (await s.modelRuntime.getAvailable()).find((m) => m.provider === provider && m.id === id);
  if (!model) throw new Error(`no model ${provider}/${id} with credentials`);
  // `persist`: also Pi's default for new sessions (settings.json), as Ctrl+S in Pi's own picker.
  await s.setModel(model, persist ? { persist: true } : {});
}

/** The levels the session's model offers, and the session's. */
export function thinkingLevels(s: AgentSessionLike): { levels: string[]; current?: string } {
  return { levels: [...s.getAvailableThinkingLevels()], current: s.thinkingLevel };
}

/** Sets the level; Pi clamps one the model does not offer to the nearest it does. */
export function setThinkingLevel(s: AgentSessionLike, level: string): void {
  if (!isThinkingLevel(level)) throw new Error(`no thinking level "${level}"`);
  s.setThinkingLevel(level);
}

/** `/name title`, as Pi's own command does it. */
export function setSessionName(s: AgentSessionLike, name: string): void {
  if (!s.setSessionName) throw new Error('this session cannot be named');
  s.setSessionName(name);
}

/** Writes the session as HTML to `file`; the absolute path written. */
export async function exportHtml(s: AgentSessionLike, file: string): Promise<string> {
  // Pi's template inlines some fields unescaped: a crafted session's markup there must become numbers first.
  if (s.sessionManager) return exportSessionHtml({ exportToHtml: (f) => s.exportToHtml(f), sessionManager: s.sessionManager }, file);
  // Always to the path the user chose: Pi's default is relative to the process, not the workspace.
  return path.resolve(await s.exportToHtml(file));
}

/** Writes the session as JSONL to `file`; the absolute path written. */
export function exportJsonl(s: AgentSessionLike, file: string): string {
  if (!s.exportToJsonl) throw new Error('this session cannot be exported');
  return path.resolve(s.exportToJsonl(file));
}

/** The text of the last assistant answer, if any. */
export function lastAnswer(s: AgentSessionLike): string | undefined {
  return s.getLastAssistantText?.();
}
