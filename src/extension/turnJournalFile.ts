/** The streaming turn's journal as one JSON file in the extension's workspace storage, replaced whole at each write. */

import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseJournaledTurn, type JournaledTurn, type TurnJournalStore } from '../shared/run/turnJournal.ts';
import type { Logger } from '../shared/wire/workerProtocol.ts';

/** `file` in the extension's storage; a write goes to a temporary file renamed over it, so a crash mid-write leaves the previous one. */
export class TurnJournalFile implements TurnJournalStore {
  private readonly _file: string;
  private readonly _log: Logger;

  constructor(file: string, log: Logger) {
    this._file = file;
    this._log = log;
  }

  load(): JournaledTurn | undefined {
    try {
      return parseJournaledTurn(JSON.parse(readFileSync(this._file, 'utf8')));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this._log.warn(`The interrupted turn's journal could not be read: ${String(err)}`);
      return undefined;
    }
  }

  // Synchronous on purpose: a few small writes a second, and a crash right after one must find it on disk.
  write(turn: JournaledTurn): void {
    try {
      mkdirSync(path.dirname(this._file), { recursive: true });
      const tmp = `${this._file}.tmp`;
      writeFileSync(tmp, JSON.stringify(turn));
      renameSync(tmp, this._file);
    } catch (err) {
      this._log.warn(`The streaming turn's journal could not be written: ${String(err)}`);
    }
  }

  clear(): void {
    try {
      rmSync(this._file, { force: true });
    } catch (err) {
      this._log.warn(`The turn journal could not be removed: ${String(err)}`);
    }
  }
}
