/** What the runs of the open session did to files, as the transcript shows it: the Changes row, Open Diff, Undo. */

import type { FileChangeView, WireEvent } from '../shared/wire/events.ts';
import type { Logger } from '../shared/wire/workerProtocol.ts';
import { errorText, type ControllerOptions } from './agentSession.ts';
import type { OutsideFiles } from './checkpoints/sessionCheckpoints.ts';
import { FileChanges, type Before } from './fileChanges.ts';

/** The file changes of the open session's runs (`FileChanges`), shown as Changes rows; bookkeeping never breaks the event stream. */
export class RunFiles {
  private _files: FileChanges | undefined;
  private readonly _apply: (events: readonly WireEvent[]) => void;
  private readonly _log: Logger;
  private readonly _options: ControllerOptions;

  constructor(apply: (events: readonly WireEvent[]) => void, log: Logger, options: ControllerOptions) {
    this._apply = apply;
    this._log = log;
    this._options = options;
  }

  /** A session in `cwd` opened: its runs' changes are tracked from here on. */
  open(cwd: string): void {
    this._files = new FileChanges(cwd, this._options.storageDir);
  }

  /** The last run's Changes row, kept across a window reload, after the history of `sessionFile`. */
  showLast(sessionFile: string | undefined): void {
    const last = this._files?.lastFor(sessionFile);
    if (last) this._apply([{ type: 'changes', ...last }]);
  }

  /** Before the tool runs: the file's content as the run found it. */
  toolStarted(toolName: string, args: unknown): void {
    this._guard(() => this._files?.toolStarted(toolName, args));
  }

  /** The run settled: its Changes row, when it changed files (shown unless `show` is false: the checkpoints' row may replace it). */
  runSettled(sessionFile: string | undefined, show = true): { runId: string; files: FileChangeView[] } | undefined {
    const changes = this._guard(() => this._files?.runSettled(sessionFile));
    if (changes && show) this._apply([{ type: 'changes', ...changes }]);
    return changes;
  }

  /** A file's content before the current or last run changed it (Open Diff's left side). */
  before(p: string): Before | undefined {
    return this._files?.before(p);
  }

  /** Undoes the last run's change to `p`, or to all its files; the Changes row shows the result. */
  undo(p: string | undefined, runId?: string): { ok: boolean; message: string } {
    const files = this._files;
    if (!files) return { ok: false, message: 'No session is open.' };
    // Only the last run's before-contents are kept: an older row's Undo would undo the wrong run.
    if (runId !== undefined && runId !== files.view()?.runId) return { ok: false, message: "Only the last run's changes can be undone." };
    const result = p === undefined ? files.undoAll() : files.undo(p);
    const view = files.view();
    if (view) this._apply([{ type: 'changes', ...view }]);
    return result;
  }

  /**
   * The runs' files outside the workspace, for the checkpoints' rows: checkpoints hold only the workspace, so
   * a write to `~/.bashrc` is known from Pi's edit and write tools alone.
   */
  readonly outside: OutsideFiles = {
    link: (perToolRunId, runId) => this._guard(() => this._files?.link(perToolRunId, runId)),
    files: (runId) => this._guard(() => this._files?.outside(runId)) ?? [],
    owns: (file, runId) => this._guard(() => this._files?.isOutside(file, runId)) ?? false,
    undo: (file, runId) => {
      const files = this._files;
      if (!files) return undefined;
      return file === undefined ? files.undoOutside(runId) : files.isOutside(file, runId) ? files.undo(file) : undefined;
    },
  };

  /** File bookkeeping must never break the event stream: a failure is logged. */
  private _guard<T>(f: () => T): T | undefined {
    try {
      return f();
    } catch (err) {
      this._log.error(`Tracking file changes failed: ${errorText(err)}`);
      return undefined;
    }
  }
}
