/**
 * Checkpoints of a workspace: its files' state at a moment (whoever changed them: Pi's tools, a shell command,
 * the user), kept in a shadow git repository in the extension's storage; diffs between checkpoints and the
 * workspace; restores (with an Undo); all through git child processes, never blocking the calling thread.
 * One file because every operation goes through the one queue (`_serial`) over one shadow repository and its
 * metadata; the git plumbing and the file writes of a restore are already in shadowRepo.ts and restoreFiles.ts.
 */

import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { GitError, type GitOptions } from './git.ts';
import { applyRestore, type FileWrite } from './restoreFiles.ts';
import { displayPath, ShadowRepo, workspacePath, type SkippedFile } from './shadowRepo.ts';

/** Whether checkpoints can work here; when not, `message` says why (the caller falls back to per-tool capture). */
export type Availability = { readonly available: true; readonly gitVersion: string } | { readonly available: false; readonly message: string };

/** Names a checkpoint so a session's can be found again after a restart. */
export interface CheckpointKey {
  readonly sessionId: string;
  /** The session entry (user message) the checkpoint was taken before. */
  readonly entryId: string;
}

/** One checkpoint. */
export interface Checkpoint {
  /** The shadow repository's commit id. */
  readonly id: string;
  readonly label: string;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  readonly sessionId?: string;
  readonly entryId?: string;
  /** `undo`: taken by a restore, just before it changed the files; `end`: taken when a run settled. */
  readonly kind: 'checkpoint' | 'undo' | 'end';
  /** Workspace files it does not hold (too large, nested repositories). */
  readonly skipped: readonly SkippedFile[];
  /** An `end` checkpoint: the id of the checkpoint its run started from. */
  readonly runStart?: string;
  /** An `end` checkpoint: the run's files the user undid since (the Changes row shows them undone). */
  readonly undone?: readonly string[];
  /** An `undo` checkpoint taken by a restore the user asked for: what Undo restore needs. */
  readonly restore?: RestoreRecord;
}

/** A restore the user asked for, kept with the checkpoint taken just before it (so it survives a reload). */
export interface RestoreRecord {
  /** Whether the files were restored (restoring this checkpoint puts them back); false: the conversation only. */
  readonly code: boolean;
  /** The session's leaf before the conversation moved back; absent when it did not move. */
  readonly leafId?: string;
  /** Undo restore was done. */
  readonly undone?: boolean;
}

/** One file that differs between a checkpoint and another one or the workspace. */
export interface FileDiff {
  /** Workspace-relative, '/'-separated. */
  readonly path: string;
  readonly status: 'added' | 'modified' | 'deleted';
  readonly added: number;
  readonly removed: number;
  readonly binary: boolean;
  /** Why the change is not fully known (a side that was too large to keep). */
  readonly note?: string;
}

/** What a restore did; `undoId` is the checkpoint taken just before it: restoring that undoes the restore. */
export interface RestoreResult {
  readonly restored: readonly string[];
  readonly skipped: readonly SkippedFile[];
  readonly undoId: string;
}

export interface CheckpointStoreOptions {
  /** The workspace folder whose files are checkpointed. */
  readonly workspace: string;
  /** The extension's storage folder; the shadow repository goes in `checkpoints/<hash of the workspace path>` under it. */
  readonly storageDir: string;
  /** Files larger than this are skipped (10 MB by default). */
  readonly maxFileBytes?: number;
  /** A store per chat in one workspace: each has an index file of its own, so two never wait on git's index lock. */
  readonly owner?: string;
  readonly git?: GitOptions;
}

const REF_ROOT = 'refs/pi-checkpoints';
const SHA = /^[0-9a-f]{40}$/;

/** Metadata kept as JSON in the body of each checkpoint's commit message. */
interface Meta {
  readonly v: 1;
  readonly label: string;
  readonly createdAt: number;
  readonly sessionId?: string;
  readonly entryId?: string;
  readonly kind: Checkpoint['kind'];
  readonly skipped: readonly SkippedFile[];
  readonly runStart?: string;
  readonly undone?: readonly string[];
  readonly restore?: RestoreRecord;
}

/** The checkpoints of one workspace. Operations run one at a time, in call order. */
export class CheckpointStore {
  /** The shadow repository (delete the folder to clear every checkpoint of the workspace). */
  readonly gitDir: string;
  private readonly _workspace: string;
  private readonly _repo: ShadowRepo;
  private _queue: Promise<unknown> = Promise.resolve();
  private _ready: Promise<void> | undefined;
  private _count = 0;

