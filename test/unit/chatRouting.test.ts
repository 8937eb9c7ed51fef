/** A command a chat's view runs (its plan buttons, drops, pickers, slash commands, the sidebar's title-bar buttons) acts on that view's chat; a palette command acts on the focused one. */

import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { chatFor, commandFromChat, FromChat, isSidebarTitleCommand, namesChat, sidebarTitleCommand } from '../../src/extension/chatRouting.ts';

class FakeChats {
  readonly chats = new Map(['sidebar', 'editor-1', 'editor-2'].map((id) => [id, { id }]));
  focused = this.chats.get('editor-1')!;
  readonly byId = (id: string) => this.chats.get(id);
  readonly focus = () => this.focused;
}

describe('chat routing: which chat a command acts on', () => {
  it('acts on the chat of the view that ran it, not the focused chat', () => {
    const chats = new FakeChats();
    for (const [command, extra] of [
      ['actOnPlan', []],
      ['togglePlanMode', []],
      ['openPlan', []],
      ['selectModel', []],
      ['addFile', []],
      ['addDropped', [['file:///w/a.ts']]],
      ['exportJsonl', []],
      ['importSession', []],
      ['copyLastAnswer', []],
      ['renameSession', []],
      ['showSessions', []],
    ] as const) {
      const [id, ...args] = commandFromChat('editor-2', command, ...extra);
      assert.equal(id, `piPanel.${command}`);
      assert.deepEqual(args.slice(0, extra.length), extra, 'the command keeps its own arguments first');
      assert.equal(chatFor(args, chats.byId, chats.focus)?.id, 'editor-2', command);
    }
    assert.equal(chatFor(commandFromChat('sidebar', 'actOnPlan').slice(1), chats.byId, chats.focus)?.id, 'sidebar');
  });

  it('acts on the focused chat when run from the palette, a keybinding or a menu (no view named)', () => {
    const chats = new FakeChats();
    assert.equal(chatFor([], chats.byId, chats.focus)?.id, 'editor-1');
    assert.equal(chatFor([{ chatId: 'editor-2' }, 'editor-2'], chats.byId, chats.focus)?.id, 'editor-1', 'a look-alike argument names no view');
  });

  it('acts on no chat when the view that ran it has closed since, rather than on another', () => {
    const chats = new FakeChats();
    assert.equal(chatFor([new FromChat('editor-3')], chats.byId, chats.focus), undefined);
  });
});

interface MenuEntry {
  readonly command: string;
  readonly when?: string;
}

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  contributes: { commands: { command: string; title: string }[]; menus: Record<string, MenuEntry[]> };
};
const nls = ['package.nls.json', 'package.nls.zh-cn.json', 'package.nls.vi.json'].map(
  (f) => [f, JSON.parse(readFileSync(new URL(`../../${f}`, import.meta.url), 'utf8')) as Record<string, string>] as const,
);
/**
 * Commands that act on the sidebar chat whatever has focus (Open in Editor moves the sidebar's session to a tab),
 * or on no chat at all (a new worktree chat, the list of chats, leftover worktrees): palette commands too.
 */
const SIDEBAR_ONLY = new Set(['piPanel.openInEditor', 'piPanel.newChatInWorktree', 'piPanel.showChats', 'piPanel.cleanUpWorktrees']);

describe("the sidebar view's title-bar buttons", () => {
  const buttons = manifest.contributes.menus['view/title']!.filter((m) => /\bview == piPanel\.chat\b/.test(m.when ?? ''));

  it('act on the sidebar chat while an editor chat has focus (VS Code passes them no arguments)', () => {
    const chats = new FakeChats();
    assert.ok(buttons.length >= 3, 'New Session, Sessions and Cancel at least');
    for (const { command } of buttons) {
      if (SIDEBAR_ONLY.has(command)) continue;
      assert.ok(isSidebarTitleCommand(command), `${command} is a sidebar title-bar command`);
      const [run, ...args] = sidebarTitleCommand(command, 'sidebar');
      assert.ok(
        manifest.contributes.commands.some((c) => c.command === run),
        `${command} runs the declared ${run}`,
      );
      assert.ok(namesChat(args), command);
      assert.equal(chatFor(args, chats.byId, chats.focus)?.id, 'sidebar', command);
    }
  });

  it('are hidden from the palette and titled in every language', () => {
    const palette = manifest.contributes.menus.commandPalette ?? [];
    for (const { command } of buttons) {
      if (SIDEBAR_ONLY.has(command)) continue;
      assert.ok(
        palette.some((m) => m.command === command && m.when === 'false'),
        `${command} is not in the palette`,
      );
      const title = manifest.contributes.commands.find((c) => c.command === command)?.title ?? '';
      const key = /^%(.+)%$/.exec(title)?.[1];
      assert.ok(key, `${command} has a localized title`);
      for (const [file, strings] of nls) assert.ok(strings[key], `${key} in ${file}`);
    }
  });

  it('a palette command run without a view names no chat, so Cancel still picks the running one', () => {
    assert.equal(namesChat([]), false);
    assert.equal(namesChat([{ chatId: 'sidebar' }]), false);
    assert.equal(namesChat(commandFromChat('editor-2', 'cancel').slice(1)), true);
  });

  it('leaves editor tabs no title-bar button that would act on the focused chat', () => {
    const editorButtons = (manifest.contributes.menus['editor/title'] ?? []).filter((m) => /piPanel/.test(`${m.command} ${m.when ?? ''}`));
    assert.deepEqual(editorButtons, []);
  });
});
