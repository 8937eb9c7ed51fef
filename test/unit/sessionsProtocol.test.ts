/** Validation of the Sessions mode's and the tree's messages from the webview, and the list's pure helpers. */

import { strict as assert } from 'node:assert';
import { MAX_SESSION_NAME } from '../../src/shared/wire/webviewProtocol.ts';
import { parseWebviewMessage } from '../../src/shared/wire/parseWebviewMessage.ts';
import { matchesQuery, sessionTitle, statsLine } from '../../src/shared/sessions.ts';

describe('sessions messages from the webview', () => {
  const file = '/home/u/.pi/agent/sessions/--w--/2026-11-30.jsonl';
  const good: unknown[] = [
    { type: 'listSessions', query: '', offset: 0 },
    { type: 'listSessions', query: 'parser bug', offset: 50 },
    { type: 'openSession', file },
    { type: 'deleteSession', file },
    { type: 'renameSession', file, name: 'Parser work' },
    { type: 'editResend', entryId: 'a1b2c3d4' },
    { type: 'forkHere', entryId: 'a1b2c3d4' },
    { type: 'restore', entryId: 'a1b2c3d4' },
    { type: 'showTree' },
    { type: 'navigateTree', entryId: 'a1b2c3d4' },
    { type: 'runCommand', command: 'importSession' },
    { type: 'runCommand', command: 'copyLastAnswer' },
  ];
  for (const msg of good) {
    it(`accepts ${JSON.stringify(msg)}`, () => {
      const r = parseWebviewMessage(msg);
      assert.ok(r.ok, r.ok ? '' : r.reason);
    });
  }

  const bad: [string, unknown][] = [
    ['a negative offset', { type: 'listSessions', query: '', offset: -1 }],
    ['a fractional offset', { type: 'listSessions', query: '', offset: 1.5 }],
    ['a search of 10,000 characters', { type: 'listSessions', query: 'q'.repeat(10_000), offset: 0 }],
    ['opening a file that is not a session', { type: 'openSession', file: '/etc/passwd' }],
    ['deleting without a file', { type: 'deleteSession' }],
    ['an empty name', { type: 'renameSession', file, name: '   ' }],
    ['a name that is too long', { type: 'renameSession', file, name: 'n'.repeat(MAX_SESSION_NAME + 1) }],
    ['edit-resend without an entry id', { type: 'editResend', text: 'Hello' }],
    ['edit-resend naming the message by its place', { type: 'editResend', fromEnd: 0, text: 'Hello' }],
    ['fork-here with an entry id that is not a string', { type: 'forkHere', entryId: 7 }],
    ['a restore with an entry id with a path in it', { type: 'restore', entryId: '../../x' }],
    ['an entry id with a path in it', { type: 'navigateTree', entryId: '../../x' }],
  ];
  for (const [what, msg] of bad) {
    it(`rejects ${what}`, () => {
      const r = parseWebviewMessage(msg);
      assert.equal(r.ok, false);
    });
  }
});

describe('sessions list helpers', () => {
  it('titles a session by its name, else its first prompt on one line', () => {
    assert.equal(sessionTitle({ name: 'Parser', firstMessage: 'x' }), 'Parser');
    assert.equal(sessionTitle({ firstMessage: '  Fix\n the   bug ' }), 'Fix the bug');
    assert.equal(sessionTitle({ firstMessage: '' }), '(empty session)');
  });

  it('matches a search when every word is there, in any case and order', () => {
    assert.ok(matchesQuery('Refactor the Parser module', 'parser refactor'));
    assert.ok(!matchesQuery('Refactor the Parser module', 'parser lexer'));
    assert.ok(matchesQuery('anything', '   '));
  });

  it('says the totals in one line', () => {
    assert.equal(
      statsLine({ input: 1200, output: 340, cacheRead: 10, cacheWrite: 0, cost: 0.0123, contextPercent: 12 }),
      'Tokens: 1,200 in, 340 out, cache 10 read / 0 write, $0.0123, context 12%',
    );
  });
});
