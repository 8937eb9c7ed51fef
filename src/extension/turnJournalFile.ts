/** The streaming turn's journal as one JSON file in the extension's workspace storage, replaced whole at each write. */

import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { parseJournaledTurn, type JournaledTurn, type TurnJournalStore } from '../shared/run/turnJournal.ts';
import type { Logger } from '../shared/wire/workerProtocol.ts';

/**
 * `file` in the extension's storage; a write goes to a temporary file renamed over it, so a crash mid-write leaves
 * the previous one. While a reply streams, writes run off the extension host's thread (a rename over a file can
 * take tens of milliseconds on a busy disk), one at a time, the newest waiting; `writeNow` and `clear` are
 * synchronous and win over any write still under way.
 */
export class TurnJournalFile implements TurnJournalStore {
  private readonly _file: string;
  private readonly _log: Logger;
  /** The background writes under way, settled once the newest is on disk; `_next` is the newest turn given since. */
  private _writing: Promise<void> | undefined;
  private _next: JournaledTurn | undefined;
  /** Bumped by `writeNow` and `clear`: a background write started before either must not land after it. */
  private _generation = 0;
  /** What the last `writeNow` wrote (undefined after a `clear`). */
  private _now: JournaledTurn | undefined;

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

  write(turn: JournaledTurn): void {
    this._next = turn;
    if (this._writing) return;
    const writing = this._drain().finally(() => {
      if (this._writing === writing) this._writing = undefined;
      // Given after the drain's last look and before this ran.
      if (this._next && !this._writing) this.write(this._next);
    });
    this._writing = writing;
  }

  /** Settles once no background write is under way (at once when none is). */
  async idle(): Promise<void> {
    while (this._writing) await this._writing;
  }

  writeNow(turn: JournaledTurn): void {
    this._generation++;
    this._next = undefined;
    this._now = turn;
    this._writeSync(turn);
  }

  /** Puts back what the last `writeNow` or `clear` left, over a background write that landed after it. */
  private _settle(): void {
    if (this._now) this._writeSync(this._now);
    else this._remove();
  }

  private _writeSync(turn: JournaledTurn): void {
    try {
      mkdirSync(path.dirname(this._file), { recursive: true });
      const tmp = `${this._file}.tmp`;
      writeFileSync(tmp, JSON.stringify(turn));
      renameSync(tmp, this._file);
    } catch (err) {
      this._log.warn(`The streaming turn's journal could not be written: ${String(err)}`);
    }
  }

  private async _drain(): Promise<void> {
    const tmp = `${this._file}.writing`;
    try {
      for (let turn = this._next; turn; turn = this._next) {
        this._next = undefined;
        const generation = this._generation;
        mkdirSync(path.dirname(this._file), { recursive: true });
        await writeFile(tmp, JSON.stringify(turn));
        if (generation !== this._generation) {
          await rm(tmp, { force: true });
          continue;
        }
        await rename(tmp, this._file);
        // Cleared or written at once while the rename ran: this older turn must not stay.
        if (generation !== this._generation) this._settle();
      }
    } catch (err) {
      this._log.warn(`The streaming turn's journal could not be written: ${String(err)}`);
    }
  }

  clear(): void {
    this._generation++;
    this._next = undefined;
    this._now = undefined;
    this._remove();
  }

  private _remove(): void {
    try {
      rmSync(this._file, { force: true });
    } catch (err) {
      this._log.warn(`The turn journal could not be removed: ${String(err)}`);
    }
  }
}
