/** Reads blobs from the shadow repository through one `git cat-file --batch` process: a restore of many files costs one process, not one per file. */

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { gitExecutable, GitError, outsideWorkspace, shadowEnv, type GitOptions, type GitTarget } from './git.ts';

interface Pending {
  readonly resolve: (b: Buffer) => void;
  readonly reject: (e: Error) => void;
}

/** One `cat-file --batch` process; `read()` calls are answered in order. `close()` ends it. */
export class BlobReader {
  private readonly _child: ChildProcessWithoutNullStreams;
  private readonly _queue: Pending[] = [];
  private _chunks: Buffer[] = [];
  private _buffered = 0;
  /** Bytes of the current object's content still to come (plus its trailing newline); undefined while reading a header. */
  private _need: number | undefined;
  private _failed: Error | undefined;

  constructor(target: GitTarget, opts: GitOptions = {}) {
    // A path, not a name to look up: a missing git fails the spawn ('error'), which the reads report.
    this._child = spawn(gitExecutable(opts) ?? opts.gitPath ?? 'git', ['cat-file', '--batch'], {
      cwd: outsideWorkspace(target),
      env: shadowEnv(target, opts.env),
      windowsHide: true,
    });
    this._child.stdout.on('data', (b: Buffer) => this._onData(b));
    this._child.stdin.on('error', () => undefined);
    this._child.on('error', (err) =>
      this._fail(new GitError(`git cat-file could not start: ${err.message}`, { missing: (err as NodeJS.ErrnoException).code === 'ENOENT' })),
    );
    this._child.on('close', () => this._fail(new GitError('git cat-file ended early')));
  }

  /** The content of blob `sha`, byte for byte. */
  read(sha: string): Promise<Buffer> {
    if (this._failed) return Promise.reject(this._failed);
    return new Promise<Buffer>((resolve, reject) => {
      this._queue.push({ resolve, reject });
      this._child.stdin.write(`${sha}\n`);
    });
  }

  close(): void {
    this._child.stdin.end();
  }

  private _fail(err: Error): void {
    this._failed ??= err;
    for (const p of this._queue.splice(0)) p.reject(this._failed);
  }

  private _onData(b: Buffer): void {
    this._chunks.push(b);
    this._buffered += b.length;
    for (;;) {
      if (this._need === undefined) {
        const all = this._take(this._buffered);
        const nl = all.indexOf(0x0a);
        if (nl < 0) return this._put(all);
        const header = all.subarray(0, nl).toString('utf8');
        this._put(all.subarray(nl + 1));
        const m = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header);
        if (!m) {
          this._queue.shift()?.reject(new GitError(`no such object: ${header}`));
          continue;
        }
        this._need = Number(m[2]) + 1;
      }
      if (this._buffered < this._need) return;
      const body = this._take(this._need);
      this._need = undefined;
      this._queue.shift()?.resolve(body.subarray(0, body.length - 1));
    }
  }

  /** The first `n` buffered bytes, removed from the buffer; the chunks are joined only once enough arrived, so a large blob is copied once. */
  private _take(n: number): Buffer {
    const all = this._chunks.length === 1 ? this._chunks[0]! : Buffer.concat(this._chunks);
    this._chunks = n < all.length ? [all.subarray(n)] : [];
    this._buffered = all.length - n;
    return all.subarray(0, n);
  }

  private _put(rest: Buffer): void {
    this._chunks = rest.length ? [rest] : [];
    this._buffered = rest.length;
  }
}
