/** One chat's pending changes: the hunks its runs made that the user has not kept or undone yet, kept across reloads. */

import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Disposable, Emitter } from '../../shared/disposable.ts';
import { applyEdits, computeHunks, linesOf, stackRun, stillThere, undoEdit, type Hunk } from '../../shared/review/hunks.ts';
import type { FileChangeView } from '../../shared/wire/events.ts';
import type { FileBefore, Logger } from '../../shared/wire/workerProtocol.ts';
import type { PendingSummary } from '../../shared/wire/webviewProtocol.ts';

/** A file the hunks cannot describe (created, deleted, binary, too large, changed outside VS Code): decided whole. */
export interface WholeFile {
  readonly reason: string;
  /** The run whose checkpoint Undo restores the file from. */
  readonly runId: string;
}

/** One file's pending changes: hunks, or a whole-file decision. */
export interface PendingFile {
  readonly hunks: readonly Hunk[];
  readonly whole?: WholeFile;
}

/** What the workspace keeps of a chat's pending changes. */
interface Saved {
  readonly runs: readonly string[];
  readonly total: number;
  readonly files: Readonly<Record<string, PendingFile>>;
}

/** The chat's side the store needs: its worker's answers and whether a run is going. */
export interface PendingHost {
  fileBefore(abs: string, runId: string): Promise<FileBefore | undefined>;
  undoFile(abs: string, runId: string): Promise<{ ok: boolean; message: string } | undefined>;
  busy(): boolean;
}

/** Files larger than this are decided whole: per-hunk decorations on them would cost more than they help. */
const MAX_REVIEW_BYTES = 2_000_000;
const SAVED_KEY = 'piPanel.review.pending';

export class PendingChanges extends Disposable {
  private _files = new Map<string, PendingFile>();
  /** The text each file's hunks were found in (a reload of that same text from disk is no user edit); none once edited. */
  private readonly _texts = new Map<string, string>();
  private _runs: string[] = [];
  private _total = 0;
  private _nextId = 0;
  /** A run changed files and its Changes row has not come yet: reloads from disk are the run's, not someone else's. */
  private _awaitingRow = false;
  private _queue: Promise<void> = Promise.resolve();
  private _saveTimer: ReturnType<typeof setTimeout> | undefined;
  /** An undo's own edit is under way: the model follows it, the editor and view hear once it is saved. */
  private _quiet = 0;
  private readonly _key: string;
  private readonly _host: PendingHost;
  private readonly _memento: vscode.Memento;
  private readonly _root: () => string | undefined;
  private readonly _log: Logger;
  private readonly _onDidChange = this._register(new Emitter<void>());
  /** Pending changes were added, kept, undone, moved or given to the user. */
  readonly onDidChange = this._onDidChange.event;

  /** `key` names the chat in the workspace's memory (the sidebar, or an editor tab's lasting key). */
  constructor(key: string, host: PendingHost, memento: vscode.Memento, root: () => string | undefined, log: Logger) {
    super();
    this._key = key;
    this._host = host;
    this._memento = memento;
    this._root = root;
    this._log = log;
    this._load();
    this._register(vscode.workspace.onDidChangeTextDocument((e) => this._edited(e)));
  }

  /** Pending changes left (a whole-file decision counts one). */
  get left(): number {
    let n = 0;
    for (const f of this._files.values()) n += countOf(f);
    return n;
  }

  /** Changes since none were pending: "3 of 7 left". */
  get total(): number {
    return Math.max(this._total, this.left);
  }

  /** Files with pending changes, workspace-relative, in the order runs changed them. */
  get files(): ReadonlyMap<string, PendingFile> {
    return this._files;
  }

  /** What the chat's view shows of them. */
  summary(): PendingSummary {
    const files: Record<string, number> = {};
    for (const [rel, f] of this._files) files[rel] = countOf(f);
    return { files, left: this.left, total: this.total };
  }

