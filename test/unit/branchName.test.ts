/** A worktree chat's branch named from its first prompt: a short ASCII slug git accepts, unique, `pi/<n>` kept when the prompt gives nothing usable. */

import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { branchSlug, nameWorktreeBranch } from '../../src/extension/worktrees/branchName.ts';
import { createWorktree } from '../../src/extension/worktrees/worktreeGit.ts';
import { git, tempRepo } from '../support/tempRepo.ts';
/** What git itself says of a branch name. */
const gitAccepts = (name: string) => {
  try {
    execFileSync('git', ['check-ref-format', '--branch', name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

describe('worktree chats: the branch named from the first prompt', () => {
  it('makes a short lowercase slug of the prompt’s first words', () => {
    assert.equal(branchSlug('Fix the login bug'), 'fix-the-login-bug');
    assert.equal(branchSlug('  Add   a "dark mode" toggle, please!  '), 'add-a-dark-mode-toggle-please');
    assert.equal(branchSlug('Refactor src/extension/chats.ts into smaller modules with tests'), 'refactor-src-extension-chats-ts');
  });

  it('keeps Latin letters without their accents', () => {
    assert.equal(branchSlug('Sửa lỗi đăng nhập'), 'sua-loi-dang-nhap');
    assert.equal(branchSlug('Crème brûlée für Straße'), 'creme-brulee-fur-strasse');
  });

  it('gives nothing for a prompt without usable letters (non-Latin, digits, punctuation only)', () => {
    for (const prompt of ['修复登录错误', 'исправь ошибку', '42', '...', '', '   ', '!!!???', '🎉🎉'])
      assert.equal(branchSlug(prompt), undefined, JSON.stringify(prompt));
  });

  it('turns hostile input into a name git accepts: no .., no control characters, no leading dash, no ref syntax', () => {
    const hostile = [
      '../../etc/passwd',
      '..',
      '-rf --force',
      'a\u0000b\u0007c\u001b[31md',
      'refs/heads/main@{1}~^:?*[\\',
      'x.lock',
      'name.',
      '\u202eevil\u202c',
      'a'.repeat(10_000),
      'word '.repeat(1_000),
    ];
    for (const prompt of hostile) {
      const slug = branchSlug(prompt);
      if (slug === undefined) continue;
      assert.match(slug, /^[a-z0-9]+(-[a-z0-9]+)*$/, JSON.stringify(prompt));
      assert.ok(slug.length <= 32, `${slug.length} characters`);
      assert.ok(gitAccepts(`pi/${slug}`), slug);
    }
    assert.equal(branchSlug('../../etc/passwd'), 'etc-passwd');
    assert.equal(branchSlug('a'.repeat(10_000)), 'a'.repeat(32));
  });

  describe('renaming the worktree’s branch', () => {
    let dir: string;
    let repo: string;
    beforeEach(() => {
      ({ dir, repo } = tempRepo('pi-branch-name-', { 'a.txt': 'one\n' }));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('renames pi/<n> after the first prompt; the worktree stays where it is, on the renamed branch', async () => {
      const wt = await createWorktree({ dir: repo, folder: join(dir, 'wts'), carry: false });
      const named = await nameWorktreeBranch(wt, 'Fix the login bug');
      assert.deepEqual(named, { ...wt, branch: 'pi/fix-the-login-bug' });
      assert.equal(git(wt.path, 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'pi/fix-the-login-bug');
      assert.equal(git(repo, 'branch', '--list', 'pi/1').trim(), '');
    });

    it('adds -2, -3 … when the name is taken', async () => {
      git(repo, 'branch', 'pi/fix-it');
      const first = await nameWorktreeBranch(await createWorktree({ dir: repo, folder: join(dir, 'wts'), carry: false }), 'fix it');
      const second = await nameWorktreeBranch(await createWorktree({ dir: repo, folder: join(dir, 'wts'), carry: false }), 'Fix it!');
      assert.equal(first.branch, 'pi/fix-it-2');
      assert.equal(second.branch, 'pi/fix-it-3');
    });

    it('keeps pi/<n> when the prompt gives nothing usable, and never renames a branch that has its name already', async () => {
      const wt = await createWorktree({ dir: repo, folder: join(dir, 'wts'), carry: false });
      assert.deepEqual(await nameWorktreeBranch(wt, '修复登录错误'), wt);
      const named = await nameWorktreeBranch(wt, 'first task');
      assert.deepEqual(await nameWorktreeBranch(named, 'second task'), named);
      assert.equal(git(wt.path, 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'pi/first-task');
    });
  });
});
