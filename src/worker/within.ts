/** A bounded wait: shutting down must not hang on Pi or its extensions. */

import type { Scheduler } from '../shared/batcher.ts';

/** Waits for `work`, but no longer than `ms` on `clock`; its failure is the caller's. */
export function within(clock: Scheduler, work: Promise<unknown>, ms: number): Promise<unknown> {
  let cancel: (() => void) | undefined;
  const timeout = new Promise((resolve) => (cancel = clock.setTimer(() => resolve(undefined), ms)));
  return Promise.race([work, timeout]).finally(() => cancel?.());
}
