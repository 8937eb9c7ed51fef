/** Which chat a command acts on: a chat's view names its own chat in the commands it runs; the palette's act on the focused chat. */

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