  /** The workspace-relative path of a document, when it is one of the chat's pending files. */
  relOf(uri: vscode.Uri): string | undefined {
    const root = this._root();
    if (uri.scheme !== 'file') return undefined;
    // The Changes row names a file outside the workspace by its absolute path.
    const rel = root ? path.relative(root, uri.fsPath).split(path.sep).join('/') : uri.fsPath;
    return this._files.has(rel) ? rel : this._files.has(uri.fsPath) ? uri.fsPath : undefined;
  }

  absOf(rel: string): string {
    return path.isAbsolute(rel) ? rel : path.join(this._root() ?? '', rel);
  }

  /** A run is going: its reloads from disk are not edits of the user. */
  runStarted(): void {
    this._awaitingRow = true;
  }

  /** Run `runId`'s Changes row: its files' hunks join the pending ones (on top of those still pending); a row seen before changes nothing. */
  addRun(runId: string, files: readonly FileChangeView[]): Promise<void> {
    // One row at a time: each reads the pending hunks the one before left.
    this._queue = this._queue.then(() => this._addRun(runId, files)).catch((err: unknown) => this._log.warn(`Review: ${String(err)}`));
    return this._queue;
  }

  private async _addRun(runId: string, files: readonly FileChangeView[]): Promise<void> {
    try {
      await this._readRun(runId, files);
    } finally {
      // Until the run's files are read, a reload of one from disk is still the run's.
      this._awaitingRow = false;
    }
  }

  private async _readRun(runId: string, files: readonly FileChangeView[]): Promise<void> {
    let changed = false;
    for (const f of files) if (f.undone && this._files.delete(f.path)) changed = true;
    if (this._runs.includes(runId)) {
      if (changed) this._changed();
      return;
    }
    this._runs = [...this._runs.slice(-49), runId];
    for (const f of files) {
      if (f.undone) continue;
      const had = countOf(this._files.get(f.path));
      const next = await this._fileAfterRun(f, runId);
      if (next.whole || next.hunks.length) this._files.set(f.path, next);
      else this._files.delete(f.path);
      this._total += Math.max(0, countOf(next) - had);
      changed = true;
    }
    this._total = Math.max(this._total, this.left);
    if (changed) this._changed();
  }

  private async _fileAfterRun(f: FileChangeView, runId: string): Promise<PendingFile> {
    const abs = this.absOf(f.path);
    if (f.note) return { hunks: [], whole: { reason: f.note, runId } };
    let before: FileBefore | undefined;
    try {
      before = await this._host.fileBefore(abs, runId);
    } catch (err) {
      this._log.warn(`Review: no earlier text of ${f.path}: ${String(err)}`);
    }
    const now = await readText(abs);
    if (!before) return { hunks: [], whole: { reason: vscode.l10n.t('its earlier text is not known'), runId } };
    if (before.kind === 'refused') return { hunks: [], whole: { reason: before.reason, runId } };
    if (now.kind === 'missing') return { hunks: [], whole: { reason: vscode.l10n.t('Pi deleted it'), runId } };
    if (now.kind === 'binary') return { hunks: [], whole: { reason: vscode.l10n.t('binary file'), runId } };
    if (now.kind !== 'text') return { hunks: [], whole: { reason: vscode.l10n.t('too large to review by change'), runId } };
    if (before.kind === 'absent') return { hunks: [], whole: { reason: vscode.l10n.t('Pi created it'), runId } };
    const older = this._files.get(f.path);
    const id = () => `c${++this._nextId}`;
    this._texts.set(f.path, now.text);
    if (older?.whole) return older;
    // Older hunks still pending sit in the text the run started from; one no longer there is the user's.
    const beforeLines = linesOf(before.text);
    const stacked = older?.hunks.filter((h) => stillThere(h, beforeLines)) ?? [];
    return { hunks: stacked.length ? stackRun(stacked, before.text, now.text, id) : computeHunks(before.text, now.text, id) };
  }

