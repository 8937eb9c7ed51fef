/** What the benches share: a numeric command-line option, and quantiles of their samples. */

/** The number after `--name` on the command line, or `fallback`. */
export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

/** The `q` quantile (0..1) of `xs`, a sample itself (no interpolation); NaN for none. */
export function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
}

export const median = (xs: readonly number[]): number => quantile(xs, 0.5);
