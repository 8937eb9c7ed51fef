/** Mermaid's `getConfig()` copy of its configuration, made the same but cheaper (the build puts it into Mermaid: esbuild.mjs). */

type Config = Record<string, unknown>;

/**
 * What Mermaid's `assignWithDepth({}, src)` returns (depth 2): the top level and each section copied, each
 * section's objects copied shallowly, arrays copied without repeated items, `null` values left out. Mermaid
 * calls `getConfig()` some fifty times for a small flowchart (per label, per edge) and its generic copy of the
 * whole configuration (every diagram type's section, some 900 values) was a fifth of a diagram's drawing.
 * Callers may change what they get, so each call still gets a copy of its own.
 */
export function copyConfig(src: Config): Config {
  const dst: Config = {};
  for (const key of Object.keys(src)) {
    const value = src[key];
    if (typeof value !== 'object') define(dst, key, value);
    else if (value !== null) define(dst, key, Array.isArray(value) ? distinct(value) : copySection(value as Config));
  }
  return dst;
}

function copySection(src: Config): Config {
  const dst: Config = {};
  for (const key of Object.keys(src)) {
    const value = src[key];
    if (typeof value !== 'object') define(dst, key, value);
    else if (value !== null) define(dst, key, Array.isArray(value) ? distinct(value) : Object.assign({}, value));
  }
  return dst;
}

function distinct(src: readonly unknown[]): unknown[] {
  const dst: unknown[] = [];
  for (const item of src) if (!dst.includes(item)) dst.push(item);
  return dst;
}

function define(dst: Config, key: string, value: unknown): void {
  // A plain assignment, except for a key that names the prototype's accessor, which Mermaid defines as data.
  if (key === '__proto__') Object.defineProperty(dst, key, { value, writable: true, enumerable: true, configurable: true });
  else dst[key] = value;
}
