/** The panel inside a real VS Code: activation, commands, the view, a run, cancel and a new session. */
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Scenario } from '../../scriptedModel/scenario.ts';
import { activatePanel, nextSettle, textOf, useScriptedPi, waitUntil } from './piHarness.ts';
import type { PanelController, ScriptedPi } from './piHarness.ts';

const PLAIN: Scenario = {
  name: 'integration-plain',
  steps: [{ chunks: [{ text: 'Hello from the scripted model.', split: 6 }], finish: 'stop' }],
} as Scenario;

/** What the model says before it holds at gate "mid" until the test cancels; the rest never streams. */
const BEFORE_HOLD = 'one two three four five six seven eight nine ten '.repeat(3);
const AFTER_HOLD = 'eleven twelve thirteen.';

const HELD: Scenario = {
  name: 'integration-held',
  steps: [{ chunks: [{ text: BEFORE_HOLD, split: 5 }, { hold: 'mid' }, { text: AFTER_HOLD }], finish: 'stop' }],
} as Scenario;

describe('Pi Agent Panel in VS Code', () => {
  let controller: PanelController;
  let pi: ScriptedPi | undefined;

  before(async () => {
    ({ controller } = await activatePanel());
  });

  afterEach(async () => {
    await pi?.dispose();
    pi = undefined;
  });

  it('does not load the Pi SDK at activation (it costs about a second of the shared extension host)', () => {
    const loaded = Object.keys(require.cache).filter((file) => /[\\/]pi[\\/]pi\.cjs$/.test(file));
    assert.deepEqual(loaded, []);
  });

  it('activates and returns its test API', async () => {
    const { extension } = await activatePanel();
    assert.equal(extension.isActive, true);
    assert.equal(typeof controller.snapshot, 'function');
  });

  it('registers every command it contributes', async () => {
    const { extension } = await activatePanel();
    const contributed = ((extension.packageJSON as { contributes?: { commands?: Array<{ command: string }> } }).contributes?.commands ?? []).map(
      (c) => c.command,
    );
    assert.ok(contributed.length >= 3, `only ${contributed.length} commands contributed`);
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], `contributed but not registered: ${missing.join(', ')}`);
  });

  it('resolves the chat view when Focus Chat runs', async () => {
    await vscode.commands.executeCommand('piPanel.focusChat');
    // The view container opens; the view's own focus command exists once the view is known.
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.ok(registered.has('piPanel.chat.focus'), 'piPanel.chat.focus not registered');
    await vscode.commands.executeCommand('piPanel.chat.focus');
  });

  it('streams a reply from the scripted model and settles idle', async () => {
    pi = await useScriptedPi(PLAIN);
    const settled = nextSettle(controller);
    await controller.prompt('Say hello');
    await settled;
    const snap = controller.snapshot();
    assert.equal(snap.runState, 'idle');
    const last = snap.messages.filter((m) => m.role === 'assistant').at(-1);
    assert.ok(last, 'no assistant message');
    assert.equal(textOf(last), 'Hello from the scripted model.');
    assert.equal(last.stopReason, 'stop');
    assert.ok(pi.model.requests.length >= 1, 'the scripted model got no request');
  });

  it('keeps partial text when Cancel Run stops a run mid-stream', async () => {
    pi = await useScriptedPi(HELD);
    const settled = nextSettle(controller);
    const prompting = controller.prompt('Count slowly');
    // Only this run can make both true: the model holds this stream mid-reply, and the panel shows what came before.
    await pi.model.held('mid');
    const lastText = (): string =>
      textOf(
        controller
          .snapshot()
          .messages.filter((m) => m.role === 'assistant')
          .at(-1) ?? { role: '', blocks: [] },
      );
    await waitUntil(() => lastText() === BEFORE_HOLD, 'the text streamed before the hold');
    await vscode.commands.executeCommand('piPanel.cancel');
    await settled;
    await prompting;
    const snap = controller.snapshot();
    assert.equal(snap.runState, 'idle');
    const last = snap.messages.filter((m) => m.role === 'assistant').at(-1);
    assert.ok(last, 'no assistant message');
    assert.equal(last.stopReason, 'aborted');
    assert.equal(textOf(last), BEFORE_HOLD, 'the partial text is kept, and nothing after the cancel');
  });

  it('clears the transcript on New Session', async () => {
    pi = await useScriptedPi(PLAIN);
    const settled = nextSettle(controller);
    await controller.prompt('Say hello');
    await settled;
    assert.ok(controller.snapshot().messages.length > 0);
    await vscode.commands.executeCommand('piPanel.newSession');
    await waitUntil(() => controller.snapshot().messages.length === 0, 'an empty transcript');
  });
});
