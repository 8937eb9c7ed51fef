/** Worktree chats running without a tab: the workspace state marks them, and a window reload brings back exactly those. */

import { strict as assert } from 'node:assert';
import { backgroundChats, keptChats, markBackground } from '../../src/extension/worktrees/backgroundChats.ts';

describe('worktree chats: background chats across a reload', () => {
  const worktree = { path: '/tmp/wt/repo-pi-1', branch: 'pi/1', base: 'abc123', repo: '/work/repo' };
  const other = { ...worktree, path: '/tmp/wt/repo-pi-2', branch: 'pi/2' };
  const there = (p: string) => p === worktree.path;

  it('brings back a worktree chat whose tab was closed while it ran, with its session and branch', () => {
    const kept = markBackground({ k1: { sessionFile: '/s/one.jsonl', worktree } }, 'k1', true);
    assert.deepEqual(backgroundChats(kept, there).restore, [{ key: 'k1', sessionFile: '/s/one.jsonl', worktree }]);
  });

  it('leaves chats that still have a tab to their tab (VS Code restores those)', () => {
    const kept = { k1: { sessionFile: '/s/one.jsonl', worktree }, k2: { sessionFile: '/s/two.jsonl' } };
    assert.deepEqual(backgroundChats(kept, there), { restore: [], gone: [] });
  });

  it('reports a background chat whose worktree folder is gone instead of restoring it in the workspace', () => {
    const kept = markBackground({ k2: { sessionFile: '/s/two.jsonl', worktree: other } }, 'k2', true);
    assert.deepEqual(backgroundChats(kept, there), { restore: [], gone: [{ key: 'k2', worktree: other }] });
  });

  it('forgets the mark once the chat has a tab again, keeping its session and worktree', () => {
    const kept = markBackground(markBackground({ k1: { sessionFile: '/s/one.jsonl', worktree } }, 'k1', true), 'k1', false);
    assert.deepEqual(kept, { k1: { sessionFile: '/s/one.jsonl', worktree } });
    assert.deepEqual(backgroundChats(kept, there).restore, []);
  });

  it('marks only a chat the state knows', () => {
    assert.deepEqual(markBackground({}, 'k9', true), {});
  });

  it('reads only well-formed entries from the workspace state (it is only JSON)', () => {
    const raw = {
      k1: { sessionFile: '/s/one.jsonl', worktree, background: true },
      'bad key!': { worktree, background: true },
      k3: { worktree: { ...worktree, branch: 7 }, background: true },
      k4: 'nonsense',
      k5: { sessionFile: 5, worktree, background: 'yes' },
    };
    assert.deepEqual(keptChats(raw), {
      k1: { sessionFile: '/s/one.jsonl', worktree, background: true },
      k3: {},
      k5: { worktree },
    });
    for (const bad of [undefined, null, 'x', 3]) assert.deepEqual(keptChats(bad), {});
  });
});
