/** Slash commands in the composer: the panel's own built-ins, and the shape of the commands Pi lists (extension commands, prompt templates, skills). */

import { assertNever } from './exhaustive.ts';
import { t } from './l10n.ts';

export type SlashSource = 'builtin' | 'extension' | 'prompt' | 'skill';

export interface SlashCommand {
  /** Without the `/`. */
  readonly name: string;
  readonly description?: string;
  readonly source: SlashSource;
  /** What follows the name, when the command takes an argument (`<title>`). */
  readonly args?: string;
}

/** The panel's own commands, mapped to its actions; anything else after `/` goes to Pi, which expands or runs it. */
const BUILTIN_COMMANDS = [
  { name: 'new', source: 'builtin' },
  { name: 'resume', source: 'builtin' },
  { name: 'compact', source: 'builtin', args: '[instructions]' },
  { name: 'model', source: 'builtin' },
  { name: 'thinking', source: 'builtin', args: '[level]' },
  { name: 'name', source: 'builtin', args: '<title>' },
  { name: 'export', source: 'builtin' },
  { name: 'copy', source: 'builtin' },
  { name: 'plan', source: 'builtin', args: '[task]' },
] as const satisfies readonly SlashCommand[];

export type BuiltinName = (typeof BUILTIN_COMMANDS)[number]['name'];

/** What a built-in command does, in the display language (read when the menu is built, after the bundle is set). */
function builtinDescription(name: BuiltinName): string {
  switch (name) {
    case 'new':
      return t('Start a new session');
    case 'resume':
      return t('Resume a saved session');
    case 'compact':
      return t('Compact the conversation, with optional instructions');
    case 'model':
      return t('Select the model');
    case 'thinking':
      return t('Set the thinking level');
    case 'name':
      return t('Name this session');
    case 'export':
      return t('Export the transcript to HTML');
    case 'copy':
      return t('Copy the last answer to the clipboard');
    case 'plan':
      return t('Toggle plan mode (Pi only reads and proposes a plan), or plan what follows');
    default:
      return assertNever(name);
  }
}

/** The built-in commands as the slash menu lists them, each with its description. */
export function builtinCommands(): SlashCommand[] {
  return BUILTIN_COMMANDS.map((c) => ({ ...c, description: builtinDescription(c.name) }));
}

const BUILTIN_NAMES: ReadonlySet<string> = new Set(BUILTIN_COMMANDS.map((c) => c.name));

export function isBuiltin(name: string): name is BuiltinName {
  return BUILTIN_NAMES.has(name);
}

/** `/name rest` split into the name and its argument text; undefined when `text` is not a slash command. */
export function parseSlash(text: string): { readonly name: string; readonly args: string } | undefined {
  const m = /^\/([^\s/][^\s]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  return m ? { name: m[1]!, args: (m[2] ?? '').trim() } : undefined;
}

/** The commands whose name starts with `query` first, then those that contain it; built-ins before Pi's within each. */
export function filterCommands(commands: readonly SlashCommand[], query: string): SlashCommand[] {
  const q = query.toLowerCase();
  const starts = commands.filter((c) => c.name.toLowerCase().startsWith(q));
  const contains = commands.filter((c) => !c.name.toLowerCase().startsWith(q) && c.name.toLowerCase().includes(q));
  return [...starts, ...contains];
}