  constructor(opts: CheckpointStoreOptions) {
    this._workspace = path.resolve(opts.workspace);
    this.gitDir = path.join(opts.storageDir, 'checkpoints', createHash('sha256').update(this._workspace).digest('hex').slice(0, 16));
    this._repo = new ShadowRepo(this.gitDir, this._workspace, {
      indexName: opts.owner ? `index-${opts.owner.replace(/[^\w-]/g, '_')}` : 'index',
      maxFileBytes: opts.maxFileBytes,
      git: opts.git,
    });
  }

  /** Whether git runs and the workspace is one checkpoints make sense for. */
  async available(): Promise<Availability> {
    let gitVersion: string;
    try {
      gitVersion = await this._repo.version();
    } catch (err) {
      const missing = err instanceof GitError && err.missing;
      return {
        available: false,
        message: missing ? 'Checkpoints need git, which was not found on PATH.' : `Checkpoints need git, which did not run: ${(err as Error).message}`,
      };
    }
    const st = await fs.stat(this._workspace).catch(() => undefined);
    if (!st?.isDirectory()) return { available: false, message: `Checkpoints need a workspace folder; ${this._workspace} is not one.` };
    // Copying a whole home folder or disk on the first checkpoint would take minutes and gigabytes. Real paths:
    // the home folder opened through a symlink (or a home that is one) is the home folder still.
    const real = await fs.realpath(this._workspace).catch(() => this._workspace);
    const home = await fs.realpath(os.homedir()).catch(() => path.resolve(os.homedir()));
    if (real === home || real === path.parse(real).root) {
      return { available: false, message: `Checkpoints are off for ${this._workspace}: open a project folder instead.` };
    }
    return { available: true, gitVersion };
  }

  /** Records the workspace's files now. Cheap when little changed: only what git sees as new, changed or deleted is read. */
  checkpoint(label: string, key?: CheckpointKey): Promise<Checkpoint> {
    return this._serial(() => this._checkpoint(label, key, 'checkpoint'));
  }

  /**
   * Stages the workspace ahead of the first checkpoint (a session opened), without recording one: the first
   * prompt's checkpoint then costs what a later one does instead of copying the whole workspace first.
   */
  warm(): Promise<void> {
    return this._serial(async () => {
      await this._init();
      await this._repo.snapshot();
    });
  }

  /** Records the workspace as run `runStart` (a checkpoint id) left it: the run's Changes are the diff between the two. */
  endOfRun(runStart: string, key: CheckpointKey): Promise<Checkpoint> {
    return this._serial(() => this._checkpoint('After the run', key, 'end', { runStart }));
  }

  /** Names checkpoint `id` also by `key` (the user message's entry, known only once Pi appended it). */
  assign(id: string, key: CheckpointKey): Promise<void> {
    return this._serial(async () => {
      await this._init();
      await this._repo.setRef(refName(key), id);
    });
  }

  /** The checkpoint named by `key` (its ref), if any. */
  byKey(key: CheckpointKey): Promise<Checkpoint | undefined> {
    return this._serial(async () => {
      await this._init();
      const r = (await this._repo.refs(refName(key))).find((x) => x.ref === refName(key));
      const meta = r && parseMeta(r.body);
      return r && meta ? toCheckpoint(r.sha, meta) : undefined;
    });
  }

  /** Deletes every checkpoint of the workspace (the whole shadow repository); resolves to the bytes it freed. */
  clear(): Promise<number> {
    return this._serial(async () => {
      const bytes = await folderBytes(this.gitDir);
      await fs.rm(this.gitDir, { recursive: true, force: true });
      this._ready = undefined;
      this._repo.forget();
      return bytes;
    });
  }

  /** Bytes the shadow repository takes on disk. */
  size(): Promise<number> {
    return folderBytes(this.gitDir);
  }

  /** The checkpoints, oldest first; only `sessionId`'s when given. */
  list(sessionId?: string): Promise<Checkpoint[]> {
    return this._serial(async () => {
      const prefix = sessionId === undefined ? REF_ROOT : `${REF_ROOT}/${refPart(sessionId)}`;
      const out: Checkpoint[] = [];
      for (const r of await this._repo.refs(prefix)) {
        const meta = parseMeta(r.body);
        if (meta) out.push(toCheckpoint(r.sha, meta));
      }
      return out.sort((a, b) => a.createdAt - b.createdAt);
    });
  }

