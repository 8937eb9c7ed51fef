/** A worktree chat's worktree read back from the workspace state: used only when every field is there. */

import { strict as assert } from 'node:assert';
import { keptWorktree } from '../../src/extension/worktrees/keptWorktree.ts';

describe('worktree chats: the kept worktree', () => {
  const info = { path: '/tmp/wt/repo-pi-1', branch: 'pi/1', base: 'abc123', repo: '/work/repo' };

  it('gives back a worktree whose fields are all non-empty strings', () => {
    assert.deepEqual(keptWorktree({ ...info, extra: 1 }), info);
  });

  it('refuses a missing, empty or wrongly typed field, and what is not an object', () => {
    for (const bad of [undefined, null, 'pi/1', { ...info, path: '' }, { ...info, branch: 3 }, { path: info.path, branch: info.branch, base: info.base }])
      assert.equal(keptWorktree(bad), undefined, JSON.stringify(bad));
  });
});
