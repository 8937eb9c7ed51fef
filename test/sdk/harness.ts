/** Runs the product's SessionController on the REAL Pi SDK (the built dist/pi/pi.cjs) against the scripted model. */

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PiModule } from '../../src/pi/piEntry.ts';
import { realScheduler } from '../../src/shared/batcher.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import { runPhase } from '../../src/shared/run/runState.ts';
import { createPiSession } from '../../src/worker/piSessions.ts';
import { SessionController } from '../../src/worker/sessionController.ts';
import { startScriptedModel, type ScriptedModel } from '../scriptedModel/server.ts';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { MemoryLog } from '../support/memoryLog.ts';
import { makePiAgentDir } from '../support/piConfig.ts';
import { pollUntil } from '../support/poll.ts';
import { tempDir } from '../support/tempDir.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Loads the Pi bundle the extension ships, building it once if needed. */
export function loadBundledPi(): PiModule {
  const bundle = join(root, 'dist', 'pi', 'pi.cjs');
  if (!existsSync(bundle)) execFileSync(process.execPath, [join(root, 'esbuild.mjs')], { cwd: root, stdio: 'inherit' });
  return createRequire(import.meta.url)(bundle) as PiModule;
}

export function scenarioFile(name: string): Scenario {
  return JSON.parse(readFileSync(join(root, 'test', 'fixtures', 'scenarios', `${name}.json`), 'utf8')) as Scenario;
}

export interface Harness {
  readonly controller: SessionController;
  readonly model: ScriptedModel;
  readonly log: MemoryLog;
  readonly emitted: WireEvent[];
  readonly restored: string[][];
  readonly agentDir: string;
  readonly cwd: string;
  /** Resolves when the run state is idle again after being active (agent_settled seen). */
  settled(timeoutMs?: number): Promise<void>;
  /** Resolves when `predicate` holds for the controller's state. */
  until(predicate: () => boolean, timeoutMs?: number, what?: string): Promise<void>;
  /** A window reload: this controller goes, a new one opens the same workspace's latest session with the same storage and model. */
  reload(): Promise<Harness>;
  dispose(): Promise<void>;
}

type HarnessOptions = { trusted?: boolean; storageDir?: string; checkpoints?: boolean };

export async function startHarness(pi: PiModule, scenario: Scenario, settings?: Record<string, unknown>, options: HarnessOptions = {}): Promise<Harness> {
  const model = await startScriptedModel({ scenario });
  const agentDir = await makePiAgentDir({ baseUrl: model.url, settings });
  const cwd = tempDir('pi-ws-');
  return attach(pi, model, agentDir, cwd, options);
}

function attach(pi: PiModule, model: ScriptedModel, agentDir: string, cwd: string, options: HarnessOptions): Harness {
  const log = new MemoryLog();
  const controller = new SessionController(
    ({ fresh }) => createPiSession(pi, { cwd, agentDir, fresh, trusted: options.trusted ?? true, tools: [] }),
    log,
    realScheduler,
    {
      settleTimeoutMs: 5000,
      noResponseMs: 0,
      ...(options.storageDir ? { storageDir: options.storageDir } : {}),
      ...(options.checkpoints ? { checkpoints: true } : {}),
    },
  );
  const emitted: WireEvent[] = [];
  const restored: string[][] = [];
  controller.onDidEmit((evs) => emitted.push(...evs));
  controller.onDidRestoreInput((t) => restored.push([...t.texts]));
  const until = (predicate: () => boolean, timeoutMs = 20_000, what = 'condition') => pollUntil(predicate, what, timeoutMs);
  return {
    controller,
    model,
    log,
    emitted,
    restored,
    agentDir,
    cwd,
    until,
    settled: (timeoutMs = 20_000) =>
      until(() => emitted.some((e) => e.type === 'settled') && runPhase(controller.state.run) === 'idle', timeoutMs, 'agent_settled'),
    async reload() {
      controller.dispose();
      return attach(pi, model, agentDir, cwd, options);
    },
    async dispose() {
      controller.dispose();
      await model.close();
    },
  };
}
