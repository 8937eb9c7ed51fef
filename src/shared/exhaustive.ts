/** The ends of exhaustive `switch`es: a compile error when a case is missing, and a defined outcome if one slips through at run time. */

/** Compile-time proof that a `switch` handled every case; throws if one slips through. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}

/**
 * Compile-time proof that a `switch` handled every case; at run time a value of a newer version (an event
 * this build does not know) gets `unchanged` back, so it is ignored rather than fatal.
 */
export function unknownCase<T>(_value: never, unchanged: T): T {
  return unchanged;
}
