/** The record of the worker's running children that the main thread reads when it ends the worker. */

import { strict as assert } from 'node:assert';
import * as childProcess from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { promisify } from 'node:util';
import { ChildProcessTable } from '../../src/shared/childProcessTable.ts';
import { ChildProcesses } from '../../src/worker/childProcesses.ts';
import { tempDir } from '../support/tempDir.ts';

describe('the table of running children', () => {
  it('is read through the shared buffer by another view of it, with group leaders apart', () => {
    const worker = new ChildProcessTable(new SharedArrayBuffer(4 * (2 + 8)));
    const main = new ChildProcessTable(worker.buffer);
    assert.ok(worker.add({ pid: 101, group: true }));
    assert.ok(worker.add({ pid: 102, group: false }));
    assert.deepEqual(main.running(), [
      { pid: 101, group: true },
      { pid: 102, group: false },
    ]);
    worker.remove(101);
    assert.deepEqual(main.running(), [{ pid: 102, group: false }]);
    // A freed slot is used again.
    assert.ok(worker.add({ pid: 103, group: true }));
    assert.deepEqual(main.running(), [
      { pid: 103, group: true },
      { pid: 102, group: false },
    ]);
  });

  it('refuses a child when full, and a pid that is not one', () => {
    const table = new ChildProcessTable(new SharedArrayBuffer(4 * (2 + 2)));
    assert.ok(table.add({ pid: 1, group: false }));
    assert.ok(table.add({ pid: 2, group: false }));
    assert.equal(table.add({ pid: 3, group: false }), false);
    for (const pid of [0, -5, 1.5, 2 ** 31]) assert.equal(new ChildProcessTable().add({ pid, group: false }), false, String(pid));
  });
});

describe("the worker's child tracking", () => {
  let child: childProcess.ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGKILL');
    child = undefined;
  });

  it('records a child before spawn returns (nothing the child does can come first), as a group leader when detached, until it closes', async () => {
    const table = new ChildProcessTable();
    const cp = { ...childProcess } as typeof childProcess;
    new ChildProcesses(table, () => assert.fail('tracked')).install(cp);
    child = cp.spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    assert.deepEqual(table.running(), [{ pid: child.pid, group: process.platform !== 'win32' }]);
    const closed = once(child, 'close');
    child.kill('SIGKILL');
    await closed;
    assert.deepEqual(table.running(), []);
  });

  it('records children of execFile, exec and fork too, and promisified exec still resolves with its output', async () => {
    const table = new ChildProcessTable();
    const cp = { ...childProcess } as typeof childProcess;
    new ChildProcesses(table, () => assert.fail('tracked')).install(cp);
    child = cp.execFile('sleep', ['30']);
    assert.deepEqual(table.running(), [{ pid: child.pid, group: false }]);
    child.kill('SIGKILL');
    assert.deepEqual(await promisify(cp.exec)('echo hi'), { stdout: 'hi\n', stderr: '' });
  });

  it('once closed, starts no child, and closing waits for a spawn under way to be recorded', async () => {
    const table = new ChildProcessTable();
    const cp = { ...childProcess } as typeof childProcess;
    new ChildProcesses(table, () => assert.fail('tracked')).install(cp);
    // Another thread is mid-spawn: closing returns only once it ends, with its child recorded.
    const other = new ChildProcessTable(table.buffer);
    assert.ok(other.beginSpawn());
    const worker = new Worker(
      `const { workerData } = require('node:worker_threads');
       const cells = new Int32Array(workerData);
       Atomics.wait(cells, 0, 0); // until the table is closed
       Atomics.store(cells, 2, 4242);
       Atomics.sub(cells, 1, 1);
       Atomics.notify(cells, 1);`,
      { eval: true, workerData: table.buffer },
    );
    assert.deepEqual(table.close(60_000), [{ pid: 4242, group: false }]);
    await once(worker, 'exit');
    assert.throws(() => cp.spawn('true'), /Pi is stopping/);
    assert.deepEqual(table.running(), [{ pid: 4242, group: false }]);
  });

  it('reports a child the full table cannot hold', async () => {
    const table = new ChildProcessTable(new SharedArrayBuffer(4 * (2 + 1)));
    table.add({ pid: 1, group: false });
    const untracked: number[] = [];
    const cp = { ...childProcess } as typeof childProcess;
    new ChildProcesses(table, (pid) => untracked.push(pid)).install(cp);
    child = cp.spawn('sleep', ['30'], { stdio: 'ignore' });
    assert.deepEqual(untracked, [child.pid]);
    assert.deepEqual(table.running(), [{ pid: 1, group: false }]);
  });
});

