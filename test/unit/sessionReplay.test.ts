/** A crafted or damaged session replays without throwing: object-valued fields read as nothing, a message that cannot be shown is skipped and reported. */

import { strict as assert } from 'node:assert';
import { initialTranscript } from '../../src/shared/transcript/reduce.ts';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayOnto } from '../../src/worker/replay.ts';
import { importLeavingNoCopy } from '../../src/worker/sessionFiles.ts';
import { exchangeEndId, treeView, userEntryId, type SessionTree } from '../../src/worker/sessionRuntime.ts';

/** `String()` of this throws ("Cannot convert object to primitive value"). */
const hostile = { toString: 1 };

describe('replaying a crafted session', () => {
  it('shows the good messages around ones whose text and id fields are objects, and reports what it skipped', () => {
    const messages = [
      { role: 'user', content: 'first', timestamp: 0 },
      { role: 'user', content: [{ type: 'text', text: hostile }], timestamp: 0 },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: hostile },
          { type: 'thinking', thinking: hostile },
        ],
        timestamp: 0,
      },
      { role: 'toolResult', toolCallId: hostile, toolName: hostile, content: [{ type: 'text', text: hostile }], timestamp: 0 },
      { role: 'bashExecution', command: hostile, output: hostile, exitCode: hostile, timestamp: 0 },
      { role: 'branchSummary', summary: hostile, timestamp: 0 },
      null,
      { role: 'user', content: 'last', timestamp: 0 },
    ];
    const skipped: number[] = [];
    const s = replayOnto(initialTranscript, messages, 0, undefined, (i) => skipped.push(i));
    const users = s.messages.filter((m) => m.role === 'user').map((m) => m.blocks.map((b) => b?.text ?? '').join(''));
    assert.equal(users[0], 'first');
    assert.equal(users[users.length - 1], 'last');
    assert.deepEqual(skipped, [3, 6], 'the message that is not an object, and the tool result whose ids are objects, are skipped');
  });

  it('skips a tool result or call whose id or name is an object, and the state it leaves reads and serializes', () => {
    const messages = [
      { role: 'user', content: 'first', timestamp: 0 },
      { role: 'assistant', content: [{ type: 'toolCall', id: hostile, name: 'read', arguments: {} }], stopReason: 'toolUse', timestamp: 0 },
      { role: 'assistant', content: [{ type: 'toolCall', id: 'call_1', name: hostile, arguments: {} }], stopReason: 'toolUse', timestamp: 0 },
      { role: 'toolResult', toolCallId: hostile, toolName: 'read', content: 'out', isError: false, timestamp: 0 },
      { role: 'toolResult', toolCallId: 'call_1', toolName: hostile, content: 'out', isError: false, timestamp: 0 },
      { role: 'toolResult', toolCallId: 'call_2', toolName: 'read', content: 'out', isError: false, timestamp: 0 },
      { role: 'user', content: 'last', timestamp: 0 },
    ];
    const skipped: number[] = [];
    const s = replayOnto(initialTranscript, messages, 0, undefined, (i) => skipped.push(i));
    assert.deepEqual(skipped, [1, 2, 3, 4]);
    assert.deepEqual(Object.keys(s.tools), ['call_2']);
    assert.doesNotThrow(() => JSON.stringify(s));
  });
});

describe("a crafted session's tree", () => {
  /** A session of one chain of `entries` (the last is the leaf), as Pi's session manager gives it. */
  function chain(entries: { id: unknown; type: unknown; message?: unknown; label?: unknown }[]): SessionTree {
    type Node = { entry: (typeof entries)[number]; children: Node[]; label?: unknown };
    const nodes: Node[] = entries.map((entry) => ({ entry, children: [], label: entry.label }));
    nodes.forEach((n, i) => nodes[i + 1] && n.children.push(nodes[i + 1]!));
    return {
      sessionManager: {
        getTree: () => [nodes[0]!],
        getBranch: () => entries,
        getLeafId: () => entries.at(-1)!.id,
        getEntry: () => undefined,
      },
    } as unknown as SessionTree;
  }

  it('lists and names only entries whose ids, types, labels and texts are text, and never hands on an object id', () => {
    const tree = chain([
      { id: 'u1', type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'hello' }] }, label: hostile },
      { id: 'x', type: 42, message: { role: hostile } },
      { id: hostile, type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'reply' }] } },
      {
        id: hostile,
        type: 'message',
        message: {
          role: 'user',
          content: [
            { type: 'text', text: hostile },
            { type: 'toolCall', name: hostile },
          ],
        },
      },
    ]);
    const nodes = treeView(tree);
    assert.deepEqual(
      nodes.map((n) => [n.id, n.text, n.label]),
      [['u1', 'hello', undefined]],
    );
    assert.doesNotThrow(() => JSON.stringify(nodes));
    assert.equal(userEntryId(tree, '[object Object]'), undefined, 'the newest user entry has an object id');
    assert.equal(userEntryId(tree, 'x'), undefined, 'an entry whose type is not text is no user message');
    assert.equal(userEntryId(tree, 'u1'), 'u1');
    assert.equal(exchangeEndId(tree, 'u1'), 'u1', 'the exchange ends at an entry whose id is an object: it forks at the user entry');
  });
});

describe('replaying tool calls that never ran', () => {
  it('closes every call of a message that ended in an error or was aborted as failed, with the reason', () => {
    const call = (id: string) => ({ type: 'toolCall', id, name: 'bash', arguments: { command: 'ls' } });
    const messages = [
      { role: 'user', content: 'go', timestamp: 0 },
      { role: 'assistant', content: [call('e1'), call('e2')], stopReason: 'error', errorMessage: 'terminated', timestamp: 0 },
      { role: 'assistant', content: [{ type: 'text', text: 'again' }, call('a1')], stopReason: 'aborted', timestamp: 0 },
      { role: 'assistant', content: [call('ok')], stopReason: 'toolUse', timestamp: 0 },
      { role: 'toolResult', toolCallId: 'ok', toolName: 'bash', content: 'out', isError: false, timestamp: 0 },
    ];
    const s = replayOnto(initialTranscript, messages, 0);
    const cards = Object.values(s.tools).map((c) => [c.toolCallId, c.status, c.output]);
    assert.deepEqual(cards, [
      ['e1', 'error', 'terminated'],
      ['e2', 'error', 'terminated'],
      ['a1', 'error', 'Operation aborted'],
      ['ok', 'done', 'out'],
    ]);
  });
});

describe('a failed import', () => {
  it('removes the copy it made, and only that, so a reload does not open the bad file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-import-'));
    try {
      writeFileSync(join(dir, 'kept.jsonl'), '{}');
      await assert.rejects(
        importLeavingNoCopy(dir, join(dir, 'kept.jsonl'), async () => {
          writeFileSync(join(dir, 'imported.jsonl'), '{}');
          throw new Error('replay failed');
        }),
        /replay failed/,
      );
      assert.deepEqual(readdirSync(dir), ['kept.jsonl']);
      assert.equal(await importLeavingNoCopy(dir, join(dir, 'kept.jsonl'), async () => 'ok'), 'ok');
      assert.ok(existsSync(join(dir, 'kept.jsonl')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
