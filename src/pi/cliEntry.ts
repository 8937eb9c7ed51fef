/**
 * Entry of `dist/pi/cli.cjs`: Pi's `pi` command (what its `dist/cli.js` does) over the SDK bundle beside it,
 * so an extension can start `pi` again (subagents) without the package carrying a second copy of Pi.
 */

import * as nodeModule from 'node:module';
import type { PiModule } from './piEntry.ts';

// The worker's copy of the SDK bundle is compiled already; a child `pi` reuses that cache when it can.
try {
  (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
} catch {
  // A read-only temp directory only costs the speed-up.
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the SDK bundle stays a separate file (esbuild.mjs marks it external)
const pi = require('./pi.cjs') as PiModule;
pi.setupCli();
void pi.main(process.argv.slice(2));
