/** Worktree chats' git: a worktree on a new branch outside the workspace, Apply as uncommitted changes (nothing written on a conflict), Discard, and clear refusals. */

import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  applyWorktree,
  createWorktree,
  inspectRepo,
  isDirty,
  listWorktrees,
  removeWorktree,
  worktreeChanges,
  WorktreeError,
} from '../../src/extension/worktrees/worktreeGit.ts';
import { git, tempRepo } from '../support/tempRepo.ts';

describe('worktree chats: git', () => {
  let dir: string;
  let repo: string;
  let folder: string;
  beforeEach(() => {
    ({ dir, repo } = tempRepo('pi-worktree-', { 'a.txt': 'one\ntwo\nthree\n', 'b.txt': 'bee\n' }));
    folder = join(dir, 'worktrees');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const read = (p: string) => readFileSync(p, 'utf8');
  const code = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (err) {
      if (err instanceof WorktreeError) return err.code;
      throw err;
    }
    return 'no error';
  };

  it('creates a worktree on a new branch pi/1 from HEAD outside the workspace, then pi/2 for the next', async () => {
    const first = await createWorktree({ dir: repo, folder, carry: false });
    assert.equal(first.branch, 'pi/1');
    assert.ok(first.path.startsWith(folder));
    assert.equal(read(join(first.path, 'a.txt')), 'one\ntwo\nthree\n');
    assert.equal(git(first.path, 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'pi/1');
    assert.equal(first.base, git(repo, 'rev-parse', 'HEAD').trim());
    const second = await createWorktree({ dir: repo, folder, carry: false });
    assert.equal(second.branch, 'pi/2');
    assert.notEqual(second.path, first.path);
    assert.deepEqual(
      (await listWorktrees(repo)).map((w) => w.branch),
      ['pi/1', 'pi/2'],
    );
  });

  it('carries uncommitted and untracked changes into the worktree only when asked, leaving the workspace as it was', async () => {
    writeFileSync(join(repo, 'a.txt'), 'one\nTWO\nthree\n');
    writeFileSync(join(repo, 'new.txt'), 'fresh\n');
    assert.equal(await isDirty(repo), true);
    const plain = await createWorktree({ dir: repo, folder, carry: false });
    assert.equal(read(join(plain.path, 'a.txt')), 'one\ntwo\nthree\n');
    assert.equal(existsSync(join(plain.path, 'new.txt')), false);
    const carried = await createWorktree({ dir: repo, folder, carry: true });
    assert.equal(read(join(carried.path, 'a.txt')), 'one\nTWO\nthree\n');
    assert.equal(read(join(carried.path, 'new.txt')), 'fresh\n');
    assert.equal(read(join(repo, 'a.txt')), 'one\nTWO\nthree\n');
    assert.equal(git(repo, 'status', '--porcelain'), ' M a.txt\n?? new.txt\n');
  });

  it('applies committed and uncommitted worktree changes to the workspace as uncommitted changes', async () => {
    const wt = await createWorktree({ dir: repo, folder, carry: false });
    writeFileSync(join(wt.path, 'a.txt'), 'one\ntwo\nthree\nfour\n');
    git(wt.path, 'commit', '-qam', 'four');
    writeFileSync(join(wt.path, 'c.txt'), 'sea\n');
    rmSync(join(wt.path, 'b.txt'));
    assert.deepEqual(
      (await worktreeChanges(wt)).map((c) => `${c.status} ${c.path}`),
      ['M a.txt', 'D b.txt', 'A c.txt'],
    );
    const result = await applyWorktree(wt, repo);
    assert.deepEqual(result, { applied: ['a.txt', 'b.txt', 'c.txt'], conflicts: [] });
    assert.equal(read(join(repo, 'a.txt')), 'one\ntwo\nthree\nfour\n');
    assert.equal(existsSync(join(repo, 'b.txt')), false);
    assert.equal(read(join(repo, 'c.txt')), 'sea\n');
    assert.equal(git(repo, 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'main');
    assert.equal(git(repo, 'log', '--oneline').trim().split('\n').length, 1);
  });

  it('merges with the user’s own edits to other lines of the same file', async () => {
    const wt = await createWorktree({ dir: repo, folder, carry: false });
    writeFileSync(join(wt.path, 'a.txt'), 'one\ntwo\nthree\nfour\n');
    writeFileSync(join(repo, 'a.txt'), 'ONE\ntwo\nthree\n');
    assert.deepEqual(await applyWorktree(wt, repo), { applied: ['a.txt'], conflicts: [] });
    assert.equal(read(join(repo, 'a.txt')), 'ONE\ntwo\nthree\nfour\n');
  });

  it('on a conflict names exactly the conflicting files and writes nothing on either side', async () => {
    const one = await createWorktree({ dir: repo, folder, carry: false });
    const two = await createWorktree({ dir: repo, folder, carry: false });
    writeFileSync(join(one.path, 'a.txt'), 'one\nfirst\nthree\n');
    writeFileSync(join(two.path, 'a.txt'), 'one\nsecond\nthree\n');
    writeFileSync(join(two.path, 'c.txt'), 'sea\n');
    assert.deepEqual(await applyWorktree(one, repo), { applied: ['a.txt'], conflicts: [] });
    assert.deepEqual(await applyWorktree(two, repo), { applied: [], conflicts: ['a.txt'] });
    assert.equal(read(join(repo, 'a.txt')), 'one\nfirst\nthree\n');
    assert.equal(existsSync(join(repo, 'c.txt')), false);
    assert.equal(read(join(two.path, 'a.txt')), 'one\nsecond\nthree\n');
    assert.equal(read(join(two.path, 'c.txt')), 'sea\n');
  });

  it('applying the same worktree twice changes nothing the second time', async () => {
    const wt = await createWorktree({ dir: repo, folder, carry: false });
    writeFileSync(join(wt.path, 'b.txt'), 'buzz\n');
    await applyWorktree(wt, repo);
    assert.deepEqual(await applyWorktree(wt, repo), { applied: [], conflicts: [] });
    assert.equal(read(join(repo, 'b.txt')), 'buzz\n');
  });

  it('discards a worktree: its folder and its branch are gone, the workspace untouched', async () => {
    const wt = await createWorktree({ dir: repo, folder, carry: false });
    writeFileSync(join(wt.path, 'a.txt'), 'changed\n');
    await removeWorktree(wt);
    assert.equal(existsSync(wt.path), false);
    assert.equal(git(repo, 'branch', '--list', 'pi/1').trim(), '');
    assert.equal(read(join(repo, 'a.txt')), 'one\ntwo\nthree\n');
    assert.deepEqual(await listWorktrees(repo), []);
  });

  it('discards a worktree whose folder was deleted by hand, and says when applying one', async () => {
    const wt = await createWorktree({ dir: repo, folder, carry: false });
    rmSync(wt.path, { recursive: true, force: true });
    assert.equal(await code(applyWorktree(wt, repo)), 'missing');
    await removeWorktree(wt);
    assert.equal(git(repo, 'branch', '--list', 'pi/1').trim(), '');
  });

  it('refuses a folder that is not a repository, a bare repository, a detached HEAD and a repository without commits', async () => {
    const plain = join(dir, 'plain');
    mkdirSync(plain);
    assert.equal(await code(inspectRepo(plain)), 'notRepo');
    const bare = join(dir, 'bare.git');
    git(dir, 'init', '-q', '--bare', bare);
    assert.equal(await code(inspectRepo(bare)), 'bare');
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    git(empty, 'init', '-q');
    assert.equal(await code(inspectRepo(empty)), 'noCommit');
    git(repo, 'checkout', '-q', '--detach');
    assert.equal(await code(createWorktree({ dir: repo, folder, carry: false })), 'detached');
    assert.deepEqual(await listWorktrees(repo), []);
  });

  it('says git is missing when it cannot be started', async () => {
    assert.equal(await code(inspectRepo(repo, { gitPath: join(dir, 'no-such-git') })), 'noGit');
  });

  it('skips a branch name that is taken', async () => {
    git(repo, 'branch', 'pi/1');
    const wt = await createWorktree({ dir: repo, folder, carry: false });
    assert.equal(wt.branch, 'pi/2');
  });
});
