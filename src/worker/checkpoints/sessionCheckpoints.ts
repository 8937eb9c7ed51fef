/**
 * The checkpoints of the open session: one before each user message (keyed by the session and the message's
 * entry, so they follow the session and survive a reload), one when a run settles, the run's Changes row as the
 * diff between the two (whatever tool or command changed the files) with the run's files outside the workspace from
 * Pi's tools' record, Undo per file of any run (asking before it overwrites what changed since, and itself undone
 * by Undo restore), Open Diff's left side, and the plan of a restore. Off when the setting says so, in Restricted
 * Mode, or without git.
 */

import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import type { FileChangeView } from '../../shared/wire/events.ts';
import type { FileBefore, Logger } from '../../shared/wire/workerProtocol.ts';
import { errorText } from '../agentSession.ts';
import type { GitOptions } from './git.ts';
import { formatBytes } from './shadowRepo.ts';
import { CheckpointStore, type Checkpoint, type FileDiff, type RestoreRecord, type RestoreResult } from './checkpointStore.ts';

/** The Changes row of one run: `runId` is the id of the checkpoint it started from. */
export interface RunChangesView {
  readonly runId: string;
  readonly files: FileChangeView[];
}

/**
 * A run's files its checkpoints do not hold (outside the workspace: `~/.bashrc`), from the record Pi's edit and
 * write tools keep: shown and undone with the run's row.
 */
export interface OutsideFiles {
  /** Ties the per-tool record `perToolRunId` (the run's, just settled) to checkpoint run `runId`. */
  link(perToolRunId: string, runId: string): void;
  /** Run `runId`'s files outside the workspace, named by absolute path. */
  files(runId: string): FileChangeView[];
  owns(file: string, runId: string): boolean;
  /** Undoes `file`, or every file of run `runId` not undone yet; undefined when there is none to undo. */
  undo(file: string | undefined, runId: string): { ok: boolean; message: string } | undefined;
}

/** What an Undo of a run's files did; `undoable`: it replaced files in the workspace, and Undo restore brings them back. */
export interface UndoResult {
  readonly ok: boolean;
  readonly message: string;
  readonly row?: RunChangesView;
  readonly undoable?: boolean;
}

/**
 * Kept in the restore record of an Undo's checkpoint (the store keeps a record as it is given): the run whose
 * files it undid, so Undo restore brings back only those and shows them in the row again.
 */
interface UndoOf {
  readonly run: string;
  readonly files: readonly string[];
}

/** What a restore to a user message would do to the files. */
export interface RestorePlan {
  readonly checkpoint: Checkpoint;
  /** Files that differ from the checkpoint now: a restore of the code changes these. */
  readonly files: FileChangeView[];
  /** Of those, files changed after Pi's last run ended (by the user, most likely): named before they are overwritten. */
  readonly changedSinceRun: string[];
}

/** Key of the checkpoint taken before the message Pi has not appended yet. */
const NEXT = 'next';

export class SessionCheckpoints {
  private readonly _log: Logger;
  private readonly _onUnavailable: (message: string) => void;
  private readonly _outside: OutsideFiles | undefined;
  private _store: CheckpointStore | undefined;
  private _cwd: string | undefined;
  private _available: Promise<boolean> | undefined;
  /** Said once per worker: the user need not hear it again for every session. */
  private _toldUnavailable = false;
  /**
   * The checkpoints of the current run's user messages, in the order they started (the prompt's first, then
   * steering and follow-up messages'), named by their entries when the run settles: Pi appends the entries
   * without an event.
   */
  private _messages: Promise<Checkpoint | undefined>[] = [];
  /** Whether the prompt's own user message started (its checkpoint was taken before the prompt). */
  private _promptSeen = false;
  /** The session's leaf when the run's prompt was sent: its user messages are the ones after it. */
  private _leafBefore: string | undefined;
  /** The naming of the last run's checkpoints, until done. */
  private _settling: Promise<void> = Promise.resolve();
  /** The `beforePrompt` call still going; `promptDropped` marks it so that it starts no run when it goes on. */
  private _pending: { dropped: boolean } | undefined;
  /** The current run's start (its first user message's checkpoint). */
  private _runStart: Promise<Checkpoint | undefined> | undefined;
  /** The last run's start, for Open Diff's left side when no row names a run. */
  private _lastRunStart: string | undefined;
  /** Files undone per run whose row has no end checkpoint to keep them in (else they are kept with it, and survive a reload). */
  private readonly _undone = new Map<string, Set<string>>();

