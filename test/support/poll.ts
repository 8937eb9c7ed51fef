/** Waits for a condition only the current run can make true, polling it; rejects with `what` after `timeoutMs`. */
export function pollUntil(predicate: () => boolean, what: string, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const started = Date.now();
    const check = () => {
      if (predicate()) return resolve();
      if (Date.now() - started > timeoutMs) return reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      setTimeout(check, 10);
    };
    check();
  });
}
