/** The webview's one map of `data-action` names: the values outside checks click on, and the group test its routers use. */

import { strict as assert } from 'node:assert';
import { Action, ComposerAction, ConversationAction, HeaderAction, isActionOf, SessionsAction, TreeAction } from '../../src/webview/actions.ts';

describe('webview data-action map', () => {
  it('keeps the data-action values e2e cases click, in the conversation router', () => {
    for (const value of ['open-file', 'open-diff', 'undo-file', 'undo-all', 'edit-resend', 'fork-here']) {
      assert.ok(isActionOf(ConversationAction, value), `${value} is not a conversation action`);
    }
  });

  it('gives a value one name in every group that declares it', () => {
    const names = new Map<string, string>();
    for (const group of [ConversationAction, HeaderAction, ComposerAction, SessionsAction, TreeAction, Action]) {
      for (const [name, value] of Object.entries(group)) {
        assert.equal(names.get(value) ?? name, name, `${value} is called ${names.get(value)} and ${name}`);
        names.set(value, name);
      }
    }
  });

  it("tells a group's actions from another group's, from unknown ones and from prototype names", () => {
    assert.ok(isActionOf(HeaderAction, 'show-tree'));
    assert.ok(!isActionOf(HeaderAction, 'open-file'));
    assert.ok(!isActionOf(ConversationAction, 'open-fil'));
    assert.ok(!isActionOf(ConversationAction, 'constructor'));
    assert.ok(!isActionOf(ConversationAction, null));
    assert.ok(!isActionOf(ConversationAction, undefined));
  });
});
