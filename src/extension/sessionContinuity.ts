/** Which session a chat's next worker opens: the chat's first choice, then the session open now, quietly or with its history. */

import type { SessionStart } from '../shared/wire/workerProtocol.ts';

/** One chat's thread through its workers: a worker that stops (a fault, a restart, an idle stop) leaves the next one where it was. */
export class SessionContinuity {
  /** How the next worker opens its session before it resumes one (a chat in a new tab starts empty or on a saved file). */
  private _first: SessionStart;
  /** The session file to reopen quietly in the next worker, so the conversation continues. */
  private _resumeFile: string | undefined;
  private _file: string | undefined;

  /** `first`: the session the chat opens with; none continues the most recent one (the sidebar's habit). */
  constructor(first: SessionStart) {
    this._first = first;
  }

  /** The session file open now, when it has one. */
  get file(): string | undefined {
    return this._file;
  }

  /** How the next worker opens its session. */
  next(): SessionStart {
    return this._resumeFile ? { resume: this._resumeFile } : this._first;
  }

  /** The worker says which session is open: once one is, a later worker continues it (or, without a file, the most recent one). */
  opened(ready: boolean, file: string | undefined): void {
    this._file = file;
    if (ready) this._first = file ? { open: file } : {};
  }

  /** A request moved off or replaced the session: a worker started after a fault does not reopen the file it was in. */
  moved(): void {
    this._resumeFile = undefined;
  }

  /**
   * The worker stopped: which way the next one continues. Quietly, the transcript on screen staying, while the
   * host holds every row; once rows before the host's window exist (`pendingEarlier`), only the old worker could
   * page them back, so the next one opens the session with its history instead (a snapshot, from which the view
   * pages as for any resumed session). True in that case.
   */
  continueIn(pendingEarlier: number): boolean {
    const file = this._file ?? this._resumeFile;
    if (file && pendingEarlier > 0) {
      this._resumeFile = undefined;
      this._first = { open: file };
      return true;
    }
    this._resumeFile = file;
    return false;
  }
}
