/** Folders put first on the extension hosts' PATH: the ~/.profile a login shell in code-server's throwaway HOME reads. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathFirstProfile } from '../workbench/codeServer.ts';

/** PATH as a login shell started from `home` sees it, as VS Code's server resolves an extension host's environment. */
function loginShellPath(home: string): string {
  const r = spawnSync('bash', ['-ilc', 'printf %s "$PATH"'], {
    env: { HOME: home, PATH: '/usr/bin:/bin', TERM: 'dumb' },
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

describe('code-server pathFirst', () => {
  let home: string;
  beforeEach(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-panel-profile-'));
  });
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  it("puts the folders first on a login shell's PATH, in order, whatever /etc/profile sets", function () {
    if (process.platform === 'win32') this.skip();
    const dirs = ['/opt/ripgrep/bin', "/tmp/it's here/bin", '/tmp/$HOME `x`'];
    fs.writeFileSync(path.join(home, '.profile'), pathFirstProfile(dirs));
    const entries = loginShellPath(home).split(':');
    assert.deepEqual(entries.slice(0, 3), dirs);
    assert.ok(entries.length > 3, 'the rest of PATH is kept');
  });
});
