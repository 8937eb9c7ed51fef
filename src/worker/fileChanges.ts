/**
 * What a run did to the workspace's files: the content of each file before the run's first `edit` or `write`
 * to it (read when the tool starts), the +/− line counts when the run settles, Open Diff's left side, and Undo.
 * The last run's record is kept in the extension's workspace storage so it survives a window reload.
 */

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FileChangeView } from '../shared/wire/events.ts';
import type { FileBefore } from '../shared/wire/workerProtocol.ts';
import { lineCounts } from '../shared/lineDiff.ts';
import { realPath, resolveToolPath } from './toolPath.ts';

/** Files larger than this are not kept (no diff, no undo): a run's record stays small. */
export const MAX_BEFORE_BYTES = 1_000_000;

export type Before = FileBefore;

interface Entry {
  /** Absolute path. */
  readonly file: string;
  /** Relative to the workspace, '/'-separated. */
  readonly rel: string;
  readonly before: Before;
  /** Size and modification time when the tool started: how a file whose content is not kept is seen to change. */
  readonly sig: string;
  /** sha256 of the content Pi left (or 'absent'), set when the run settles; Undo refuses if the file differs. */
  after?: string;
  added?: number;
  removed?: number;
  undone?: boolean;
}

/** The record kept on disk for the last run. */
interface Stored {
  readonly version: 1;
  readonly runId: string;
  readonly cwd: string;
  readonly sessionFile?: string;
  readonly entries: Entry[];
  /** The checkpoint run (its start's id) whose Changes row shows this record's files outside the workspace. */
  checkpointRun?: string;
}

/** Tools whose arguments name a file they change. */
const FILE_TOOLS = new Set(['edit', 'write']);

function toolPath(toolName: string, args: unknown): string | undefined {
  if (!FILE_TOOLS.has(toolName) || typeof args !== 'object' || args === null) return undefined;
  const a = args as Record<string, unknown>;
  const p = a.path ?? a.file_path ?? a.filePath;
  return typeof p === 'string' && p ? p : undefined;
}

export class FileChanges {
  private readonly _cwd: string;
  private readonly _storeFile: string | undefined;
  private _current = new Map<string, Entry>();
  private _last: Stored | undefined;
  private _runs = 0;

  /** `storageDir`: the extension's workspace storage; without it nothing survives a reload. */
  constructor(cwd: string, storageDir: string | undefined) {
    this._cwd = real(path.resolve(cwd));
    this._storeFile = storageDir ? path.join(storageDir, 'last-run-changes.json') : undefined;
    this._last = this._load();
  }

  /** Called when a tool starts, before it runs: keeps the file's content the first time the run touches it. */
  toolStarted(toolName: string, args: unknown): void {
    const p = toolPath(toolName, args);
    if (p === undefined) return;
    // Where Pi's tool writes (`~/x`, `@x`, `file://…`), not where `path.resolve` would put it.
    const file = real(resolveToolPath(p, this._cwd));
    if (this._current.has(file)) return;
    this._current.set(file, { file, rel: this._rel(file), before: readBefore(file), sig: statSig(file) });
  }

  /**
   * Ends the run: counts lines added and removed per file and keeps the record as the last run's. Returns the
   * row to show, or undefined when the run changed nothing.
   */
  runSettled(sessionFile: string | undefined): { runId: string; files: FileChangeView[] } | undefined {
    const entries = [...this._current.values()];
    this._current = new Map();
    for (const e of entries) {
      const now = readBefore(e.file);
      e.after = hashOf(now);
      const counts = lineCounts(textOf(e.before), textOf(now));
      e.added = counts.added;
      e.removed = counts.removed;
    }
    // A tool that failed or was blocked left the file as it was: not a change.
    const changed = entries.filter((e) => (e.before.kind === 'refused' ? statSig(e.file) !== e.sig : hashOf(e.before) !== e.after));
    if (!changed.length) return undefined;
    this._runs++;
    const runId = `${Date.now().toString(36)}-${this._runs}`;
    this._last = { version: 1, runId, cwd: this._cwd, sessionFile, entries: changed };
    this._save();
    return this.view();
  }

  /** The last run's row (after a reload too), if it belongs to `sessionFile`. */
  lastFor(sessionFile: string | undefined): { runId: string; files: FileChangeView[] } | undefined {
    const last = this._last;
    if (!last || last.cwd !== this._cwd || last.sessionFile !== sessionFile) return undefined;
    return this.view();
  }

  view(): { runId: string; files: FileChangeView[] } | undefined {
    const last = this._last;
    if (!last) return undefined;
    return { runId: last.runId, files: last.entries.map(entryView) };
  }

  /** Ties the last run's record (`runId`) to checkpoint run `checkpointRun`: that run's row shows its files outside the workspace. */
  link(runId: string, checkpointRun: string): void {
    if (this._last?.runId !== runId) return;
    this._last.checkpointRun = checkpointRun;
    this._save();
  }

  /** Checkpoint run `checkpointRun`'s files outside the workspace (its checkpoints hold only the workspace's). */
  outside(checkpointRun: string): FileChangeView[] {
    return this._outsideOf(checkpointRun).map(entryView);
  }

  /** Whether `p` is one of checkpoint run `checkpointRun`'s files outside the workspace. */
  isOutside(p: string, checkpointRun: string): boolean {
    const file = real(path.resolve(this._cwd, p));
    return this._outsideOf(checkpointRun).some((e) => e.file === file);
  }

