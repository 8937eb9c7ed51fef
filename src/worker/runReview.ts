/** A run's file changes: recorded as Pi's tools run, its Changes row when it settles and again later, a file before it (Open Diff), Undo, clearing the checkpoints. */

import type { CommandHandlers } from '../shared/wire/commands.ts';
import type { FileBefore, Logger } from '../shared/wire/workerProtocol.ts';
import { errorText, type AgentSessionLike } from './agentSession.ts';
import type { RunChangesView, SessionCheckpoints } from './checkpoints/sessionCheckpoints.ts';
import type { Restoring } from './restoring.ts';
import type { RunFiles } from './runFiles.ts';
import type { AgentSessionEvent } from '@earendil-works/pi-coding-agent';
import { sessionIdOf, userEntriesAfter } from './sessionEntries.ts';

/** Answers from the run's checkpoint where it has one, else from what Pi's edit and write tools kept. */
export class RunReview {
  private readonly _checkpoints: SessionCheckpoints;
  private readonly _files: RunFiles;
  private readonly _restoring: Restoring;
  private readonly _log: Logger;
  private readonly _show: (row: RunChangesView) => void;
  private readonly _opened: () => Promise<unknown>;

  /** The commands of the table (`COMMANDS`) this part answers. */
  readonly commands: CommandHandlers<'fileBefore' | 'undo' | 'clearCheckpoints'> = {
    fileBefore: async ({ path, runId }) => {
      const before = await this.fileBefore(path, runId);
      return before ? { before } : {};
    },
    undo: ({ path, runId }) => this.undo(path, runId),
    clearCheckpoints: async () => {
      // The checkpoints are the open session's workspace's.
      await this._opened();
      return { message: await this._checkpoints.clear() };
    },
  };

  /** `show` puts a Changes row in the transcript; `opened` resolves once the session has opened (or could not). */
  constructor(
    checkpoints: SessionCheckpoints,
    files: RunFiles,
    restoring: Restoring,
    log: Logger,
    show: (row: RunChangesView) => void,
    opened: () => Promise<unknown>,
  ) {
    this._opened = opened;
    this._checkpoints = checkpoints;
    this._files = files;
    this._restoring = restoring;
    this._log = log;
    this._show = show;
  }

  /** Pi's event in `session`: a tool call's file is recorded before it changes, a user message marks the checkpoint's place. */
  heard(event: AgentSessionEvent, session: AgentSessionLike | undefined): void {
    if (event.type === 'tool_execution_start') this._files.toolStarted(event.toolName, event.args);
    if (event.type === 'message_start' && event.message.role === 'user') this._checkpoints.userMessageStarted(sessionIdOf(session));
  }

  /** A tool (a VS Code rename) is about to change `files` (absolute): their content is recorded as an edit's would be. */
  willWrite(files: readonly string[]): void {
    for (const file of files) this._files.toolStarted('write', { path: file });
  }

  /** A run of `session` settled: its Changes row, shown while `live` says the session still is; both records are kept. */
  settled(session: AgentSessionLike | undefined, live: () => boolean): void {
    if (!this._checkpoints.capturing) {
      this._files.runSettled(session?.sessionFile);
      return;
    }
    // The checkpoints' row (every file, whoever changed it) unless its checkpoint failed, else the per-tool one.
    const perTool = this._files.runSettled(session?.sessionFile, false);
    void this._checkpoints
      .settled(sessionIdOf(session), (leafId) => userEntriesAfter(session, leafId), perTool?.runId)
      .then(({ taken, row }) => {
        const shown = taken ? row : perTool;
        if (shown && live()) this._show(shown);
      });
  }

  /** The last run's Changes row of `session` (after a reload, a switch) while it is still `current`: from its checkpoints, else the per-tool record. */
  showLast(session: AgentSessionLike, current: () => AgentSessionLike | undefined): void {
    const file = session.sessionFile;
    void this._checkpoints.last(sessionIdOf(session)).then((row) => {
      if (session !== current()) return;
      if (row) this._show(row);
      else this._files.showLast(file);
    });
  }

  /**
   * A file's content before run `runId` (a Changes row's), or the current or last run, changed it (Open Diff's
   * left side): from the run's checkpoint, else from what Pi's edit and write tools kept.
   */
  async fileBefore(p: string, runId?: string): Promise<FileBefore | undefined> {
    try {
      const known = await this._checkpoints.fileBefore(p, this._checkpoints.owns(runId) ? runId : undefined);
      if (known) return known;
    } catch (err) {
      this._log.warn(`Reading ${p} from a checkpoint failed: ${errorText(err)}`);
    }
    return this._files.before(p);
  }

  /** Undoes run `runId`'s change to `p` (any run with a checkpoint: see `Restoring.undoRun`; else the last run), or to all its files; the Changes row shows the result. */
  async undo(p: string | undefined, runId?: string): Promise<{ ok: boolean; message: string }> {
    if (!this._checkpoints.owns(runId)) return this._files.undo(p, runId);
    return this._restoring.undoRun(p, runId!);
  }
}
