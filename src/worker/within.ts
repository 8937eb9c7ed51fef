/** A bounded wait: shutting down must not hang on Pi or its extensions, nor a tool call on the main thread's answer. */

import type { Scheduler } from '../shared/batcher.ts';

/** Waits for `work`, but no longer than `ms` on `clock`: then it gives `otherwise()` (undefined without it); its failure is the caller's. */
export function within<T>(clock: Scheduler, work: Promise<T>, ms: number): Promise<T | undefined>;
export function within<T>(clock: Scheduler, work: Promise<T>, ms: number, otherwise: () => T): Promise<T>;
export function within<T>(clock: Scheduler, work: Promise<T>, ms: number, otherwise?: () => T): Promise<T | undefined> {
  let cancel: (() => void) | undefined;
  const timeout = new Promise<T | undefined>((resolve) => (cancel = clock.setTimer(() => resolve(otherwise?.()), ms)));
  return Promise.race([work, timeout]).finally(() => cancel?.());
}
