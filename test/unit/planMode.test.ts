/** Plan mode's pure parts: which tools are read-only (by what registered them, or the author's read-only mark, never by name alone), a plan's checklist, its progress. */

import { strict as assert } from 'node:assert';
import { asPlanView, checklistOf, noPlan, planProgress } from '../../src/shared/plan.ts';
import { PlanMode, readOnlyToolNames } from '../../src/worker/planMode.ts';

const builtin = (name: string) => ({ name, sourceInfo: { path: `builtin:${name}` } });
const ext = (name: string, readOnlyHint?: boolean) => ({
  name,
  sourceInfo: { path: '/agent/extensions/x.js' },
  ...(readOnlyHint === undefined ? {} : { annotations: { readOnlyHint } }),
});

describe('plan mode: the read-only set', () => {
  it("holds Pi's own read, grep, find and ls and nothing else of Pi's", () => {
    const names = readOnlyToolNames(['read', 'grep', 'find', 'ls', 'bash', 'edit', 'write'].map(builtin));
    assert.deepEqual([...names].sort(), ['find', 'grep', 'ls', 'read']);
  });

  it("does not trust an extension's tool that takes a read-only name, unless it is marked read-only", () => {
    assert.deepEqual([...readOnlyToolNames([ext('read'), ext('ls', false)])], []);
    assert.deepEqual([...readOnlyToolNames([ext('read', true)])], ['read']);
  });

  it('holds a tool renamed by an extension when it is marked read-only, whatever its name', () => {
    assert.deepEqual(
      [...readOnlyToolNames([ext('view_file', true), ext('write_file'), { name: 'mcp__docs__search', annotations: { readOnlyHint: true } }])].sort(),
      ['mcp__docs__search', 'view_file'],
    );
  });

  it('fails closed on a tool with no source', () => {
    assert.deepEqual([...readOnlyToolNames([{ name: 'read' }])], []);
  });
});

describe('plan mode: the checklist of a plan', () => {
  it('takes the numbered items, not their nested details', () => {
    const text = 'Plan:\n1. Read the code\n   - look at main.ts\n2) **Change the parser**\n3. Run the tests\n\nThat is all.';
    assert.deepEqual(checklistOf(text), ['Read the code', 'Change the parser', 'Run the tests']);
  });

  it('takes "Step n:" lines when there is no numbered list', () => {
    assert.deepEqual(checklistOf('Plan:\nStep 1: Read\n**Step 2:** Write\nstep 3. Check'), ['Read', 'Write', 'Check']);
  });

  it('takes task-list items when there is no numbered list', () => {
    assert.deepEqual(checklistOf('- [ ] one\n- [x] two\n- three'), ['one', 'two']);
  });

  it('has no items for prose', () => {
    assert.deepEqual(checklistOf('Nothing to do here.'), []);
  });

  it('counts done, current and left', () => {
    const items = [
      { text: 'a', done: true },
      { text: 'b', done: true },
      { text: 'c', done: false },
    ];
    assert.deepEqual(planProgress(items), { done: 2, current: 2, left: 1, total: 3 });
    assert.equal(planProgress(items.map((i) => ({ ...i, done: true }))).current, -1);
  });

  it('reads a plan state and refuses a malformed one', () => {
    assert.deepEqual(asPlanView({ on: true, items: [{ text: 'a', done: false }], draft: 'd' }), { on: true, items: [{ text: 'a', done: false }], draft: 'd' });
    assert.equal(asPlanView({ on: 'yes', items: [] }), undefined);
    assert.equal(asPlanView({ on: true, items: [{ text: 1, done: false }] }), undefined);
  });
});

describe('plan mode: its requests', () => {
  it('answers Plan mode on and Act on plan itself, each with the session opened first', async () => {
    const steps: string[] = [];
    const handlers = new PlanMode(() => {}).handlers(
      async () => void steps.push('open'),
      async (text) => void steps.push(`send:${text.split('\n')[0]}`),
    );
    assert.deepEqual(await handlers.setPlanMode({ on: true }), { plan: noPlan });
    // Done, with nothing to say: the worker's registration answers it with `null`.
    assert.equal(await handlers.actOnPlan({ text: '1. Do it' }), undefined);
    assert.deepEqual(steps, [
      'open',
      'open',
      'send:Act on this plan now. After you finish each item, call the `plan_todo` tool with the numbers of the items done so far.',
    ]);
  });

  it('fails a request when the session cannot open, sending nothing', async () => {
    const sent: string[] = [];
    const handlers = new PlanMode(() => {}).handlers(
      () => Promise.reject(new Error('the session could not start')),
      async (text) => void sent.push(text),
    );
    await assert.rejects(handlers.actOnPlan({ text: '1. Do it' }), /could not start/);
    assert.deepEqual(sent, []);
  });
});
