/**
 * What the session controller will call around a prompt: a checkpoint before it (keyed by session and entry so
 * it is found again after a reload), and the run's Changes row as a diff against that checkpoint, so a file
 * changed by any tool or shell command is in it. Not wired yet: the controller still uses `fileChanges.ts`.
 */

import type { FileChangeView } from '../../shared/wire/events.ts';
import type { Checkpoint, CheckpointStore, RestoreResult } from './checkpointStore.ts';

/** The Changes row of a run, as `FileChanges.runSettled()` returns it today. */
export interface RunChanges {
  readonly runId: string;
  readonly files: FileChangeView[];
}

export class RunCheckpoints {
  private readonly _store: CheckpointStore;
  private readonly _onUnavailable: (message: string) => void;
  private _available: Promise<boolean> | undefined;

  /** `onUnavailable`: told once why there are no checkpoints (no git), so the caller can say so and keep per-tool capture. */
  constructor(store: CheckpointStore, onUnavailable: (message: string) => void) {
    this._store = store;
    this._onUnavailable = onUnavailable;
  }

  /** Whether checkpoints work here; asked once. */
  available(): Promise<boolean> {
    this._available ??= this._store.available().then((a) => {
      if (!a.available) this._onUnavailable(a.message);
      return a.available;
    });
    return this._available;
  }

  /** Checkpoints the workspace before the prompt of `entryId` in `sessionId`; undefined when checkpoints are unavailable. */
  async checkpointBeforePrompt(sessionId: string, entryId: string, label = 'Before prompt'): Promise<Checkpoint | undefined> {
    if (!(await this.available())) return undefined;
    return this._store.checkpoint(label, { sessionId, entryId });
  }

  /**
   * The Changes row of the run that started at checkpoint `checkpointId`: every file that differs from it in the
   * workspace now, or in checkpoint `endId` (the next prompt's) for a run that is not the latest.
   */
  async changesOfRun(checkpointId: string, endId?: string): Promise<RunChanges> {
    const diff = await this._store.diff(checkpointId, endId ?? 'workspace');
    return {
      runId: checkpointId,
      files: diff.map((f) => ({
        path: f.path,
        added: f.added,
        removed: f.removed,
        created: f.status === 'added',
        ...(f.note ? { note: f.note } : f.binary ? { note: 'it is a binary file' } : {}),
      })),
    };
  }

  /** Undo of the run's changes (`files`: only those): puts them back as at `checkpointId`; the result's `undoId` undoes the undo. */
  undoRun(checkpointId: string, files?: readonly string[]): Promise<RestoreResult> {
    return this._store.restore(checkpointId, files ? { files } : {});
  }
}
