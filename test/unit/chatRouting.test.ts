/** A command a chat's view runs (its plan buttons, drops, pickers, slash commands) acts on that view's chat; a palette command acts on the focused one. */

import { strict as assert } from 'node:assert';
import { chatFor, commandFromChat, FromChat } from '../../src/extension/chatRouting.ts';

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
