/** The view's Sessions mode, tree and user-row actions in headless Chromium: what they show and what they ask the host. */

import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { TreeNodeView } from '../../src/shared/sessions.ts';
import { build, exchange } from './builders.ts';
import { page, savedSessions } from './sessionBuilders.ts';
import { deliver, posted, session, useChatPage } from './harness.ts';

async function lastPosted(p: Page, type: string): Promise<Record<string, unknown> | undefined> {
  return (await posted(p)).filter((m) => m.type === type).at(-1);
}

describe('sessions list, tree and rewind in the webview', function () {
  this.timeout(60_000);
  let view: Page;
  useChatPage(async (p) => {
    view = p;
    await deliver(view, { type: 'snapshot', state: build([]), session });
  });

  it('opens the Sessions list from the host, pages it, and marks the open session', async () => {
    await deliver(view, { type: 'showMode', mode: 'sessions' });
    assert.equal(await view.locator('[data-testid="sessions"]').isVisible(), true);
    assert.equal(await view.locator('[data-testid="composer"]').isVisible(), false);
    assert.deepEqual(await lastPosted(view, 'listSessions'), { type: 'listSessions', query: '', offset: 0 });
    const first = savedSessions(50);
    await deliver(view, { type: 'sessions', page: page(first, 0, 120, '', first[1]!.path) });
    assert.equal(await view.locator('[data-testid="sessions"] [data-session-file]').count(), 50);
    assert.equal(await view.locator('[data-session-file][aria-current="true"]').getAttribute('data-session-file'), first[1]!.path);
    assert.equal(await view.locator('[data-session-file]').first().locator('.session-title').textContent(), 'Named session 0');
    assert.equal(await view.locator('[data-session-file]').nth(1).locator('.session-title').textContent(), 'Question 1: refactor module 1');
    assert.match(
      (await view.locator('[data-session-file]').first().locator('.session-meta').textContent()) ?? '',
      /anthropic\/claude-sonnet-4-5 · 12\.3k tokens · \$0\.0405/,
    );
    await view.click('[data-action="more-sessions"]');
    assert.deepEqual(await lastPosted(view, 'listSessions'), { type: 'listSessions', query: '', offset: 50 });
    await deliver(view, { type: 'sessions', page: page(savedSessions(50, 50), 50, 120) });
    assert.equal(await view.locator('[data-session-file]').count(), 100);
    assert.match((await view.locator('[data-action="more-sessions"]').textContent()) ?? '', /20 more/);
  });

  it('marks a session open in another chat with the name of that chat, and asks the host to open it (which shows that chat)', async () => {
    await deliver(view, { type: 'showMode', mode: 'sessions' });
    const list = savedSessions(3);
    await deliver(view, {
      type: 'sessions',
      page: { ...page(list, 0, 3, '', list[0]!.path), openIn: { [list[1]!.path]: 'Chat 2', [list[2]!.path]: 'the sidebar' } },
    });
    const marks = view.locator('[data-testid="session-open-in"]');
    assert.equal(await marks.count(), 2, 'the current session and unmarked ones carry no mark');
    const row = view.locator(`[data-session-file="${list[1]!.path}"]`);
    assert.equal(await row.locator('[data-testid="session-open-in"]').textContent(), 'open in Chat 2');
    assert.equal(await view.locator(`[data-session-file="${list[2]!.path}"] [data-testid="session-open-in"]`).textContent(), 'open in the sidebar');
    assert.match((await row.locator('[data-action="open-session"]').getAttribute('title')) ?? '', /open in Chat 2$/);
    assert.equal(await row.locator('[data-action="open-session"]').isVisible(), true);
    await row.locator('[data-action="open-session"]').click();
    assert.deepEqual(await lastPosted(view, 'openSession'), { type: 'openSession', file: list[1]!.path });
  });

  it('updates the marks in place when another chat opens or leaves a listed session, keeping the focus and the pages shown', async () => {
    await deliver(view, { type: 'showMode', mode: 'sessions' });
    const list = savedSessions(50);
    await deliver(view, { type: 'sessions', page: { ...page(list, 0, 60, '', list[0]!.path), openIn: { [list[1]!.path]: 'Chat 2' } } });
    const more = savedSessions(10, 50);
    await deliver(view, { type: 'sessions', page: page(more, 50, 60) });
    const rename = view.locator(`[data-session-file="${list[1]!.path}"] [data-action="rename-session"]`);
    await rename.focus();
    await deliver(view, { type: 'sessionsOpenIn', openIn: { [more[3]!.path]: 'Chat 3' } });
    assert.equal(await view.locator('[data-session-file]').count(), 60, 'the second page stays');
    assert.equal(await view.locator(`[data-session-file="${list[1]!.path}"] [data-testid="session-open-in"]`).count(), 0);
    assert.equal(await view.locator(`[data-session-file="${more[3]!.path}"] [data-testid="session-open-in"]`).textContent(), 'open in Chat 3');
    assert.match((await view.locator(`[data-session-file="${more[3]!.path}"] [data-action="open-session"]`).getAttribute('title')) ?? '', /open in Chat 3$/);
    assert.equal(
      await view.evaluate(() => {
        const d = (
          globalThis as unknown as {
            document: {
              activeElement: { getAttribute(n: string): string | null; closest(s: string): { getAttribute(n: string): string | null } | null } | null;
            };
          }
        ).document;
        return `${d.activeElement?.getAttribute('data-action')} ${d.activeElement?.closest('[data-session-file]')?.getAttribute('data-session-file')}`;
      }),
      `rename-session ${list[1]!.path}`,
      'the focused button is the same one in the row drawn again',
    );
  });

  it("shows a bidi control in a session's name, and in the chat named by the mark, instead of obeying it", async () => {
    await deliver(view, { type: 'showMode', mode: 'sessions' });
    const list = savedSessions(2).map((s, i) => (i === 1 ? { ...s, name: 'fix \u202Etxt.exe' } : s));
    await deliver(view, { type: 'sessions', page: { ...page(list, 0, 2, '', list[0]!.path), openIn: { [list[1]!.path]: 'evil \u202Egnp' } } });
    const row = view.locator(`[data-session-file="${list[1]!.path}"]`);
    const shown = `${await row.locator('.session-title').textContent()} ${await row.locator('[data-testid="session-open-in"]').textContent()}`;
    assert.ok(!shown.includes('\u202E'), shown);
    assert.match(shown, /^fix .+txt\.exe open in evil .+gnp$/);
  });

  it('searches by text and drops a page that answers an older search', async () => {
    await deliver(view, { type: 'showMode', mode: 'sessions' });
    await view.fill('.sessions-search', 'parser');
    await view.waitForFunction(() =>
      (globalThis as unknown as { __posted: { type: string; query?: string }[] }).__posted.some((m) => m.type === 'listSessions' && m.query === 'parser'),
    );
    await deliver(view, { type: 'sessions', page: page(savedSessions(40), 0, 40, '') });
    assert.equal(await view.locator('[data-session-file]').count(), 0, 'the unfiltered page came too late and was dropped');
    await deliver(view, { type: 'sessions', page: page(savedSessions(2), 0, 2, 'parser') });
    assert.equal(await view.locator('[data-session-file]').count(), 2);
    assert.match((await view.locator('.sessions-summary').first().textContent()) ?? '', /2 sessions matching "parser"/);
  });

  it('asks the host to open, rename and delete a session', async () => {
    await deliver(view, { type: 'showMode', mode: 'sessions' });
    const list = savedSessions(3);
    await deliver(view, { type: 'sessions', page: page(list, 0, 3) });
    const row = view.locator(`[data-session-file="${list[1]!.path}"]`);
    await row.locator('[data-action="rename-session"]').click();
    await view.locator('.session-rename-input').fill('Parser work');
    await view.locator('.session-rename-input').press('Enter');
    assert.deepEqual(await lastPosted(view, 'renameSession'), { type: 'renameSession', file: list[1]!.path, name: 'Parser work' });
    assert.equal(await row.locator('.session-title').textContent(), 'Parser work');
    await row.locator('[data-action="delete-session"]').click();
    assert.deepEqual(await lastPosted(view, 'deleteSession'), { type: 'deleteSession', file: list[1]!.path });
    // Keyboard: the open button takes Enter.
    await row.locator('[data-action="open-session"]').focus();
    await view.keyboard.press('Enter');
    assert.deepEqual(await lastPosted(view, 'openSession'), { type: 'openSession', file: list[1]!.path });
  });

  it('offers Edit and resend and Fork from here on user rows, naming the message by its session entry', async () => {
    await deliver(view, { type: 'snapshot', state: build([...exchange(1), ...exchange(2)]), session });
    const users = view.locator('[data-testid="transcript"] [data-role="user"]');
    assert.equal(await users.count(), 2);
    await users.first().locator('[data-action="edit-resend"]').click();
    assert.deepEqual(await lastPosted(view, 'editResend'), { type: 'editResend', entryId: 'entry1' });
    await users.nth(1).locator('[data-action="fork-here"]').click();
    assert.deepEqual(await lastPosted(view, 'forkHere'), { type: 'forkHere', entryId: 'entry2' });
    // The composer took the old text at once; the host's rewind, landing after the user typed, changes nothing.
    assert.equal(await view.inputValue('[data-testid="composer"]'), 'Question 1: what is in src/1?');
    await view.fill('[data-testid="composer"]', 'an edit');
    await deliver(view, { type: 'setInput', text: 'Question 1: what is in src/1?' });
    assert.equal(await view.inputValue('[data-testid="composer"]'), 'an edit');
  });

  it('shows the tree with every branch and moves to an entry', async () => {
    await view.click('[data-action="show-tree"]');
    assert.deepEqual(await lastPosted(view, 'showTree'), { type: 'showTree' });
    const nodes: TreeNodeView[] = [
      { id: 'a1', depth: 0, kind: 'user', text: 'One', onPath: true, isLeaf: false },
      { id: 'a2', depth: 0, kind: 'assistant', text: 'Answer 1', onPath: true, isLeaf: false },
      { id: 'b1', depth: 1, kind: 'user', text: 'Two', onPath: false, isLeaf: false },
      { id: 'b2', depth: 1, kind: 'assistant', text: 'Answer 2', label: 'first try', onPath: false, isLeaf: false },
      { id: 'c1', depth: 1, kind: 'user', text: 'Two, edited', onPath: true, isLeaf: false },
      { id: 'c2', depth: 1, kind: 'assistant', text: 'Answer 3', onPath: true, isLeaf: true },
    ];
    await deliver(view, { type: 'sessionTree', nodes });
    const items = view.locator('[data-testid="session-tree"] [data-entry-id]');
    assert.equal(await items.count(), 6);
    assert.equal(await view.locator('[data-entry-id="c2"]').getAttribute('aria-current'), 'true');
    assert.equal(await view.locator('[data-entry-id="b2"] .tree-label').textContent(), 'first try');
    await view.locator('[data-entry-id="b2"] button').click();
    assert.deepEqual(await lastPosted(view, 'navigateTree'), { type: 'navigateTree', entryId: 'b2' });
    // The host moved the session (a reset follows): the view asks for the tree again.
    const asked = (await posted(view)).filter((m) => m.type === 'showTree').length;
    await deliver(view, { type: 'batch', events: [{ type: 'reset' }] });
    assert.equal((await posted(view)).filter((m) => m.type === 'showTree').length, asked + 1);
    await view.click('[data-testid="session-tree"] [data-action="back-to-chat"]');
    assert.equal(await view.locator('[data-testid="composer"]').isVisible(), true);
  });

  it('shows the session name, and its totals in the header tooltip', async () => {
    await deliver(view, { type: 'snapshot', state: build([{ type: 'sessionInfo', name: 'Parser work' }]), session });
    await deliver(view, {
      type: 'session',
      session: { ...session, contextPercent: 12, stats: { input: 1200, output: 340, cacheRead: 0, cacheWrite: 0, cost: 0.0123, contextPercent: 12 } },
    });
    assert.equal(await view.locator('.session-name').textContent(), 'Parser work');
    assert.match((await view.locator('.context-usage').getAttribute('title')) ?? '', /1,200 in, 340 out, \$0\.0123, context 12%/);
  });
});
