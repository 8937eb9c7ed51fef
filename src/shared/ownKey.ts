/** Lookups in tables keyed by endpoint-chosen ids (tool-call ids), where `constructor` or `__proto__` must find nothing. */

/** `table[key]` if `table` has it as its own property, else undefined: never an `Object.prototype` member. */
export function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
