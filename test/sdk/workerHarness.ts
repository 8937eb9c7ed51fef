/** Runs the product's PiClient with the real worker (dist/worker.js) and Pi extensions from the fixtures, against the scripted model. */

import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PiClient, type ExtensionUiNotice, type UserNotification } from '../../src/extension/piClient.ts';
import { realScheduler } from '../../src/shared/batcher.ts';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import type { MessageView } from '../../src/shared/transcript/rows.ts';
import { runPhase } from '../../src/shared/run/runState.ts';
import type { WorkerConfig } from '../../src/shared/wire/workerProtocol.ts';
import type { HostRequestHandlers } from '../../src/extension/workerSupervisor.ts';
import type { TurnJournalStore } from '../../src/shared/run/turnJournal.ts';
import { startScriptedModel, type ScriptedModel } from '../scriptedModel/server.ts';
import type { Scenario } from '../scriptedModel/scenario.ts';
import { makePiAgentDir } from '../support/piConfig.ts';
import { MemoryLog } from '../support/memoryLog.ts';
import { loadBundledPi } from './harness.ts';
import { pollUntil } from '../support/poll.ts';
import { tempDir } from '../support/tempDir.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const workerFile = join(root, 'dist', 'worker.js');

export interface ClientHarness {
  readonly client: PiClient;
  readonly model: ScriptedModel;
  readonly log: MemoryLog;
  readonly emitted: WireEvent[];
  readonly notifications: UserNotification[];
  readonly surfaces: ExtensionUiNotice[];
  readonly cwd: string;
  readonly agentDir: string;
  until(predicate: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** Resolves once a run has settled more times than before `action` ran. */
  settledAfter(action: () => unknown, what: string): Promise<void>;
  dispose(): Promise<void>;
}

export async function startClientHarness(
  scenario: Scenario,
  extensions: readonly string[],
  options: {
    trusted?: boolean;
    approval?: WorkerConfig['approval'];
    approvalRules?: WorkerConfig['approvalRules'];
    /** Writes what the run needs into the agent directory and the workspace before the worker starts (mcp.json, .pi/). */
    prepare?: (dirs: { agentDir: string; cwd: string }) => void;
    /** Where the client journals the streaming turn (none: nowhere). */
    journal?: TurnJournalStore;
    /** The chat's storage folder, as VS Code gives one (none: the worker keeps nothing across starts). */
    storageDir?: string;
    /** How the host answers the worker's requests (the VS Code tools). */
    hostRequests?: HostRequestHandlers;
    /** Settings besides these (`vscodeTools`, `diagnosticsAfterEdit`). */
    config?: Partial<WorkerConfig>;
  } = {},
): Promise<ClientHarness> {
  if (!existsSync(workerFile)) loadBundledPi();
  const model = await startScriptedModel({ scenario });
  const agentDir = await makePiAgentDir({ baseUrl: model.url });
  mkdirSync(join(agentDir, 'extensions'), { recursive: true });
  for (const name of extensions) copyFileSync(join(root, 'test', 'fixtures', 'piExtensions', name), join(agentDir, 'extensions', name));
  const cwd = tempDir('pi-ws-');
  options.prepare?.({ agentDir, cwd });
  const config: WorkerConfig = {
    cwd,
    agentDir,
    trusted: options.trusted ?? true,
    tools: [],
    settleTimeoutMs: 5000,
    noResponseMs: 0,
    collapseThinking: true,
    approval: options.approval ?? 'off',
    ...(options.approvalRules ? { approvalRules: options.approvalRules } : {}),
    ...(options.storageDir ? { storageDir: options.storageDir } : {}),
    ...options.config,
  };
  const log = new MemoryLog();
  const client = new PiClient(
    (workerData) => new Worker(workerFile, { workerData }),
    () => config,
    log,
    realScheduler,
    { requestTimeoutMs: 10_000, pingMs: 1000, hangMs: 5_000, ...(options.hostRequests ? { hostRequests: options.hostRequests } : {}) },
    options.journal,
  );
  const emitted: WireEvent[] = [];
  const notifications: UserNotification[] = [];
  const surfaces: ExtensionUiNotice[] = [];
  client.onDidEmit((evs) => emitted.push(...evs));
  client.onDidNotify((n) => notifications.push(n));
  client.onDidExtensionUi((n) => surfaces.push(n));
  const until = (predicate: () => boolean, what: string, timeoutMs = 30_000) => pollUntil(predicate, what, timeoutMs);
  return {
    client,
    model,
    log,
    emitted,
    notifications,
    surfaces,
    cwd,
    agentDir,
    until,
    async settledAfter(action, what) {
      const settles = emitted.filter((e) => e.type === 'settled').length;
      // The action's own checks count: a failure in it fails the test, not just a settle that never comes.
      await Promise.all([
        Promise.resolve().then(action),
        until(() => emitted.filter((e) => e.type === 'settled').length > settles && runPhase(client.state.run) === 'idle', what),
      ]);
    },
    async dispose() {
      client.dispose();
      await model.close();
    },
  };
}

/**
 * For a `describe` block: `start()` gives a harness (as `startClientHarness`), and the one started last is
 * disposed after each test, also when the test failed.
 */
export function useClientHarness(): { start: typeof startClientHarness } {
  let current: ClientHarness | undefined;
  afterEach(async () => {
    await current?.dispose();
    current = undefined;
  });
  return {
    async start(...args) {
      current = await startClientHarness(...args);
      return current;
    },
  };
}

/** The notices among `emitted` (the worker sends rows as changes by id): their texts, in order. */
export function noticesSent(emitted: readonly WireEvent[]): string[] {
  return emitted.flatMap((e) => {
    const row = e.type === 'row' ? (e.row as MessageView) : undefined;
    return row?.role === 'notice' ? [row.blocks.map((b) => b?.text ?? '').join('')] : [];
  });
}
