/** Slash commands in the composer: the panel's own built-ins, and the shape of the commands Pi lists (extension commands, prompt templates, skills). */

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
export const BUILTIN_COMMANDS = [
  { name: 'new', description: 'Start a new session', source: 'builtin' },
  { name: 'resume', description: 'Resume a saved session', source: 'builtin' },
  { name: 'compact', description: 'Compact the conversation, with optional instructions', source: 'builtin', args: '[instructions]' },
  { name: 'model', description: 'Select the model', source: 'builtin' },
  { name: 'thinking', description: 'Set the thinking level', source: 'builtin', args: '[level]' },
  { name: 'name', description: 'Name this session', source: 'builtin', args: '<title>' },
  { name: 'export', description: 'Export the transcript to HTML', source: 'builtin' },
  { name: 'copy', description: 'Copy the last answer to the clipboard', source: 'builtin' },
  { name: 'plan', description: 'Toggle plan mode (Pi only reads and proposes a plan), or plan what follows', source: 'builtin', args: '[task]' },
] as const satisfies readonly SlashCommand[];

export type BuiltinName = (typeof BUILTIN_COMMANDS)[number]['name'];

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
