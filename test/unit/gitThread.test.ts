/** Worktree chats' git processes: started by a small helper process, not forked from the extension host, with their bytes and exit codes intact. */

import { strict as assert } from 'node:assert';
import { spawnOffThread } from '../../src/extension/worktrees/gitThread.ts';

const run = (file: string, args: string[], input = '') => spawnOffThread(file, args, process.cwd(), process.env, input, 1024 * 1024);

describe('worktree chats: where git’s processes start', function () {
  before(function () {
    if (process.platform === 'win32') this.skip();
  });

  it('forks them from a helper process, so the extension host’s memory is never copied for one', async () => {
    const r = await run('sh', ['-c', 'echo $PPID']);
    assert.equal(r.code, 0);
    const parent = Number(r.stdout.toString().trim());
    assert.ok(parent > 0);
    assert.notEqual(parent, process.pid);
    // One helper for every call: the host starts it once.
    assert.equal(Number((await run('sh', ['-c', 'echo $PPID'])).stdout.toString().trim()), parent);
  });

  it('passes standard input and gives back output, errors and the exit code byte for byte', async () => {
    const r = await run('sh', ['-c', 'cat; printf "\\000\\377"; echo oops >&2; exit 3'], 'in\n');
    assert.equal(r.code, 3);
    assert.deepEqual([...r.stdout], [...Buffer.from('in\n'), 0, 0xff]);
    assert.equal(r.stderr.toString(), 'oops\n');
  });

  it('says ENOENT for an executable that does not exist', async () => {
    assert.equal((await run('/no/such/git', [])).code, 'ENOENT');
  });
});
