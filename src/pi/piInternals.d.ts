/** Types of the Pi modules the SDK bundle takes from Pi's `dist/` past its `exports` map (esbuild.mjs resolves them). */

declare module '@earendil-works/pi-coding-agent/dist/cli/setup.js' {
  /** What Pi's CLI does before `main()`: process title, `PI_CODING_AGENT`/`AI_AGENT`, quiet warnings, the HTTP dispatcher. */
  export function setupCli(): void;
}