  /** Keeps one change of `rel` (its id), or all of the file: nothing in the file changes. */
  keep(rel: string, id?: string): void {
    const f = this._files.get(rel);
    if (!f) return;
    const hunks = id === undefined || f.whole ? [] : f.hunks.filter((h) => h.id !== id);
    this._set(rel, hunks.length ? { hunks } : undefined);
  }

  /** Keeps every pending change of the chat. */
  keepAll(): void {
    if (!this._files.size) return;
    this._files.clear();
    this._changed();
  }

  /**
   * Undoes one change of `rel` (its id), or all of the file: the editor replaces just those lines (so Undo in the
   * editor brings them back) and saves; a whole-file decision restores the file from the run's checkpoint.
   */
  async undo(rel: string, id?: string): Promise<string | undefined> {
    const f = this._files.get(rel);
    if (!f) return undefined;
    // The file is as decided before anyone hears of the decision: the view's "0 left" means the file on disk is done.
    if (f.whole) {
      const result = await this._host.undoFile(this.absOf(rel), f.whole.runId);
      if (this._files.get(rel) === f) this._set(rel, undefined);
      return result?.message;
    }
    const uri = vscode.Uri.file(this.absOf(rel));
    const doc = await vscode.workspace.openTextDocument(uri);
    const lines = linesOf(doc.getText());
    const chosen = f.hunks.filter((h) => id === undefined || h.id === id);
    // A change whose lines are no longer what the run wrote is not undone over the user's text: it is theirs now.
    const safe = chosen.filter((h) => stillThere(h, lines));
    const rest = f.hunks.filter((h) => !chosen.includes(h));
    if (!safe.length) {
      this._set(rel, rest.length ? { hunks: rest } : undefined);
      return chosen.length ? vscode.l10n.t('that change was edited since; it is yours now') : undefined;
    }
    const edit = new vscode.WorkspaceEdit();
    for (const h of safe) {
      const e = undoEdit(h);
      edit.replace(uri, new vscode.Range(e.start.line, e.start.character, e.end.line, e.end.character), e.text);
    }
    // Out of the model before its own edit (which then only moves the others), told to no one until the file is saved.
    this._quiet++;
    try {
      this._set(rel, rest.length ? { hunks: rest } : undefined);
      if (!(await vscode.workspace.applyEdit(edit))) return vscode.l10n.t('the editor refused the edit');
      await doc.save();
    } finally {
      this._quiet--;
      this._changed();
    }
    return undefined;
  }

  /** Undoes every pending change of the chat. */
  async undoAll(): Promise<void> {
    for (const rel of [...this._files.keys()]) await this.undo(rel);
  }

  /** Drops hunks of `rel` that are no longer in the document as the run wrote them (after a reload, an outside change). */
  validate(rel: string, doc: vscode.TextDocument): void {
    const f = this._files.get(rel);
    if (!f || f.whole) return;
    const text = doc.getText();
    const found = this._texts.get(rel);
    // A clean document with other text than the run left on disk is one VS Code has not reloaded yet.
    if (found !== undefined && (found === text || !doc.isDirty)) return;
    const lines = linesOf(text);
    const hunks = f.hunks.filter((h) => stillThere(h, lines));
    if (hunks.length !== f.hunks.length) this._set(rel, hunks.length ? { hunks } : undefined);
  }

