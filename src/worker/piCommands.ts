/** Pi's slash commands as its RPC mode lists them (`get_commands`): extension commands, prompt templates, skills. */

import type { SlashCommand } from '../shared/slashCommands.ts';
import type { AgentSessionLike } from './agentSession.ts';

/** Longest description the menu shows. */
const MAX_DESCRIPTION = 300;

export function listPiCommands(session: AgentSessionLike): SlashCommand[] {
  const out: SlashCommand[] = [];
  const add = (name: string, description: string | undefined, source: SlashCommand['source']) =>
    out.push({ name, source, ...(description ? { description: description.slice(0, MAX_DESCRIPTION) } : {}) });
  for (const c of session.extensionRunner?.getRegisteredCommands() ?? []) add(c.invocationName, c.description, 'extension');
  for (const t of session.promptTemplates ?? []) add(t.name, t.description, 'prompt');
  for (const k of session.resourceLoader?.getSkills().skills ?? []) add(`skill:${k.name}`, k.description, 'skill');
  return out;
}