  /** The checkpoint taken for `entryId` of `sessionId`, if any. */
  async find(sessionId: string, entryId: string): Promise<Checkpoint | undefined> {
    return (await this.list(sessionId)).find((c) => c.entryId === entryId && c.kind === 'checkpoint');
  }

  /** Files that differ from checkpoint `fromId` to checkpoint `toId`, or to the workspace now. */
  diff(fromId: string, toId: string | 'workspace'): Promise<FileDiff[]> {
    return this._serial(async () => {
      const from = await this._read(fromId);
      const to = toId === 'workspace' ? await this._repo.snapshot() : await this._read(toId);
      return this._diffTrees(from, to);
    });
  }

  /** The bytes of `file` (workspace-relative) in checkpoint `id` (Open Diff's left side); undefined when the checkpoint has no such file. */
  fileAt(id: string, file: string): Promise<Buffer | undefined> {
    return this._serial(async () => {
      const { tree } = await this._read(id);
      return this._repo.blobAt(tree, normalizeRel(file));
    });
  }

  /** Workspace files that differ from checkpoint `id` now: what a restore to it would overwrite or delete. */
  async changedSince(id: string): Promise<string[]> {
    return (await this.diff(id, 'workspace')).map((f) => f.path);
  }

  /**
   * Puts the workspace's files (or only `files`, workspace-relative) back as they were at checkpoint `id`:
   * rewrites changed ones byte for byte, deletes ones created since. Takes a checkpoint first; restoring that
   * one (`undoId`) undoes the restore. A file that cannot be restored safely is in `skipped`, untouched.
   */
  restore(id: string, opts: { files?: readonly string[]; record?: Omit<RestoreRecord, 'code' | 'undone'> } = {}): Promise<RestoreResult> {
    return this._serial(async () => {
      const target = await this._read(id);
      const undo = await this._checkpoint(
        `Before restoring: ${target.meta.label}`,
        { sessionId: target.meta.sessionId ?? '_', entryId: `undo-${uniqueSuffix(++this._count)}` },
        'undo',
        opts.record ? { restore: { code: true, ...opts.record } } : {},
      );
      const now = await this._read(undo.id);
      const only = opts.files ? new Set(opts.files.map(normalizeRel)) : undefined;
      const wanted = (p: string) => !only || only.has(p);
      const skippedThen = new Map(target.meta.skipped.map((s) => [s.path, s.reason]));
      const skippedNow = new Map(undo.skipped.map((s) => [s.path, s.reason]));
      const deletes: string[] = [];
      const writes: FileWrite[] = [];
      const skipped: SkippedFile[] = [];
      const changes = await this._repo.changes(target.tree, now.tree);
      // Raw paths (bytes, see displayPath) go to git and the filesystem; the user and `files` see them decoded.
      const changed = new Set(changes.map((c) => displayPath(c.path)));
      const created: string[] = [];
      for (const c of changes) {
        const shown = displayPath(c.path);
        if (!wanted(shown)) continue;
        if (c.status === 'A') {
          const then = skippedThen.get(shown) ?? nestedIn(shown, skippedThen);
          if (then) skipped.push({ path: shown, reason: `the checkpoint holds no copy of it (${then})` });
          else created.push(c.path);
          continue;
        }
        const nowReason = skippedNow.get(shown);
        if (nowReason) skipped.push({ path: shown, reason: `Undo restore could not bring back its current content (${nowReason})` });
        // A folder in its place is not such a file: the checkpoint just taken holds what is in it, deleted first.
        else if (c.status === 'D' && (await presentFile(workspacePath(this._workspace, c.path))))
          // There, but not in the checkpoint just taken: ignored now, so nothing could undo overwriting it.
          skipped.push({ path: shown, reason: 'it is ignored now, so Undo restore could not bring back its current content' });
        else writes.push({ path: c.path, sha: c.fromSha, mode: c.fromMode });
      }
      // A file the checkpoint does not hold was created since, or was there and ignored by the rules of then (the
      // run may have changed a .gitignore since): only the first kind is deleted.
      const ignoredThen = await this._repo.ignoredIn(target.tree, created).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
      for (const p of created) {
        if (ignoredThen instanceof Error)
          skipped.push({
            path: displayPath(p),
            reason: `whether it was there before the checkpoint is not known (${ignoredThen.message}), so it is left as it is`,
          });
        else if (ignoredThen.has(p))
          skipped.push({ path: displayPath(p), reason: 'the checkpoint ignored it and holds no copy of it, so it is left as it is' });
        else deletes.push(p);
      }
      for (const [p, reason] of skippedNow) {
        if (changed.has(p) || !wanted(p)) continue;
        skipped.push({
          path: p,
          reason: skippedThen.has(p)
            ? `no copy of it is kept (${reason})`
            : `it was created after the checkpoint and is not kept (${reason}), so it is left as it is`,
        });
      }
      const blobs = this._repo.blobs();
      try {
        const done = await applyRestore(this._workspace, { deletes, writes }, blobs);
        return {
          restored: done.restored.map(displayPath).sort(),
          skipped: [...skipped, ...done.skipped.map((f) => ({ ...f, path: displayPath(f.path) }))].sort((a, b) => (a.path < b.path ? -1 : 1)),
          undoId: undo.id,
        };
      } finally {
        blobs.close();
      }
    });
  }

