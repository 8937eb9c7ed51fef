/** Apply by merging: the worktree's changes committed on its branch, merged into the workspace's branch; a conflict left in progress, nothing lost on either side. */

import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createWorktree, WorktreeError } from '../../src/extension/worktrees/worktreeGit.ts';
import { mergeWorktree } from '../../src/extension/worktrees/worktreeMerge.ts';
import { git, tempRepo } from '../support/tempRepo.ts';

describe('worktree chats: apply by merging the branch', () => {
  let dir: string;
  let repo: string;
  let folder: string;
  beforeEach(() => {
    ({ dir, repo } = tempRepo('pi-worktree-merge-', { 'a.txt': 'one\ntwo\nthree\n', 'b.txt': 'bee\n' }));
    folder = join(dir, 'worktrees');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const read = (p: string) => readFileSync(p, 'utf8');
  const mergeHead = () => existsSync(join(repo, '.git', 'MERGE_HEAD'));

  it('commits the worktree’s uncommitted changes on its branch, naming the chat, and merges the branch into the current one', async () => {
    const wt = await createWorktree({ dir: repo, folder, carry: false });
    writeFileSync(join(wt.path, 'a.txt'), 'one\nTWO\nthree\n');
    writeFileSync(join(wt.path, 'new.txt'), 'new\n');
    const result = await mergeWorktree(wt, repo, 'Fix the login');
    assert.deepEqual(result, { merged: true, files: ['a.txt', 'new.txt'], conflicts: [] });
    assert.equal(read(join(repo, 'a.txt')), 'one\nTWO\nthree\n');
    assert.equal(read(join(repo, 'new.txt')), 'new\n');
    assert.equal(git(repo, 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'main');
    assert.equal(git(repo, 'status', '--porcelain'), '');
    assert.match(git(repo, 'log', '-1', '--format=%s', 'pi/1'), /Fix the login/);
    assert.equal(git(wt.path, 'status', '--porcelain'), '');
    // The branch is in main's history: merged, not copied.
    git(repo, 'merge-base', '--is-ancestor', 'pi/1', 'main');
  });

  it('merges with the user’s own commits on the current branch', async () => {
    const wt = await createWorktree({ dir: repo, folder, carry: false });
    writeFileSync(join(wt.path, 'a.txt'), 'one\ntwo\nTHREE\n');
    writeFileSync(join(repo, 'a.txt'), 'ONE\ntwo\nthree\n');
    git(repo, 'commit', '-qam', 'mine');
    const result = await mergeWorktree(wt, repo, 'Chat 1');
    assert.equal(result.merged, true);
    assert.equal(read(join(repo, 'a.txt')), 'ONE\ntwo\nTHREE\n');
  });

  it('on a conflict leaves the merge in progress, names the conflicting files, and loses neither side', async () => {
    const wt = await createWorktree({ dir: repo, folder, carry: false });
    writeFileSync(join(wt.path, 'a.txt'), 'one\ntheirs\nthree\n');
    writeFileSync(join(wt.path, 'b.txt'), 'bee too\n');
    writeFileSync(join(repo, 'a.txt'), 'one\nours\nthree\n');
    git(repo, 'commit', '-qam', 'mine');
    const result = await mergeWorktree(wt, repo, 'Chat 1');
    assert.deepEqual(result, { merged: false, files: ['a.txt', 'b.txt'], conflicts: ['a.txt'] });
    assert.ok(mergeHead(), 'the merge is still in progress');
    assert.match(read(join(repo, 'a.txt')), /<<<<<<<[^]*ours[^]*=======[^]*theirs[^]*>>>>>>>/);
    assert.equal(read(join(repo, 'b.txt')), 'bee too\n');
    // Both sides are still there: the worktree's commit on its branch, the user's on theirs.
    assert.equal(git(repo, 'show', 'pi/1:a.txt'), 'one\ntheirs\nthree\n');
    git(repo, 'merge', '--abort');
    assert.equal(read(join(repo, 'a.txt')), 'one\nours\nthree\n');
  });

  it('refuses, changing nothing in the workspace, when its uncommitted changes would be overwritten', async () => {
    const wt = await createWorktree({ dir: repo, folder, carry: false });
    writeFileSync(join(wt.path, 'a.txt'), 'one\ntheirs\nthree\n');
    writeFileSync(join(repo, 'a.txt'), 'one\nmine, not committed\nthree\n');
    await assert.rejects(
      mergeWorktree(wt, repo, 'Chat 1'),
      (err: unknown) => err instanceof WorktreeError && err.code === 'dirty' && /a\.txt/.test(err.message),
    );
    assert.equal(read(join(repo, 'a.txt')), 'one\nmine, not committed\nthree\n');
    assert.ok(!mergeHead());
    // The worktree's work is safe on its branch.
    assert.equal(git(repo, 'show', 'pi/1:a.txt'), 'one\ntheirs\nthree\n');
  });

  it('refuses while the workspace is already in the middle of a merge', async () => {
    const wt = await createWorktree({ dir: repo, folder, carry: false });
    writeFileSync(join(wt.path, 'b.txt'), 'bee too\n');
    git(repo, 'checkout', '-q', '-b', 'side');
    writeFileSync(join(repo, 'a.txt'), 'side\n');
    git(repo, 'commit', '-qam', 'side');
    git(repo, 'checkout', '-q', 'main');
    writeFileSync(join(repo, 'a.txt'), 'main\n');
    git(repo, 'commit', '-qam', 'main');
    try {
      git(repo, 'merge', '-q', 'side');
    } catch {
      // The conflict this test needs.
    }
    await assert.rejects(mergeWorktree(wt, repo, 'Chat 1'), (err: unknown) => err instanceof WorktreeError && err.code === 'busy');
  });

  it('refuses before committing anything when git does not know who the user is', async () => {
    const wt = await createWorktree({ dir: repo, folder, carry: false });
    writeFileSync(join(wt.path, 'b.txt'), 'bee too\n');
    git(repo, 'config', '--unset', 'user.name');
    git(repo, 'config', '--unset', 'user.email');
    // No global or system identity either: a home without a .gitconfig.
    const home = join(dir, 'home');
    mkdirSync(home);
    const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
    process.env.HOME = home;
    process.env.XDG_CONFIG_HOME = home;
    try {
      await assert.rejects(
        mergeWorktree(wt, repo, 'Chat 1'),
        (err: unknown) => err instanceof WorktreeError && err.code === 'noIdentity' && /user\.name/.test(err.message),
      );
    } finally {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
    assert.equal(git(wt.path, 'status', '--porcelain'), ' M b.txt\n');
    assert.equal(git(repo, 'log', '--oneline', 'pi/1').trim().split('\n').length, 1);
  });

  it('says when the worktree has nothing to merge', async () => {
    const wt = await createWorktree({ dir: repo, folder, carry: false });
    assert.deepEqual(await mergeWorktree(wt, repo, 'Chat 1'), { merged: false, files: [], conflicts: [] });
    assert.equal(git(repo, 'log', '--oneline').trim().split('\n').length, 1);
  });
});
