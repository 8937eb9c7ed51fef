/** The Pi worker as the host's transcript mirror sees it: it holds every row, sends its events as the controller does (each new row named by the worker), and pages by id. */
import type { EarlierRows } from '../../src/extension/transcriptMirror.ts';
import { pageBefore, type EarlierPage } from '../../src/shared/transcript/paging.ts';
import { asSent, initialTranscript, reduceOne } from '../../src/shared/transcript/reduce.ts';
import type { TranscriptState } from '../../src/shared/transcript/rows.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';

export class FakeWorker implements EarlierRows {
  state: TranscriptState = initialTranscript;
  alive = true;
  /** How many pages the mirror asked for. */
  fetched = 0;

  /** What the worker sends for `events`, reduced onto its own transcript (a Changes update says whether it replaces a row). */
  emit(events: readonly WireEvent[]): WireEvent[] {
    return events.map((raw) => {
      const ev = asSent(this.state, raw);
      this.state = reduceOne(this.state, ev);
      return ev;
    });
  }

  live(): boolean {
    return this.alive;
  }

  async fetch(before: number, count: number): Promise<EarlierPage> {
    this.fetched++;
    return pageBefore(this.state, before, count);
  }
}
