import { strict as assert } from 'node:assert';
import { MAX_PROMPT_CHARS } from '../../src/shared/wire/webviewProtocol.ts';
import { parseWebviewMessage } from '../../src/shared/wire/parseWebviewMessage.ts';

describe('messages from the webview', () => {
  const good: unknown[] = [
    { type: 'ready' },
    { type: 'send', text: 'hi', mode: 'prompt' },
    { type: 'send', text: 'more', mode: 'steer' },
    { type: 'send', text: 'later', mode: 'followUp' },
    { type: 'cancel' },
    { type: 'newSession' },
    { type: 'forceIdle' },
    { type: 'retryLast' },
    { type: 'showLog' },
    { type: 'openLink', href: 'https://example.com' },
    { type: 'insertCode', text: 'const x = 1;' },
    { type: 'runCommand', command: 'selectModel' },
    { type: 'runCommand', command: 'setThinkingLevel' },
    { type: 'openFile', path: 'src/a.ts', firstChange: true },
    { type: 'openFile', path: 'src/a.ts', line: 12 },
    { type: 'openDiff', path: 'src/a.ts' },
    { type: 'undo', path: 'src/a.ts' },
    { type: 'undo' },
    { type: 'undo', path: 'a.ts', runId: 'r1' },
    { type: 'loadEarlier', before: 4801, count: 100 },
    { type: 'loadAround', id: 12, count: 100 },
    { type: 'dropUris', uris: ['file:///w/src/a.ts', 'file:///w/src'] },
  ];
  for (const msg of good) {
    it(`accepts ${JSON.stringify(msg)}`, () => {
      const r = parseWebviewMessage(msg);
      assert.ok(r.ok, r.ok ? '' : r.reason);
    });
  }

  const bad: [string, unknown][] = [
    ['null', null],
    ['a string', 'cancel'],
    ['an array', [{ type: 'cancel' }]],
    ['no type', { text: 'hi' }],
    ['a numeric type', { type: 7 }],
    ['an unknown type', { type: 'runShell', command: 'rm -rf /' }],
    ['send without text', { type: 'send', mode: 'prompt' }],
    ['send with an object as text', { type: 'send', text: { toString: 'x' }, mode: 'prompt' }],
    ['send with an unknown mode', { type: 'send', text: 'hi', mode: 'sudo' }],
    ['a send over the size limit', { type: 'send', text: 'x'.repeat(MAX_PROMPT_CHARS + 1), mode: 'prompt' }],
    ['openLink without href', { type: 'openLink' }],
    ['openLink with a huge href', { type: 'openLink', href: 'h'.repeat(10_000) }],
    ['insertCode with a number', { type: 'insertCode', text: 42 }],
    ['loadEarlier without before', { type: 'loadEarlier', count: 100 }],
    ['loadEarlier with a string id', { type: 'loadEarlier', before: '12', count: 100 }],
    ['loadEarlier with an id that is not a number', { type: 'loadEarlier', before: Infinity, count: 100 }],
    ['loadEarlier with id 0', { type: 'loadEarlier', before: 0, count: 100 }],
    ['loadEarlier with no rows', { type: 'loadEarlier', before: 10, count: 0 }],
    ['loadEarlier with a huge page', { type: 'loadEarlier', before: 10, count: 1_000_000 }],
    ['loadAround without an id', { type: 'loadAround', count: 100 }],
    ['loadAround with a huge page', { type: 'loadAround', id: 10, count: 1_000_000 }],
    ['a command outside the allow-list', { type: 'runCommand', command: 'workbench.action.terminal.sendSequence' }],
    ['runCommand without a command', { type: 'runCommand' }],
    ['openFile without a path', { type: 'openFile' }],
    ['openFile with a line that is not a line number', { type: 'openFile', path: 'a', line: -3 }],
    ['openDiff with an empty path', { type: 'openDiff', path: '' }],
    ['undo with a NUL in the path', { type: 'undo', path: 'a\u0000b' }],
    ['a type named like an Object member', { type: 'constructor' }],
    ['a type named __proto__', { type: '__proto__' }],
    ['dropUris with a number among the URIs', { type: 'dropUris', uris: ['file:///a', 7] }],
    ['dropUris with an empty URI', { type: 'dropUris', uris: [''] }],
    ['dropUris with too many URIs', { type: 'dropUris', uris: Array.from({ length: 101 }, (_, i) => `file:///f${i}`) }],
  ];
  for (const [what, msg] of bad) {
    it(`rejects ${what} with a reason`, () => {
      const r = parseWebviewMessage(msg);
      assert.equal(r.ok, false);
      assert.ok(!r.ok && r.reason.length > 0);
    });
  }

  it('keeps only the known fields of an accepted message', () => {
    const r = parseWebviewMessage({ type: 'send', text: 'hi', mode: 'prompt', __proto__: { evil: true }, extra: 'dropped' });
    assert.deepEqual(r, { ok: true, msg: { type: 'send', text: 'hi', mode: 'prompt' } });
  });
});
