/** Loads the bundled Pi SDK in the worker on first use: requiring it costs about a second, off the main thread. */

import * as nodeModule from 'node:module';
import * as path from 'node:path';
import type { PiModule } from '../pi/piEntry.ts';

/** Pi 1.6 imports only on Node 22.15 or newer; VS Code 1.101 is the first whose extension host has it. */
const MIN_NODE: readonly [number, number] = [22, 15];

let loaded: PiModule | undefined;

function nodeVersionProblem(version = process.versions.node): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1])) return undefined;
  return `Pi needs Node ${MIN_NODE.join('.')} or newer in the extension host, but this VS Code runs Node ${version}. Update VS Code to 1.101 or newer.`;
}

/** Requires `dist/pi/pi.cjs` once and returns it; throws a readable error when it cannot run here. */
export function loadPi(distDir: string): PiModule {
  if (loaded) return loaded;
  const problem = nodeVersionProblem();
  if (problem) throw new Error(problem);
  // A computed path keeps esbuild from inlining the SDK into the activation bundle.
  const file = path.join(distDir, 'pi', 'pi.cjs');
  // Node 22.1+ caches the compiled bundle on disk, which makes every later start of the worker faster.
  try {
    (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  } catch {
    // A read-only temp directory only costs the speed-up.
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a runtime require of a computed path is the point: lazy, and not bundled
  loaded = require(file) as PiModule;
  return loaded;
}
