/** Files and folders handed to the chat (a drop, the explorer, a view message) become chips only inside a workspace folder, by their real path. */

import { strict as assert } from 'node:assert';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { realPathInside } from '../../src/extension/linkTarget.ts';
import { tempDir } from '../support/tempDir.ts';

describe('a file or folder handed to the chat', () => {
  /** A workspace with a file, a folder and links out of it, beside a home folder holding a key. */
  function layout() {
    const base = realpathSync(tempDir('pi-entry-'));
    const ws = join(base, 'ws');
    const other = join(base, 'other');
    const home = join(base, 'home');
    mkdirSync(join(ws, 'src'), { recursive: true });
    mkdirSync(other);
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(ws, 'src', 'a.ts'), 'a');
    writeFileSync(join(home, '.ssh', 'id_rsa'), 'KEY');
    symlinkSync(join(home, '.ssh', 'id_rsa'), join(ws, 'key'));
    symlinkSync(join(home, '.ssh'), join(ws, 'ssh'));
    symlinkSync(join(ws, 'src'), join(ws, 'src-link'));
    return { ws, other, home };
  }

  it('is taken inside a workspace folder, at its real path', () => {
    const { ws, other } = layout();
    assert.equal(realPathInside(join(ws, 'src', 'a.ts'), [ws]), join(ws, 'src', 'a.ts'));
    assert.equal(realPathInside(join(ws, 'src'), [other, ws]), join(ws, 'src'));
    assert.equal(realPathInside(join(ws, 'src-link', 'a.ts'), [ws]), join(ws, 'src', 'a.ts'));
    assert.equal(realPathInside(ws, [ws]), ws);
  });

  it('is refused outside every workspace folder', () => {
    const { ws, other, home } = layout();
    assert.equal(realPathInside(join(home, '.ssh', 'id_rsa'), [ws, other]), undefined);
    assert.equal(realPathInside(join(ws, '..', 'home', '.ssh', 'id_rsa'), [ws]), undefined);
    assert.equal(realPathInside(join(ws, 'src', 'a.ts'), []), undefined);
  });

  it('is refused through a symlink in the workspace that points out of it', () => {
    const { ws } = layout();
    assert.equal(realPathInside(join(ws, 'key'), [ws]), undefined);
    assert.equal(realPathInside(join(ws, 'ssh', 'id_rsa'), [ws]), undefined);
    assert.equal(realPathInside(join(ws, 'ssh'), [ws]), undefined);
  });

  it('is judged against the real path of a workspace folder opened through a symlink', () => {
    const { ws } = layout();
    const linked = `${ws}-linked`;
    symlinkSync(ws, linked);
    assert.equal(realPathInside(join(linked, 'src', 'a.ts'), [linked]), join(ws, 'src', 'a.ts'));
    assert.equal(realPathInside(join(linked, 'key'), [linked]), undefined);
  });
});