  private _edited(e: vscode.TextDocumentChangeEvent): void {
    if (!e.contentChanges.length) return;
    const rel = this.relOf(e.document.uri);
    if (!rel) return;
    const f = this._files.get(rel)!;
    if (f.whole) return;
    // A clean document changed without the user's Undo or Redo: VS Code reloaded it from disk.
    if (!e.document.isDirty && e.reason === undefined) {
      if (this._awaitingRow || this._host.busy() || this._texts.get(rel) === e.document.getText()) return;
      this._set(rel, { hunks: [], whole: { reason: vscode.l10n.t('changed outside VS Code after the run'), runId: this._runs.at(-1) ?? '' } });
      return;
    }
    this._texts.delete(rel);
    const r = applyEdits(
      f.hunks,
      e.contentChanges.map((c) => ({
        start: { line: c.range.start.line, character: c.range.start.character },
        end: { line: c.range.end.line, character: c.range.end.character },
        text: c.text,
      })),
    );
    if (r.taken.length) this._set(rel, r.hunks.length ? { hunks: r.hunks } : undefined);
    else if (r.hunks.some((h, i) => h !== f.hunks[i])) {
      // Typing above changes only moves them, as VS Code moves their decorations: no redraw, and one write to the workspace's memory per pause.
      this._files.set(rel, { hunks: r.hunks });
      this._saveSoon();
    }
  }

  private _saveSoon(): void {
    if (this._saveTimer) return;
    this._saveTimer = setTimeout(() => {
      this._saveTimer = undefined;
      this._save();
    }, 500);
  }

  override dispose(): void {
    if (this._saveTimer) {
      clearTimeout(this._saveTimer);
      this._saveTimer = undefined;
      this._save();
    }
    // The chat closed: its changes leave the editor (unsaved: the workspace's memory keeps them).
    this._files = new Map();
    this._onDidChange.fire();
    super.dispose();
  }

  private _set(rel: string, f: PendingFile | undefined): void {
    if (f) this._files.set(rel, f);
    else this._files.delete(rel);
    if (this._quiet) return;
    this._changed();
  }

  private _changed(): void {
    if (this.left === 0) this._total = 0;
    this._save();
    this._onDidChange.fire();
  }

  private _save(): void {
    const saved: Saved = { runs: this._runs, total: this._total, files: Object.fromEntries(this._files) };
    const all = this._memento.get<Record<string, Saved>>(SAVED_KEY) ?? {};
    void this._memento.update(SAVED_KEY, { ...all, [this._key]: saved });
  }

  private _load(): void {
    const saved = this._memento.get<Record<string, Saved>>(SAVED_KEY)?.[this._key];
    if (!saved || typeof saved !== 'object') return;
    this._runs = Array.isArray(saved.runs) ? saved.runs.filter((r) => typeof r === 'string') : [];
    this._total = typeof saved.total === 'number' ? saved.total : 0;
    for (const [rel, f] of Object.entries(saved.files ?? {})) {
      if (!f || !Array.isArray(f.hunks)) continue;
      const hunks = f.hunks.filter(isHunk).map((h) => ({ ...h, id: `c${++this._nextId}` }));
      if (f.whole && typeof f.whole.reason === 'string') this._files.set(rel, { hunks: [], whole: { reason: f.whole.reason, runId: String(f.whole.runId) } });
      else if (hunks.length) this._files.set(rel, { hunks });
    }
  }
}

/** A file's pending changes: a whole-file decision counts one. */
function countOf(f: PendingFile | undefined): number {
  return !f ? 0 : f.whole ? 1 : f.hunks.length;
}

function isHunk(h: unknown): h is Hunk {
  if (typeof h !== 'object' || h === null) return false;
  const x = h as Record<string, unknown>;
  return typeof x.start === 'number' && typeof x.newText === 'string' && typeof x.oldText === 'string';
}

/** A file's text now, or why there is none to review by change. */
async function readText(abs: string): Promise<{ kind: 'text'; text: string } | { kind: 'missing' | 'binary' | 'large' }> {
  try {
    const stat = await fs.stat(abs);
    if (stat.size > MAX_REVIEW_BYTES) return { kind: 'large' };
    const bytes = await fs.readFile(abs);
    if (bytes.includes(0)) return { kind: 'binary' };
    return { kind: 'text', text: new TextDecoder().decode(bytes) };
  } catch {
    return { kind: 'missing' };
  }
}
