/** "Edit and resend" in headless Chromium: what the composer holds and sends, whenever the rewind's reply comes. */

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { build, exchange } from './builders.ts';
import { deliver, posted, session, useChatPage } from './harness.ts';

const composer = '[data-testid="composer"]';
const first = 'Question 1: what is in src/1?';

async function sent(p: Page): Promise<unknown[]> {
  return (await posted(p)).filter((m) => m.type === 'send').map((m) => m.text);
}

describe('Edit and resend in the webview', function () {
  this.timeout(60_000);
  let view: Page;
  useChatPage(async (p) => {
    view = p;
    await deliver(view, { type: 'snapshot', state: build([...exchange(1), ...exchange(2)]), session });
  });

  it('puts the message in the composer at once, replacing the draft, and asks the host to rewind', async () => {
    await view.fill(composer, 'a draft');
    await view.locator('[data-role="user"] [data-action="edit-resend"]').first().click();
    assert.equal(await view.inputValue(composer), first);
    assert.deepEqual(
      (await posted(view)).filter((m) => m.type === 'editResend'),
      [{ type: 'editResend', entryId: 'entry1' }],
    );
  });

  it('offers no action on a message Pi has not written yet, and names it by its entry once Pi has', async () => {
    const rowId = 1000;
    await deliver(view, { type: 'batch', events: [{ type: 'userMessage', text: 'Being sent', images: 0, rowId }] });
    const row = view.locator(`[data-msg-id="${rowId}"]`);
    for (const action of ['edit-resend', 'fork-here', 'restore']) assert.equal(await row.locator(`[data-action="${action}"]`).isDisabled(), true, action);
    await row.locator('[data-action="edit-resend"]').dispatchEvent('click');
    assert.deepEqual(
      (await posted(view)).filter((m) => m.type === 'editResend'),
      [],
      'nothing is guessed for it',
    );
    await deliver(view, { type: 'batch', events: [{ type: 'userEntry', rowId, entryId: 'entry3' }] });
    await row.locator('[data-action="fork-here"]').click();
    assert.deepEqual(
      (await posted(view)).filter((m) => m.type === 'forkHere'),
      [{ type: 'forkHere', entryId: 'entry3' }],
    );
  });

  it('sends the text edited before the rewind landed, and the late rewind puts nothing back', async () => {
    await view.locator('[data-role="user"] [data-action="edit-resend"]').first().click();
    // The rewind's reply is held: the user edits and sends first.
    await view.fill(composer, 'Question 1, edited');
    await view.press(composer, 'Enter');
    assert.deepEqual(await sent(view), ['Question 1, edited']);
    await deliver(view, { type: 'batch', events: [{ type: 'reset' }] });
    await deliver(view, { type: 'setInput', text: first });
    assert.equal(await view.inputValue(composer), '', 'the message was sent: the composer stays empty');
  });

  it('keeps what the user typed when the rewind lands between typing and Send, and sends that', async () => {
    await view.locator('[data-role="user"] [data-action="edit-resend"]').first().click();
    await view.fill(composer, 'Question 1, edited');
    await deliver(view, { type: 'setInput', text: first });
    assert.equal(await view.inputValue(composer), 'Question 1, edited');
    await view.press(composer, 'Enter');
    assert.deepEqual(await sent(view), ['Question 1, edited']);
  });

  it('still fills the composer from a tree move or an extension after the rewind was answered', async () => {
    await view.locator('[data-role="user"] [data-action="edit-resend"]').first().click();
    await deliver(view, { type: 'setInput', text: first });
    await view.fill(composer, 'typed');
    await deliver(view, { type: 'setInput', text: first });
    assert.equal(await view.inputValue(composer), first);
  });
});
