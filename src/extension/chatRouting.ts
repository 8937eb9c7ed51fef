/** Which chat a command acts on: a chat's view (and the sidebar's title bar) names its own chat in the commands it runs; the palette's act on the focused chat. */

/**
 * The last argument of a command a chat's view runs (its plan buttons, drops, pickers, slash commands): the chat it
 * acts on. Only the panel makes one, so an argument that merely looks like it (a keybinding's) names no chat.
 */
export class FromChat {
  readonly chatId: string;

  constructor(chatId: string) {
    this.chatId = chatId;
  }
}

/** `piPanel.<command>` and its arguments as chat `chatId`'s view runs it: the command's own arguments, then the chat. */
export function commandFromChat(chatId: string, command: string, ...args: unknown[]): [string, ...unknown[]] {
  return [`piPanel.${command}`, ...args, new FromChat(chatId)];
}

/**
 * The chat a command run with `args` acts on: the chat of the view that ran it (none when that chat has closed
 * since: never another in its place), else `focused()` (the palette, a keybinding, a menu).
 */
export function chatFor<C>(args: readonly unknown[], byId: (id: string) => C | undefined, focused: () => C): C | undefined {
  const from = args.find((a): a is FromChat => a instanceof FromChat);
  return from ? byId(from.chatId) : focused();
}

/** Whether `args` name the chat of a view (a view ran the command), rather than leaving it to the focused chat. */
export function namesChat(args: readonly unknown[]): boolean {
  return args.some((a) => a instanceof FromChat);
}

/**
 * The sidebar view's title-bar buttons and the command each runs. VS Code runs a `view/title` button with no
 * arguments, so the palette's command would act on the focused chat (an editor tab's): each button is a command
 * of its own, hidden from the palette, that runs the palette's command naming the sidebar's chat.
 */
const SIDEBAR_TITLE_COMMANDS: Readonly<Record<string, string>> = {
  'piPanel.newSessionInSidebar': 'newSession',
  'piPanel.showSessionsInSidebar': 'showSessions',
  'piPanel.cancelInSidebar': 'cancel',
};

/** The ids of the sidebar's title-bar commands. */
export const sidebarTitleCommands = Object.keys(SIDEBAR_TITLE_COMMANDS);

/** Whether `id` is one of the sidebar's title-bar commands. */
export function isSidebarTitleCommand(id: string): boolean {
  return Object.hasOwn(SIDEBAR_TITLE_COMMANDS, id);
}

/** What the sidebar's title-bar button `id` runs: the palette's command, naming the sidebar chat `sidebarId`. */
export function sidebarTitleCommand(id: string, sidebarId: string): [string, ...unknown[]] {
  if (!isSidebarTitleCommand(id)) throw new Error(`${id} is not a title-bar command of the sidebar`);
  return commandFromChat(sidebarId, SIDEBAR_TITLE_COMMANDS[id]!);
}
