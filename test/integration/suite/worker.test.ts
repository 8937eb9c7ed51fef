/** Pi's worker thread inside a real extension host: Pi never loads on the main thread, and its faults stay in the worker. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { makePiAgentDir } from '../../support/piConfig.ts';
import { startScriptedModel, type ScriptedModel } from '../../scriptedModel/server.ts';
import type { Scenario } from '../../scriptedModel/scenario.ts';
import { EXTENSION_ID, waitUntil } from './piHarness.ts';

/** The parts of the extension's client (src/extension/piClient.ts) this suite touches. */
interface Client {
  send(text: string, mode: 'prompt'): Promise<void>;
  readonly workerStarted: boolean;
  readonly state: {
    readonly messages: ReadonlyArray<{ readonly role: string; readonly code?: string; readonly blocks: ReadonlyArray<{ readonly text: string } | undefined> }>;
    readonly run: { readonly active: boolean; readonly outcome?: { readonly kind: string } };
  };
}

const REPO = path.resolve(__dirname, '..', '..', '..');

const answers = (n: number): Scenario =>
  ({
    name: 'integration-worker',
    steps: Array.from({ length: n }, (_, i) => ({ chunks: [{ text: `Worker answer ${i + 1}.`, split: 4 }], finish: 'stop' })),
  }) as Scenario;

function assistantTexts(c: Client): string[] {
  return c.state.messages.filter((m) => m.role === 'assistant').map((m) => m.blocks.map((b) => b?.text ?? '').join(''));
}

describe('Pi worker thread in VS Code', () => {
  let client: Client;
  let extension: vscode.Extension<{ client: Client }>;
  let model: ScriptedModel | undefined;

  before(async () => {
    extension = vscode.extensions.getExtension<{ client: Client }>(EXTENSION_ID)!;
    client = (await extension.activate()).client;
  });

  afterEach(async () => {
    await model?.close();
    model = undefined;
  });

  /** A scripted model and an agent dir holding the given fixture Pi extensions, in a new session. */
  async function usePi(steps: number, extensions: string[] = []): Promise<void> {
    model = await startScriptedModel({ scenario: answers(steps) });
    const agentDir = await makePiAgentDir({ baseUrl: model.url });
    fs.mkdirSync(path.join(agentDir, 'extensions'), { recursive: true });
    for (const name of extensions) fs.copyFileSync(path.join(REPO, 'test', 'fixtures', 'piExtensions', name), path.join(agentDir, 'extensions', name));
    await vscode.workspace.getConfiguration('piPanel').update('agentDir', agentDir, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('piPanel.newSession');
  }

  async function run(text: string): Promise<void> {
    const before = client.state.messages.length;
    void client.send(text, 'prompt');
    await waitUntil(() => client.state.messages.length > before && !client.state.run.active, `"${text}" to settle`, 60_000);
  }

  it('ships dist/worker.js and runs Pi there, never on the main thread', async () => {
    assert.ok(fs.existsSync(path.join(extension.extensionPath, 'dist', 'worker.js')), `no dist/worker.js in ${extension.extensionPath}`);
    await usePi(1);
    await run('Hello worker');
    assert.equal(client.workerStarted, true);
    assert.deepEqual(assistantTexts(client).slice(-1), ['Worker answer 1.']);
    const loaded = Object.keys(require.cache).filter((file) => /[\\/]pi[\\/]pi\.cjs$/.test(file));
    assert.deepEqual(loaded, [], 'the Pi SDK is not in the main thread');
  });

  it('answers commands while a Pi extension blocks the worker for 5 s', async () => {
    await usePi(1, ['spins.js']);
    const cwd = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    for (const f of ['spin-started', 'spin-ended']) fs.rmSync(path.join(cwd, f), { force: true });
    const running = run('SPIN please');
    await waitUntil(() => fs.existsSync(path.join(cwd, 'spin-started')), 'the extension to start spinning', 60_000);
    await vscode.commands.executeCommand('piPanel.showLog');
    assert.equal(fs.existsSync(path.join(cwd, 'spin-ended')), false, 'the command answered while the worker was still busy');
    await running;
    assert.deepEqual(assistantTexts(client).slice(-1), ['Worker answer 1.']);
  });

  it('keeps the transcript when a Pi extension calls process.exit(1), and the next prompt works', async () => {
    await usePi(2, ['exits.js']);
    await run('First question');
    await run('EXIT-NOW please');
    assert.equal(client.state.messages.at(-1)?.code, 'workerStopped');
    assert.equal(client.state.run.outcome?.kind, 'error');
    assert.deepEqual(assistantTexts(client), ['Worker answer 1.']);
    await run('Second question');
    assert.deepEqual(assistantTexts(client), ['Worker answer 1.', 'Worker answer 2.']);
  });
});
