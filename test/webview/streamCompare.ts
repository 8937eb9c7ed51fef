/** Streams many texts through the chat view inside the page, frames driven by the test, and reports which ones end unlike a one-shot render. */

import type { Page } from 'playwright-core';
import { initialTranscript } from '../../src/shared/transcript/reduce.ts';
import { T0 } from './builders.ts';
import { asHostSends, session } from './harness.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';

/** One stream: a name for the report, its deliveries, and whether the text block ends (blockEnd) before the reply does. */
export interface Stream {
  readonly name: string;
  readonly chunks: readonly string[];
  readonly blockEnd: boolean;
}

/** A stream whose DOM at its end differs from a one-shot render of its text, with both. */
export interface Divergence {
  readonly name: string;
  readonly streamed: string;
  readonly oneShot: string;
}

/**
 * Streams each text in the page, one delivery per frame, ends it, and renders the joined text in one
 * delivery; returns the streams whose DOM differs from that one-shot render. The frames are driven from
 * here: the page's `requestAnimationFrame` queues callbacks that run when a delivery asks for its frame, so
 * every delivery is rendered before the next arrives without waiting for the display's clock, and a batch
 * of streams is one round trip. Each stream starts from an empty transcript.
 */
export async function divergent(page: Page, streams: readonly Stream[]): Promise<Divergence[]> {
  const at = T0;
  // What the host would send for each delivery (a snapshot, then the worker's changes), worked out here in delivery order.
  const sent = (events: WireEvent[]) => asHostSends(page, { type: 'batch', events });
  const start: WireEvent[] = [
    { type: 'assistantStart', at },
    { type: 'blockStart', index: 0, kind: 'text', at },
  ];
  const end: WireEvent = { type: 'assistantEnd', stopReason: 'stop', at };
  const plans = streams.map((s) => ({
    name: s.name,
    reset: asHostSends(page, { type: 'snapshot', state: initialTranscript, session }),
    streamed: [
      sent(start),
      ...s.chunks.map((text) => sent([{ type: 'delta', index: 0, text }])),
      sent([...(s.blockEnd ? [{ type: 'blockEnd' as const, index: 0, at }] : []), end]),
    ],
    oneShot: sent([...start, { type: 'delta', index: 0, text: s.chunks.join('') }, { type: 'blockEnd', index: 0, at }, end]),
  }));
  return page.evaluate(
    async ({ plans }) => {
      const w = globalThis as unknown as {
        dispatchEvent(e: unknown): boolean;
        MessageEvent: new (t: string, i: { data: unknown }) => unknown;
        requestAnimationFrame(cb: (t: number) => void): number;
        setTimeout(cb: () => void, ms: number): number;
        performance: { now(): number };
        document: { querySelector(s: string): unknown; querySelectorAll(s: string): ArrayLike<{ innerHTML: string }> };
      };
      const queued: ((t: number) => void)[] = [];
      w.requestAnimationFrame = (cb) => queued.push(cb);
      const frame = () => {
        const now = w.performance.now();
        for (const cb of queued.splice(0)) cb(now);
      };
      const send = (data: unknown) => {
        w.dispatchEvent(new w.MessageEvent('message', { data }));
        frame();
      };
      // Deferred work (highlighting, line groups, table chunks) runs in tasks after the frame.
      const settle = async () => {
        for (let i = 0; i < 100 && w.document.querySelector('[data-highlight], [data-lines], [data-rows], [data-math-pending]'); i++)
          await new Promise((r) => w.setTimeout(() => r(0), 0));
        frame();
      };
      const last = () => {
        const all = w.document.querySelectorAll('[data-role="assistant"] .md');
        return all[all.length - 1]?.innerHTML ?? '';
      };
      const out: { name: string; streamed: string; oneShot: string }[] = [];
      for (const s of plans) {
        send(s.reset);
        for (const m of s.streamed) send(m);
        await settle();
        const streamed = last();
        send(s.oneShot);
        await settle();
        const oneShot = last();
        if (streamed !== oneShot) out.push({ name: s.name, streamed, oneShot });
      }
      return out;
    },
    { plans },
  );
}

/** Runs `streams` in batches of `size` (one round trip each); all divergences, in order. */
export async function allDivergent(page: Page, streams: readonly Stream[], size = 200): Promise<Divergence[]> {
  const out: Divergence[] = [];
  for (let i = 0; i < streams.length; i += size) out.push(...(await divergent(page, streams.slice(i, i + size))));
  return out;
}

/** A failure report: how many streams diverge, then the first few with both renders. */
export function report(failures: readonly Divergence[], total: number, what: string): string {
  const shown = failures.slice(0, 5).map((f) => `${f.name}\n--- streamed\n${f.streamed}\n--- one-shot\n${f.oneShot}`);
  return `${failures.length} of ${total} streams diverge (${what}):\n${shown.join('\n')}`;
}