  /**
   * Records a restore of the conversation only (the files stay): a checkpoint of the workspace now, marked as
   * that restore, so Undo restore finds it after a reload as it finds a restore of the files.
   */
  recordRestore(sessionId: string, record: Omit<RestoreRecord, 'code' | 'undone'>): Promise<Checkpoint> {
    return this._serial(() =>
      this._checkpoint('Before restoring the conversation', { sessionId, entryId: `undo-${uniqueSuffix(++this._count)}` }, 'undo', {
        restore: { code: false, ...record },
      }),
    );
  }

  /**
   * Amends what checkpoint `id` (named by its session and entry) says about itself: its `undone` files or its
   * restore's record. The checkpoint's files stay as they are; its id changes (a new commit under the same name).
   */
  amend(id: string, patch: Pick<Meta, 'undone' | 'restore'>): Promise<Checkpoint> {
    return this._serial(async () => {
      const { tree, meta } = await this._read(id);
      if (meta.sessionId === undefined || meta.entryId === undefined) throw new Error(`Checkpoint ${id} has no name to keep a change under.`);
      const next: Meta = { ...meta, ...patch };
      const sha = await this._repo.commit(tree, `${next.label.slice(0, 72)}\n\n${JSON.stringify(next)}\n`);
      await this._repo.setRef(refName({ sessionId: meta.sessionId, entryId: meta.entryId }), sha);
      return toCheckpoint(sha, next);
    });
  }

  /** Deletes a session's checkpoints (their refs) and frees what no other checkpoint shares. */
  dropSession(sessionId: string): Promise<void> {
    return this._serial(async () => {
      const refs = await this._repo.refs(`${REF_ROOT}/${refPart(sessionId)}`);
      await this._repo.deleteRefs(refs.map((r) => r.ref));
      await this._repo.prune();
    });
  }

  private async _checkpoint(
    label: string,
    key: CheckpointKey | undefined,
    kind: Checkpoint['kind'],
    extra: Pick<Meta, 'runStart' | 'restore'> = {},
  ): Promise<Checkpoint> {
    await this._init();
    let meta: Meta | undefined;
    const ref = key ? refName(key) : `${REF_ROOT}/_/${uniqueSuffix(++this._count)}`;
    const { commit } = await this._repo.record(ref, (skipped) => {
      meta = {
        v: 1,
        label: label.replace(/\s+/g, ' ').trim() || 'Checkpoint',
        createdAt: Date.now(),
        ...(key ? { sessionId: key.sessionId, entryId: key.entryId } : {}),
        kind,
        skipped,
        ...extra,
      };
      return `${meta.label.slice(0, 72)}\n\n${JSON.stringify(meta)}\n`;
    });
    return toCheckpoint(commit, meta!);
  }

  /** A checkpoint's tree and metadata; rejects for an id that is not one. */
  private async _read(id: string): Promise<{ tree: string; meta: Meta; skipped: readonly SkippedFile[] }> {
    await this._init();
    const c = SHA.test(id) ? await this._repo.readCommit(id) : undefined;
    const meta = c && parseMeta(c.body);
    if (!c || !meta) throw new Error(`No checkpoint ${id}.`);
    return { tree: c.tree, meta, skipped: meta.skipped };
  }

