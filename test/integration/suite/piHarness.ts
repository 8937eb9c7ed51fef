/** The integration suite's one touch point with the extension's test API and the scripted model: adapt here. */
import * as vscode from 'vscode';
import { makePiAgentDir } from '../../support/piConfig.ts';
import { startScriptedModel } from '../../scriptedModel/server.ts';
import type { ScriptedModel } from '../../scriptedModel/server.ts';
import type { Scenario } from '../../scriptedModel/scenario.ts';

export const EXTENSION_ID = 'pi-agent-panel.pi-agent-panel';

/** A transcript as `controller.snapshot()` returns it. */
export interface Snapshot {
  readonly messages: ReadonlyArray<{
    readonly role: string;
    readonly blocks: ReadonlyArray<{ readonly kind: string; readonly text?: string }>;
    readonly stopReason?: string;
  }>;
  readonly runState: string;
}

/** The view of the extension's controller the suite uses (adapted from its real API below). */
export interface PanelController {
  prompt(text: string): Promise<void>;
  cancel(): Promise<void>;
  snapshot(): Snapshot;
  onDidSettle(cb: () => void): vscode.Disposable;
}

/** The parts of the extension's `PiClient` (src/extension/piClient.ts) the suite touches. */
interface HostController {
  send(text: string, mode: 'steer' | 'followUp'): Promise<void>;
  cancel(): Promise<void>;
  readonly state: {
    readonly messages: ReadonlyArray<{
      readonly role: string;
      readonly blocks: ReadonlyArray<{ readonly kind: string; readonly text: string } | undefined>;
      readonly stopReason?: string;
    }>;
    readonly run: { readonly active: boolean; readonly cancelling: boolean; readonly retry?: unknown; readonly compaction?: unknown };
  };
  onDidEmit(listener: (events: ReadonlyArray<{ readonly type: string }>) => void): vscode.Disposable;
}

function adapt(host: HostController): PanelController {
  return {
    prompt: (text) => host.send(text, 'followUp'),
    cancel: () => host.cancel(),
    snapshot() {
      const { messages, run } = host.state;
      return {
        messages: messages.map((m) => ({
          role: m.role,
          stopReason: m.stopReason,
          blocks: m.blocks.filter((b) => b !== undefined).map((b) => ({ kind: b.kind, text: b.text })),
        })),
        runState: run.cancelling ? 'cancelling' : run.compaction ? 'compacting' : run.retry ? 'retrying' : run.active ? 'running' : 'idle',
      };
    },
    onDidSettle: (cb) => host.onDidEmit((events) => events.some((e) => e.type === 'settled') && cb()),
  };
}

/** Activates the extension (if needed) and returns its controller. */
export async function activatePanel(): Promise<{ extension: vscode.Extension<unknown>; controller: PanelController }> {
  const extension = vscode.extensions.getExtension<{ client: HostController }>(EXTENSION_ID);
  if (!extension) throw new Error(`extension ${EXTENSION_ID} is not installed`);
  const api = await extension.activate();
  if (!api?.client) throw new Error('activate() returned no { client }');
  return { extension, controller: adapt(api.client) };
}

/** A scripted model plus a Pi agent dir naming it, pointed at by the `piPanel.agentDir` setting. */
export interface ScriptedPi {
  readonly model: ScriptedModel;
  readonly agentDir: string;
  dispose(): Promise<void>;
}

/** Starts the scripted model on `scenario` and points the panel at a fresh agent dir for it, in a new session. */
export async function useScriptedPi(scenario: Scenario): Promise<ScriptedPi> {
  const model = await startScriptedModel({ scenario });
  const agentDir = await makePiAgentDir({ baseUrl: model.url });
  process.env.PI_CODING_AGENT_DIR = agentDir;
  await vscode.workspace.getConfiguration('piPanel').update('agentDir', agentDir, vscode.ConfigurationTarget.Global);
  await vscode.commands.executeCommand('piPanel.newSession');
  return {
    model,
    agentDir,
    async dispose() {
      await model.close();
    },
  };
}

/** Resolves at the next settle (the controller's `onDidSettle`), or rejects after `timeoutMs`. */
export function nextSettle(controller: PanelController, timeoutMs = 30_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no settle within ${timeoutMs} ms`));
    }, timeoutMs);
    const sub = controller.onDidSettle(() => {
      clearTimeout(timer);
      off();
      resolve();
    });
    function off(): void {
      sub.dispose();
    }
  });
}

/** Polls until `predicate` holds, or throws after `timeoutMs`. */
export async function waitUntil(predicate: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Concatenated text blocks of a message. */
export function textOf(message: Snapshot['messages'][number]): string {
  return message.blocks
    .filter((b) => b.kind === 'text')
    .map((b) => b.text ?? '')
    .join('');
}