  /** Undoes checkpoint run `checkpointRun`'s files outside the workspace that are not undone yet; undefined when there are none. */
  undoOutside(checkpointRun: string): { ok: boolean; message: string } | undefined {
    const entries = this._outsideOf(checkpointRun).filter((e) => !e.undone);
    if (!entries.length) return undefined;
    const refused = entries.map((e) => this.undo(e.file)).filter((r) => !r.ok);
    if (!refused.length)
      return { ok: true, message: `Undid the run's changes to ${entries.length} file${entries.length === 1 ? '' : 's'} outside the workspace.` };
    return { ok: false, message: refused.map((r) => r.message).join(' ') };
  }

  /** The content before the run (the current run's first, else the last run's) of a workspace-relative or absolute path. */
  before(p: string): Before | undefined {
    const file = real(path.resolve(this._cwd, p));
    return this._current.get(file)?.before ?? this._last?.entries.find((e) => e.file === file)?.before;
  }

  /**
   * Puts a file of the last run back as it was before the run (deletes one Pi created). Refuses when the file
   * changed since the run (outside Pi, or by a later run) or its content was not kept.
   */
  undo(p: string): { ok: boolean; message: string } {
    const file = real(path.resolve(this._cwd, p));
    const e = this._last?.entries.find((x) => x.file === file);
    if (!e) return { ok: false, message: `${p} is not among the last run's changes.` };
    if (e.undone) return { ok: false, message: `${e.rel} was already undone.` };
    if (e.before.kind === 'refused') return { ok: false, message: `${e.rel} cannot be undone: ${e.before.reason}.` };
    if (hashOf(readBefore(file)) !== e.after) return { ok: false, message: `${e.rel} changed after Pi's run, so it was left as it is.` };
    if (e.before.kind === 'absent') fs.rmSync(file, { force: true });
    else fs.writeFileSync(file, e.before.text);
    e.undone = true;
    this._save();
    return { ok: true, message: e.before.kind === 'absent' ? `Deleted ${e.rel}, which Pi created.` : `Restored ${e.rel}.` };
  }

  /** Undoes every file of the last run that can be; says which could not. */
  undoAll(): { ok: boolean; message: string } {
    const entries = (this._last?.entries ?? []).filter((e) => !e.undone);
    if (!entries.length) return { ok: false, message: 'Nothing to undo.' };
    const refused = entries.map((e) => this.undo(e.rel)).filter((r) => !r.ok);
    if (!refused.length) return { ok: true, message: `Undid the run's changes to ${entries.length} file${entries.length === 1 ? '' : 's'}.` };
    return { ok: false, message: refused.map((r) => r.message).join(' ') };
  }

  private _outsideOf(checkpointRun: string): Entry[] {
    const last = this._last;
    return last && last.cwd === this._cwd && last.checkpointRun === checkpointRun ? last.entries.filter(isOutside) : [];
  }

  private _rel(file: string): string {
    const rel = path.relative(this._cwd, file);
    return rel.startsWith('..') || path.isAbsolute(rel) ? file : rel.split(path.sep).join('/');
  }

  private _load(): Stored | undefined {
    if (!this._storeFile) return undefined;
    try {
      const s = JSON.parse(fs.readFileSync(this._storeFile, 'utf8')) as Stored;
      return s.version === 1 && Array.isArray(s.entries) ? s : undefined;
    } catch {
      return undefined;
    }
  }

  private _save(): void {
    if (!this._storeFile || !this._last) return;
    try {
      fs.mkdirSync(path.dirname(this._storeFile), { recursive: true });
      fs.writeFileSync(this._storeFile, JSON.stringify(this._last));
    } catch {
      // Losing the record only loses Undo after a reload; the run itself is unaffected.
    }
  }
}

/** The path with symlinks resolved: the host names files by real path. */
const real = realPath;

/** A file outside the workspace keeps its absolute path as its name in the row. */
function isOutside(e: Entry): boolean {
  return path.isAbsolute(e.rel);
}

function entryView(e: Entry): FileChangeView {
  return {
    path: e.rel,
    added: e.added ?? 0,
    removed: e.removed ?? 0,
    created: e.before.kind === 'absent',
    ...(e.undone ? { undone: true } : {}),
    ...(e.before.kind === 'refused' ? { note: e.before.reason } : {}),
  };
}

function statSig(file: string): string {
  try {
    const st = fs.statSync(file);
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return 'absent';
  }
}

/** A file's content now, as a `Before`: absent, text, or refused (binary, too large, unreadable). */
function readBefore(file: string): Before {
  let buf: Buffer;
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return { kind: 'refused', reason: 'it is not a regular file' };
    if (st.size > MAX_BEFORE_BYTES) return { kind: 'refused', reason: `it is larger than ${MAX_BEFORE_BYTES / 1_000_000} MB` };
    buf = fs.readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
    return { kind: 'refused', reason: 'it could not be read' };
  }
  // A NUL byte is how git and editors tell binary from text.
  if (buf.subarray(0, 8000).includes(0)) return { kind: 'refused', reason: 'it is a binary file' };
  const text = buf.toString('utf8');
  // Undo writes the text back: only content that round-trips byte for byte is kept.
  if (!Buffer.from(text, 'utf8').equals(buf)) return { kind: 'refused', reason: 'it is not UTF-8 text' };
  return { kind: 'text', text };
}

function textOf(b: Before): string {
  return b.kind === 'text' ? b.text : '';
}

function hashOf(b: Before): string {
  if (b.kind === 'absent') return 'absent';
  if (b.kind === 'refused') return `refused:${b.reason}`;
  return createHash('sha256').update(b.text).digest('hex');
}