  constructor(log: Logger, onUnavailable: (message: string) => void, outside?: OutsideFiles) {
    this._log = log;
    this._onUnavailable = onUnavailable;
    this._outside = outside;
  }

  /** A session in `cwd` opened; `enabled` is false when the setting is off or the workspace untrusted. */
  open(cwd: string, storageDir: string | undefined, enabled: boolean, git?: GitOptions): void {
    const on = enabled && storageDir !== undefined;
    if (this._store && this._cwd === cwd && on) return;
    this._cwd = cwd;
    // One index per worker: two chats (workers) over one workspace never wait on each other's index lock.
    this._store = on ? new CheckpointStore({ workspace: cwd, storageDir, owner: `worker-${process.pid}`, ...(git ? { git } : {}) }) : undefined;
    this._available = undefined;
    this._messages = [];
    this._runStart = undefined;
    this._lastRunStart = undefined;
    const store = this._store;
    // The first checkpoint of a large workspace copies all of it (seconds): done now, not while the first prompt waits.
    if (store)
      void this.available()
        .then((ok) => (ok ? store.warm() : undefined))
        .catch((err: unknown) => this._log.warn(`Preparing checkpoints failed: ${errorText(err)}`));
  }

  /** Whether checkpoints are taken here; asks git once. */
  available(): Promise<boolean> {
    const store = this._store;
    if (!store) return Promise.resolve(false);
    this._available ??= store.available().then((a) => {
      if (a.available) return true;
      this._log.warn(a.message);
      if (!this._toldUnavailable) this._onUnavailable(`${a.message} The Changes row covers only Pi's edit and write tools.`);
      this._toldUnavailable = true;
      return false;
    });
    return this._available;
  }

  /** Whether the run now going has a checkpoint to diff against (else the per-tool capture's row is shown). */
  get capturing(): boolean {
    return this._runStart !== undefined;
  }

  /**
   * Before a prompt starts a run (`leafId`: the session's leaf now): the workspace's state. Resolves to why
   * when the checkpoint failed (the run then has none to start from), for the prompt's notice.
   */
  async beforePrompt(sessionId: string | undefined, leafId: string | undefined): Promise<string | void> {
    const call = { dropped: false };
    this._pending = call;
    try {
      const store = this._store;
      // Dropped while git was asked: the prompt went ahead, and a checkpoint taken now may hold the run's own edits.
      if (!store || !sessionId || !(await this.available()) || call.dropped) return;
      let failed = 'unknown error';
      const taken = store.checkpoint('Before message', { sessionId, entryId: NEXT }).catch((err: unknown) => {
        failed = errorText(err) || failed;
        return undefined;
      });
      this._messages = [taken];
      this._promptSeen = false;
      this._leafBefore = leafId;
      this._runStart = taken;
      if (await taken) return;
      // No start: the run's row is the per-tool one, and its steering messages take no checkpoints either. Unless
      // a later prompt's checkpoint is the run's start by now (this one was dropped when it ran out of time).
      if (this._runStart === taken) {
        this._runStart = undefined;
        this._messages = [];
      }
      return failed;
    } finally {
      if (this._pending === call) this._pending = undefined;
    }
  }

  /**
   * The prompt `beforePrompt` was for never ran (cancelled before Pi started it) or went ahead without waiting for
   * it (out of time): its checkpoint starts no run, even one `beforePrompt` has yet to take.
   */
  promptDropped(): void {
    if (this._pending) this._pending.dropped = true;
    this._messages = [];
    this._runStart = undefined;
  }

  /** A user message started: the prompt's own has its checkpoint; a steering or follow-up message mid-run gets one now. */
  userMessageStarted(sessionId: string | undefined): void {
    const store = this._store;
    if (!store || !sessionId || !this._runStart) return;
    if (!this._promptSeen) {
      this._promptSeen = true;
      return;
    }
    this._messages.push(this._take(() => store.checkpoint('Before message', { sessionId, entryId: NEXT })));
  }

  /**
   * The run settled: a checkpoint of what it left, and its Changes row (none when it changed nothing). `taken`
   * is false when the run had no checkpoint to start from (the caller shows the per-tool row instead).
   * `perToolRunId`: the per-tool record the run made, whose files outside the workspace the row shows.
   */
  settled(
    sessionId: string | undefined,
    userEntriesAfter: (leafId: string | undefined) => string[],
    perToolRunId?: string,
  ): Promise<{ taken: boolean; row?: RunChangesView }> {
    const done = this._settle(sessionId, userEntriesAfter, perToolRunId);
    // A restore asked for right after the run waits until its messages' checkpoints are named.
    this._settling = done.then(
      () => undefined,
      () => undefined,
    );
    return done;
  }