describe("the folder an extension's child process starts in", () => {
  // A folder that is not this process's own: a child started without `cwd` would report that one instead.
  const workspace = realpathSync(tempDir('pi-cwd-'));
  mkdirSync(join(workspace, 'src'));
  writeFileSync(join(workspace, 'reportCwd.cjs'), 'process.send(process.cwd(), () => process.disconnect());');
  const elsewhere = realpathSync(tempDir('pi-elsewhere-'));
  const cp = { ...childProcess } as typeof childProcess;
  const table = new ChildProcessTable();
  new ChildProcesses(
    table,
    () => assert.fail('tracked'),
    () => workspace,
  ).install(cp);
  const pwd = (out: string | Buffer) => String(out).trim();

  it('is the workspace for the synchronous calls without cwd, whichever arguments they are given', () => {
    assert.notEqual(process.cwd(), workspace);
    assert.equal(pwd(cp.execSync('pwd')), workspace);
    assert.equal(pwd(cp.execSync('pwd', { encoding: 'utf8' })), workspace);
    assert.equal(pwd(cp.execFileSync('pwd')), workspace);
    assert.equal(pwd(cp.execFileSync('sh', ['-c', 'pwd'], { encoding: 'utf8', cwd: undefined })), workspace);
    assert.equal(pwd(cp.spawnSync('pwd').stdout), workspace);
    assert.equal(pwd(cp.spawnSync('sh', ['-c', 'pwd']).stdout), workspace);
    assert.equal(pwd(cp.spawnSync('pwd', { encoding: 'utf8' }).stdout), workspace);
  });

  it('is the workspace for spawn, exec, execFile and fork without cwd, and their callbacks still run', async () => {
    const exec = promisify(cp.exec);
    const execFile = promisify(cp.execFile);
    // Node's own promisified form would call its unwrapped exec: neither the folder nor the record would follow.
    const running = exec('pwd');
    assert.deepEqual(table.running(), [{ pid: running.child.pid, group: false }]);
    assert.equal(pwd((await running).stdout), workspace);
    assert.equal(pwd((await execFile('pwd')).stdout), workspace);
    assert.equal(pwd((await execFile('sh', ['-c', 'pwd'])).stdout), workspace);
    await assert.rejects(exec('echo out; echo err >&2; exit 3'), { code: 3, stdout: 'out\n', stderr: 'err\n' });
    const called = await new Promise<string>((resolve, reject) => cp.exec('pwd', (err, out) => (err ? reject(err) : resolve(out))));
    assert.equal(pwd(called), workspace);
    const viaFile = await new Promise<string>((resolve, reject) => cp.execFile('pwd', (err, out) => (err ? reject(err) : resolve(out))));
    assert.equal(pwd(viaFile), workspace);
    const spawned = cp.spawn('pwd');
    let out = '';
    spawned.stdout!.on('data', (d: Buffer) => (out += String(d)));
    await once(spawned, 'close');
    assert.equal(pwd(out), workspace);
    // A relative module path is found in the child's folder too.
    const forked = cp.fork('reportCwd.cjs', { execArgv: [] });
    const [message] = (await once(forked, 'message')) as [string];
    assert.equal(message, workspace);
    await once(forked, 'exit');
  });

  it("keeps a cwd given, and resolves a relative one against the workspace, not the host's folder", () => {
    assert.equal(pwd(cp.execSync('pwd', { cwd: elsewhere })), elsewhere);
    assert.equal(pwd(cp.execSync('pwd', { cwd: 'src' })), join(workspace, 'src'));
    assert.equal(pwd(cp.spawnSync('pwd', [], { cwd: 'src' }).stdout), join(workspace, 'src'));
  });
});