  private async _diffTrees(
    from: { tree: string; skipped: readonly SkippedFile[] },
    to: { tree: string; skipped: readonly SkippedFile[] },
  ): Promise<FileDiff[]> {
    const [changes, stats] =
      from.tree === to.tree ? [[], new Map()] : await Promise.all([this._repo.changes(from.tree, to.tree), this._repo.lineStats(from.tree, to.tree)]);
    const skippedFrom = new Map(from.skipped.map((s) => [s.path, s.reason]));
    const skippedTo = new Map(to.skipped.map((s) => [s.path, s.reason]));
    const inChanges = new Set(changes.map((c) => displayPath(c.path)));
    // A file too large to keep on one side only appeared or went away (one that was in the other side's tree is among `changes`).
    const unseen: FileDiff[] = [];
    for (const [p, note] of skippedTo)
      if (!skippedFrom.has(p) && !inChanges.has(p)) unseen.push({ path: p, status: 'added', added: 0, removed: 0, binary: false, note });
    for (const [p, note] of skippedFrom)
      if (!skippedTo.has(p) && !inChanges.has(p)) unseen.push({ path: p, status: 'deleted', added: 0, removed: 0, binary: false, note });
    return [
      ...changes.map((c): FileDiff => {
        const shown = displayPath(c.path);
        const st = stats.get(c.path) ?? { added: 0, removed: 0, binary: false };
        // A file that is only missing from one side because it was too large there was changed, not created or deleted.
        const note = c.status === 'D' ? skippedTo.get(shown) : c.status === 'A' ? skippedFrom.get(shown) : undefined;
        if (note) return { path: shown, status: 'modified', added: 0, removed: 0, binary: st.binary, note };
        return {
          path: shown,
          status: c.status === 'A' ? 'added' : c.status === 'D' ? 'deleted' : 'modified',
          added: st.added,
          removed: st.removed,
          binary: st.binary,
        };
      }),
      ...unseen,
    ].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  private _init(): Promise<void> {
    this._ready ??= this._repo.init().catch((err: unknown) => {
      this._ready = undefined;
      throw err;
    });
    return this._ready;
  }

  private _serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this._queue.then(fn, fn);
    this._queue = run.catch(() => undefined);
    return run;
  }
}

function toCheckpoint(id: string, m: Meta): Checkpoint {
  return {
    id,
    label: m.label,
    createdAt: m.createdAt,
    ...(m.sessionId !== undefined ? { sessionId: m.sessionId } : {}),
    ...(m.entryId !== undefined ? { entryId: m.entryId } : {}),
    kind: m.kind,
    skipped: m.skipped,
    ...(m.runStart ? { runStart: m.runStart } : {}),
    ...(Array.isArray(m.undone) ? { undone: m.undone } : {}),
    ...(m.restore && typeof m.restore === 'object' ? { restore: m.restore } : {}),
  };
}

function refName(key: CheckpointKey): string {
  return `${REF_ROOT}/${refPart(key.sessionId)}/${refPart(key.entryId)}`;
}

/** The bytes of the files under `dir` (0 when it does not exist). */
async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  const entries = await fs.readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  for (const e of entries) {
    if (!e.isFile()) continue;
    const st = await fs.stat(path.join(e.parentPath, e.name)).catch(() => undefined);
    total += st?.size ?? 0;
  }
  return total;
}

function parseMeta(body: string): Meta | undefined {
  try {
    const m = JSON.parse(body.trim()) as Partial<Meta>;
    return m.v === 1 && typeof m.label === 'string' && typeof m.createdAt === 'number' && Array.isArray(m.skipped) ? (m as Meta) : undefined;
  } catch {
    return undefined;
  }
}

/** A session or entry id as one ref name component: anything git does not allow (or `.`, `/`) is %-escaped. */
function refPart(s: string): string {
  return s ? s.replace(/[^A-Za-z0-9_-]/g, (ch) => `%${ch.codePointAt(0)!.toString(16).padStart(2, '0')}`) : '%';
}

function uniqueSuffix(n: number): string {
  // Stores of other chats (worker threads) write refs into the same repository.
  return `${Date.now().toString(36)}-${n}-${randomBytes(3).toString('hex')}`;
}

function normalizeRel(p: string): string {
  return p.split(path.sep).join('/').replace(/^\.\//, '');
}

/** The reason `skipped` gives for a folder that holds `file` (a nested repository), if any. */
function nestedIn(file: string, skipped: ReadonlyMap<string, string>): string | undefined {
  for (let slash = file.lastIndexOf('/'); slash > 0; slash = file.lastIndexOf('/', slash - 1)) {
    const reason = skipped.get(file.slice(0, slash));
    if (reason) return reason;
  }
  return undefined;
}

/** Whether there is something other than a folder at `p`. */
async function presentFile(p: Buffer): Promise<boolean> {
  return fs.lstat(p).then(
    (st) => !st.isDirectory(),
    () => false,
  );
}