  private async _settle(
    sessionId: string | undefined,
    userEntriesAfter: (leafId: string | undefined) => string[],
    perToolRunId: string | undefined,
  ): Promise<{ taken: boolean; row?: RunChangesView }> {
    // Taken at once: a prompt sent right after the run settles starts a checkpoint of its own.
    const started = this._runStart;
    const messages = this._messages;
    this._runStart = undefined;
    this._messages = [];
    const start = await started;
    const store = this._store;
    if (!start || !store || !sessionId) return { taken: false };
    if (perToolRunId) this._outside?.link(perToolRunId, start.id);
    const ids = userEntriesAfter(this._leafBefore);
    for (const [i, taken] of messages.entries()) {
      const cp = await taken;
      const entryId = ids[i];
      if (cp && entryId)
        await store.assign(cp.id, { sessionId, entryId }).catch((err: unknown) => this._log.warn(`Naming a checkpoint failed: ${errorText(err)}`));
    }
    this._lastRunStart = start.id;
    const end = await this._take(() => store.endOfRun(start.id, { sessionId, entryId: `end-${start.id}` }));
    if (!end) return { taken: false };
    try {
      const row = await this._row(start.id, end);
      return row.files.length ? { taken: true, row } : { taken: true };
    } catch (err) {
      this._log.warn(`The run's changes could not be read: ${errorText(err)}`);
      return { taken: false };
    }
  }

  /** The session's last run's row (after a reload: its history is shown again). */
  async last(sessionId: string | undefined): Promise<RunChangesView | undefined> {
    const store = this._store;
    if (!store || !sessionId || !(await this.available())) return undefined;
    try {
      const end = (await store.list(sessionId)).filter((c) => c.kind === 'end' && c.runStart).at(-1);
      if (!end?.runStart) return undefined;
      this._lastRunStart = end.runStart;
      const row = await this._row(end.runStart, end);
      return row.files.length ? row : undefined;
    } catch (err) {
      this._log.warn(`Reading the last run's checkpoints failed: ${errorText(err)}`);
      return undefined;
    }
  }

  /** Whether `runId` names a checkpoint (a Changes row made from checkpoints) rather than a per-tool record. */
  owns(runId: string | undefined): boolean {
    return this._store !== undefined && runId !== undefined && /^[0-9a-f]{40}$/.test(runId);
  }

  /** A file's content at checkpoint `runId` (by default the last run's start): Open Diff's left side. */
  async fileBefore(file: string, runId?: string): Promise<FileBefore | undefined> {
    const store = this._store;
    const id = runId ?? (await this._runStart)?.id ?? this._lastRunStart;
    if (!store || !id || !this._cwd) return undefined;
    const rel = this._rel(file);
    if (rel === undefined) return undefined;
    const bytes = await store.fileAt(id, rel);
    if (!bytes) return { kind: 'absent' };
    if (bytes.subarray(0, 8000).includes(0)) return { kind: 'refused', reason: 'it is a binary file' };
    return { kind: 'text', text: bytes.toString('utf8') };
  }

