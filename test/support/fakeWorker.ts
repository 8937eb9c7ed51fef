/** The Pi worker as the host's transcript mirror sees it: it holds every row, sends the changes its events made as the controller does (rows by id), and pages by id. */
import type { EarlierRows } from '../../src/extension/transcriptMirror.ts';
import { pageBefore, type EarlierPage } from '../../src/shared/transcript/paging.ts';
import { asSent, initialTranscript, reduceOne } from '../../src/shared/transcript/reduce.ts';
import type { TranscriptState } from '../../src/shared/transcript/rows.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { RowChanges } from '../../src/worker/rowChanges.ts';

export class FakeWorker implements EarlierRows {
  state: TranscriptState = initialTranscript;
  alive = true;
  /** How many pages the mirror asked for. */
  fetched = 0;

  private readonly _changes = new RowChanges();

  /** What the worker sends for `events` (the changes they made), reduced onto its own transcript as SessionTranscript does. */
  emit(events: readonly WireEvent[]): WireEvent[] {
    const out: WireEvent[] = [];
    for (const raw of events) {
      const prev = this.state;
      this.state = reduceOne(prev, asSent(prev, raw));
      this._changes.step(prev, this.state, raw, out);
    }
    return out;
  }

  live(): boolean {
    return this.alive;
  }

  async fetch(before: number, count: number): Promise<EarlierPage> {
    this.fetched++;
    return pageBefore(this.state, before, count);
  }
}
