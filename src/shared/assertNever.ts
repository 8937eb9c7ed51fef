/** The end of every exhaustive `switch`: a compile error when a case is missing, a clear throw if one slips through at run time. */

/** Compile-time proof that a `switch` handled every case. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