  /**
   * Puts `file` (or every file of the run) back as at checkpoint `runId`; the row is shown again with it undone.
   * Files that changed after the run (by the user, another program, a later run) are overwritten only when
   * `confirm` (naming them) says yes; what Undo replaced comes back with Undo restore.
   */
  async undo(file: string | undefined, runId: string, confirm: (changed: readonly string[]) => Promise<boolean>): Promise<UndoResult> {
    const store = this._store!;
    const end = await this._end(runId);
    if (file !== undefined && this._outside?.owns(file, runId)) {
      const done = this._outside.undo(file, runId) ?? { ok: false, message: `${file} was already undone.` };
      return { ...done, row: await this._row(runId, end) };
    }
    const diff = await this._diff(runId, end);
    const undone = this._undoneOf(runId, end);
    const rel = file === undefined ? undefined : this._rel(file);
    if (file !== undefined && (rel === undefined || !diff.some((f) => f.path === rel)))
      return { ok: false, message: `${file} is not among this run's changes.` };
    if (rel !== undefined && undone.has(rel)) return { ok: false, message: `${rel} was already undone.` };
    const files = rel !== undefined ? [rel] : diff.filter((f) => !undone.has(f.path) && !f.note).map((f) => f.path);
    const outsideLeft = file === undefined && (this._outside?.files(runId).some((f) => !f.undone && !f.note) ?? false);
    if (!files.length && !outsideLeft) return { ok: false, message: 'Nothing to undo.' };
    // Without an end checkpoint the row is the diff to the workspace itself: nothing changed after it.
    if (files.length && end) {
      const since = new Set((await store.diff(end.id, 'workspace')).map((f) => f.path));
      const changed = files.filter((p) => since.has(p));
      if (changed.length && !(await confirm(changed))) return { ok: false, message: 'Nothing was undone: the files stay as they are.' };
    }
    const said: string[] = [];
    let ok = true;
    let undoable = false;
    let marked = end;
    if (files.length) {
      const record: { leafId?: string; undoOf: UndoOf } = { undoOf: { run: runId, files } };
      const result: RestoreResult = await store.restore(runId, { files, record });
      for (const p of result.restored) undone.add(p);
      if (end && result.restored.length)
        marked = await store.amend(end.id, { undone: [...undone].sort() }).catch((err: unknown) => {
          this._log.warn(`Keeping the undone files with the checkpoint failed: ${errorText(err)}`);
          return undefined;
        });
      if (!marked) this._undone.set(runId, undone);
      const skipped = result.skipped.map((s) => `${s.path}: ${s.reason}`).join('; ');
      undoable = result.restored.length > 0;
      if (!undoable) {
        ok = false;
        said.push(`Nothing was undone. ${skipped}`);
      } else {
        const what = result.restored.length === 1 ? result.restored[0]! : `${result.restored.length} files`;
        ok = !skipped;
        said.push(`Put ${what} back as before the run.${skipped ? ` Skipped: ${skipped}.` : ''}`);
      }
    }
    const outside = file === undefined ? this._outside?.undo(undefined, runId) : undefined;
    if (outside) {
      ok &&= outside.ok;
      said.push(outside.message);
    }
    const shown = await this._row(runId, marked ?? end);
    return { ok, message: said.join(' '), row: shown, ...(undoable ? { undoable } : {}) };
  }

  /** What restoring the files to the checkpoint of user message `entryId` would change; undefined when there is none. */
  async plan(sessionId: string | undefined, entryId: string): Promise<RestorePlan | undefined> {
    const store = this._store;
    if (!store || !sessionId || !(await this.available())) return undefined;
    await this._settling;
    const checkpoint = await store.byKey({ sessionId, entryId });
    if (!checkpoint) return undefined;
    const files = (await store.diff(checkpoint.id, 'workspace')).map(view);
    const lastEnd = (await store.list(sessionId)).filter((c) => c.kind === 'end').at(-1);
    const sinceRun = lastEnd ? new Set((await store.diff(lastEnd.id, 'workspace')).map((f) => f.path)) : new Set<string>();
    return { checkpoint, files, changedSinceRun: files.map((f) => f.path).filter((p) => sinceRun.has(p)) };
  }

  /**
   * Restores the files to checkpoint `id`; restoring the result's `undoId` undoes it. `record`: a restore the
   * user asked for, kept with its undo checkpoint for `lastRestore` (the conversation's leaf before it moved).
   */
  restore(id: string, record?: { leafId?: string }): Promise<RestoreResult> {
    return this._store!.restore(id, record ? { record } : {});
  }

  /** Records a restore of the conversation only; false when checkpoints are off here (nothing is kept). */
  async recordRestore(sessionId: string | undefined, leafId: string | undefined): Promise<boolean> {
    const store = this._store;
    if (!store || !sessionId || !(await this.available())) return false;
    return store.recordRestore(sessionId, leafId ? { leafId } : {}).then(
      () => true,
      (err: unknown) => {
        this._log.warn(`Keeping the restore failed: ${errorText(err)}`);
        return false;
      },
    );
  }

  /** The session's latest restore not yet undone (its undo checkpoint), if any: what Undo restore undoes next. */
  async lastRestore(sessionId: string | undefined): Promise<Checkpoint | undefined> {
    const store = this._store;
    if (!store || !sessionId || !(await this.available())) return undefined;
    return (await store.list(sessionId)).filter((c) => c.kind === 'undo' && c.restore && !c.restore.undone).at(-1);
  }

