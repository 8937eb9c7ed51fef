/** What the SDK suites share: the Pi bundle loaded once, a fresh storage folder per test, the harness disposed after it, and scenario steps. */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PiModule } from '../../src/pi/piEntry.ts';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { loadBundledPi, startHarness, type Harness } from './harness.ts';

/** A scripted model step that calls tool `name`. */
export const call = (id: string, name: string, args: Record<string, unknown>) => ({
  chunks: [{ toolCall: { id, name, arguments: args } }],
  finish: 'tool_calls',
});

/** A scripted model step that answers `text` and stops. */
export const say = (text: string) => ({ chunks: [{ text }], finish: 'stop' });

/** The suite's harness: `start()` makes one for the current test; it and its storage folder are gone after the test. */
export interface SdkSuite {
  /** The current test's storage folder (the extension's storage: checkpoints, the last run's changes). */
  readonly storage: string;
  /** The current test's harness (after `start()`, or the one `reload()` returned). */
  readonly h: Harness;
  start(scenario: Scenario, options?: { checkpoints?: boolean }): Promise<Harness>;
  /** A window reload of the current harness (see `Harness.reload`). */
  reload(): Promise<Harness>;
}

/** Registers the suite's hooks; call it inside `describe`. */
export function useSdkSuite(): SdkSuite {
  let pi: PiModule;
  let h: Harness | undefined;
  let storage = '';
  before(() => {
    pi = loadBundledPi();
  });
  beforeEach(() => {
    storage = mkdtempSync(join(tmpdir(), 'pi-storage-'));
  });
  afterEach(async () => {
    await h?.dispose();
    h = undefined;
    rmSync(storage, { recursive: true, force: true });
  });
  return {
    get storage() {
      return storage;
    },
    get h() {
      if (!h) throw new Error('start() the harness first');
      return h;
    },
    async start(scenario, options = {}) {
      h = await startHarness(pi, scenario, undefined, { storageDir: storage, ...options });
      return h;
    },
    async reload() {
      if (!h) throw new Error('start() the harness first');
      h = await h.reload();
      return h;
    },
  };
}
