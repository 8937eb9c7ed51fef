/** What Pi's extensions say in the chat as the CLI shows it: `sendMessage` rows, errors naming the extension, titles throttled, progress not hidden for good. */

import { strict as assert } from 'node:assert';
import type { WireEvent } from '../../src/shared/wire/events.ts';
import type { ExtensionUiNotice } from '../../src/shared/wire/workerProtocol.ts';
import { initialTranscript, reduce } from '../../src/shared/transcript/reduce.ts';
import { project } from '../../src/worker/projection.ts';
import { ExtensionUi, TITLE_INTERVAL_MS } from '../../src/worker/dialogBridge.ts';

const T = 1_000_000;

/** A clock whose timers fire only when the test advances it. */
class TestClock {
  private _now = T;
  private _timers: { at: number; fn: () => void }[] = [];
  now(): number {
    return this._now;
  }
  setTimer(fn: () => void, ms: number): () => void {
    const timer = { at: this._now + ms, fn };
    this._timers.push(timer);
    return () => {
      this._timers = this._timers.filter((t) => t !== timer);
    };
  }
  advance(ms: number): void {
    this._now += ms;
    for (;;) {
      const due = this._timers.filter((t) => t.at <= this._now).sort((a, b) => a.at - b.at)[0];
      if (!due) return;
      this._timers = this._timers.filter((t) => t !== due);
      due.fn();
    }
  }
}

function makeUi(): { ui: ExtensionUi; events: WireEvent[]; surfaces: ExtensionUiNotice[]; clock: TestClock; logged: string[] } {
  const events: WireEvent[] = [];
  const surfaces: ExtensionUiNotice[] = [];
  const logged: string[] = [];
  const clock = new TestClock();
  const ui = new ExtensionUi({
    emit: (evs) => events.push(...evs),
    surface: (n) => surfaces.push(n),
    notify: () => undefined,
    log: { info: (m) => logged.push(m), warn: (m) => logged.push(m), error: (m) => logged.push(m) },
    clock,
  });
  return { ui, events, surfaces, clock, logged };
}

const notices = (events: readonly WireEvent[]) => events.flatMap((e) => (e.type === 'noticeMessage' ? [e] : []));

describe("an extension's sendMessage in the chat", () => {
  const custom = (over: Record<string, unknown>) =>
    project(
      { type: 'message_start', message: { role: 'custom', customType: 'plan-complete', content: '**Plan Complete!** ✓', display: true, ...over } } as never,
      {
        state: initialTranscript,
        now: T,
      },
    );

  it('is a Markdown notice labelled with its customType, as the CLI shows `[customType]` over it', () => {
    assert.deepEqual(custom({}), [{ type: 'noticeMessage', level: 'info', text: '**Plan Complete!** ✓', markdown: true, label: 'plan-complete' }]);
  });

  it("keeps the level its details name (the message-renderer example's warn and error)", () => {
    assert.equal((custom({ details: { level: 'warn' } })[0] as { level: string }).level, 'warning');
    assert.equal((custom({ details: { level: 'error' } })[0] as { level: string }).level, 'error');
    assert.equal((custom({ details: { level: 'loud' } })[0] as { level: string }).level, 'info');
  });

  it('is not shown when the extension says display: false', () => {
    assert.deepEqual(custom({ display: false }), []);
  });

  it('becomes a notice row that carries its label and Markdown flag', () => {
    const s = reduce(initialTranscript, custom({ content: [{ type: 'text', text: 'Step *one*' }] }));
    const row = s.messages.at(-1);
    assert.equal(row?.role, 'notice');
    assert.equal(row?.role === 'notice' && row.label, 'plan-complete');
    assert.equal(row?.role === 'notice' && row.markdown, true);
    assert.equal(row?.blocks[0]?.text, 'Step *one*');
  });
});

describe("Pi's extension UI context in the worker", () => {
  it('a throwing command names the extension that registered it, not "command:NAME"', () => {
    const { ui, events, logged } = makeUi();
    ui.reset((name) => (name === 'deploy' ? '/home/me/.pi/agent/extensions/deployer/index.ts' : undefined));
    ui.onError({ extensionPath: 'command:deploy', event: 'command', error: 'no target' });
    assert.deepEqual(
      notices(events).map((n) => [n.level, n.text]),
      [['error', 'The Pi extension "deployer" failed (/deploy): no target']],
    );
    assert.ok(logged.some((l) => l.includes('/home/me/.pi/agent/extensions/deployer/index.ts') && l.includes('/deploy')));
  });

  it('a command whose owner is unknown is named as a command, and an event error names its file', () => {
    const { ui, events } = makeUi();
    ui.reset(() => {
      throw new Error('runner disposed');
    });
    ui.onError({ extensionPath: 'command:gone', event: 'command', error: 'boom' });
    ui.onError({ extensionPath: '/x/extensions/gate.ts', event: 'tool_call', error: 'bad' });
    assert.deepEqual(
      notices(events).map((n) => n.text),
      ['The Pi extension command /gone failed: boom', 'The Pi extension "gate.ts" failed (tool_call): bad'],
    );
  });

  it('setTheme says once that the panel follows the VS Code theme, and reports no success', () => {
    const { ui, events } = makeUi();
    const first = ui.context.setTheme('dark');
    ui.context.setTheme('light');
    assert.equal(first.success, false);
    const said = notices(events).filter((n) => n.text.includes('setTheme'));
    assert.equal(said.length, 1);
    assert.match(said[0]!.text, /only Pi's terminal UI can show/);
  });

  it('sends at most one title per interval, and the last one set always arrives', () => {
    const { ui, surfaces, clock } = makeUi();
    const titles = () => surfaces.flatMap((s) => (s.kind === 'title' ? [s.title] : []));
    for (let i = 0; i < 12; i++) {
      ui.context.setTitle(`π ${'⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏'[i % 10]} work`);
      clock.advance(TITLE_INTERVAL_MS / 3);
    }
    // 12 calls over four intervals: the first at once, then one per interval.
    assert.ok(titles().length <= 5, JSON.stringify(titles()));
    clock.advance(TITLE_INTERVAL_MS);
    assert.equal(titles().at(-1), `π ${'⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏'[11 % 10]} work`, 'the last title set');
  });

  it('a reset drops a title the throttle still holds (it belongs to the last session)', () => {
    const { ui, surfaces, clock } = makeUi();
    ui.context.setTitle('one');
    ui.context.setTitle('two');
    ui.reset();
    clock.advance(TITLE_INTERVAL_MS * 2);
    assert.deepEqual(
      surfaces.map((s) => (s.kind === 'title' ? s.title : s.kind)),
      ['one', 'reset'],
    );
  });

  it("setWorkingVisible(false) lasts until the user's next run, not for good", () => {
    const { ui, events } = makeUi();
    const visible = () => events.flatMap((e) => (e.type === 'workingVisible' ? [e.visible] : []));
    ui.context.setWorkingVisible(false);
    assert.deepEqual(visible(), [false]);
    ui.runStarting();
    assert.deepEqual(visible(), [false, true]);
    ui.runStarting();
    assert.deepEqual(visible(), [false, true], 'nothing to undo');
  });
});