  /**
   * Undoes the restore recorded with undo checkpoint `cp`: its files come back (when it restored files), and it is
   * marked undone. For an Undo of a run's files, `row` is that run's row with them no longer undone.
   */
  async undoRestore(cp: Checkpoint): Promise<{ message?: string; row?: RunChangesView }> {
    const store = this._store!;
    const undoOf = undoOfRecord(cp.restore);
    if (cp.restore?.code) await store.restore(cp.id, undoOf ? { files: undoOf.files } : {});
    await store.amend(cp.id, { restore: { ...cp.restore!, undone: true } });
    if (!undoOf) return {};
    const end = await this._end(undoOf.run);
    const back = new Set(undoOf.files);
    const undone = new Set([...this._undoneOf(undoOf.run, end)].filter((p) => !back.has(p)));
    const marked =
      end &&
      (await store.amend(end.id, { undone: [...undone].sort() }).catch((err: unknown) => {
        this._log.warn(`Keeping the undone files with the checkpoint failed: ${errorText(err)}`);
        return undefined;
      }));
    if (marked) this._undone.delete(undoOf.run);
    else this._undone.set(undoOf.run, undone);
    const what = undoOf.files.length === 1 ? undoOf.files[0]! : `${undoOf.files.length} files`;
    return {
      message: `Undid the Undo: ${what} as Pi's run left ${undoOf.files.length === 1 ? 'it' : 'them'}.`,
      row: await this._row(undoOf.run, marked || end),
    };
  }

  /** Deletes every checkpoint of the workspace; says how much space that freed. */
  async clear(): Promise<string> {
    const store = this._store;
    if (!store) return 'Checkpoints are off here (setting piPanel.checkpoints, or Restricted Mode): there are none to clear.';
    const bytes = await store.clear();
    this._lastRunStart = undefined;
    this._undone.clear();
    return `Cleared the checkpoints of this workspace (${formatBytes(bytes)}).`;
  }

  /** Run `startId`'s row: its checkpoints' diff, then its files outside the workspace. */
  private async _row(startId: string, end: Checkpoint | undefined): Promise<RunChangesView> {
    const undone = this._undoneOf(startId, end);
    const diff = await this._diff(startId, end);
    return {
      runId: startId,
      files: [...diff.map((f) => ({ ...view(f), ...(undone.has(f.path) ? { undone: true } : {}) })), ...(this._outside?.files(startId) ?? [])],
    };
  }

  private _diff(startId: string, end: Checkpoint | undefined): Promise<FileDiff[]> {
    return this._store!.diff(startId, end?.id ?? 'workspace');
  }

  /** The checkpoint run `runId` settled at, if it has one. */
  private async _end(runId: string): Promise<Checkpoint | undefined> {
    return (await this._store!.list()).find((c) => c.kind === 'end' && c.runStart === runId);
  }

  /** The files of run `runId` undone so far: kept with its end checkpoint, or here for a run without one. */
  private _undoneOf(runId: string, end: Checkpoint | undefined): Set<string> {
    return new Set([...(end?.undone ?? []), ...(this._undone.get(runId) ?? [])]);
  }

  /** A checkpoint operation that never throws into the run: a failure is logged and means "no checkpoint". */
  private async _take(op: () => Promise<Checkpoint>): Promise<Checkpoint | undefined> {
    try {
      return await op();
    } catch (err) {
      this._log.warn(`A checkpoint could not be taken: ${errorText(err)}`);
      return undefined;
    }
  }

  /** `file` relative to the workspace, '/'-separated; undefined outside it. */
  private _rel(file: string): string | undefined {
    // The host names files by real path; the workspace may be reached through a symlink.
    for (const root of [this._cwd!, realOr(this._cwd!)]) {
      const rel = path.relative(root, path.resolve(root, file));
      if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel.split(path.sep).join('/');
    }
    return undefined;
  }
}

/** The Undo a restore record was kept for, if it was one (`UndoOf`); a record read back is checked, not trusted. */
function undoOfRecord(record: RestoreRecord | undefined): UndoOf | undefined {
  const u = (record as { undoOf?: Partial<UndoOf> } | undefined)?.undoOf;
  return u && typeof u.run === 'string' && Array.isArray(u.files) && u.files.every((f) => typeof f === 'string') ? { run: u.run, files: u.files } : undefined;
}

function realOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** A diff entry as the Changes row and the restore card show it. */
function view(f: FileDiff): FileChangeView {
  return {
    path: f.path,
    added: f.added,
    removed: f.removed,
    created: f.status === 'added',
    // A binary file has no line counts, but Undo puts its bytes back all the same.
    ...(f.note ? { note: f.note } : {}),
  };
}
