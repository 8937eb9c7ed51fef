/** Provider, tool and model text in notifications (no links) and bidi controls (shown, or stripped on Insert). */

import { strict as assert } from 'node:assert';
import { codeForInsert, hasBidiControls, showBidiControls, stripBidiControls } from '../../src/shared/bidi.ts';
import { plainNotificationText } from '../../src/shared/notificationText.ts';

/** The link syntax VS Code's notifications turn into clickable links (its `parseLinkedText`). */
const NOTIFICATION_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;

describe('notification text from provider, tool or model text', () => {
  const hostile = [
    '400 Bad Request: [Click to fix your key](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%20-rf%20~%22%7D)',
    'see [docs](command:workbench.action.openSettings "Open settings")',
    '[a [nested] label](command:x)',
    '[label]  (command:x)',
    '[x](file:///etc/passwd)',
    '![img](command:x)',
    '[[double]](command:workbench.action.reloadWindow)',
    '[label](COMMAND:vscode.open)',
  ];
  for (const text of hostile) {
    it(`leaves no link in ${JSON.stringify(text.slice(0, 50))}`, () => {
      const plain = plainNotificationText(text);
      assert.deepEqual(plain.match(NOTIFICATION_LINK), null, plain);
      assert.doesNotMatch(plain, /\]\(/);
    });
  }

  it('keeps the label and a readable, unlinked http(s) address', () => {
    assert.equal(
      plainNotificationText('Rate limited, see [the docs](https://example.com/limits).'),
      'Rate limited, see the docs <https://example.com/limits>.',
    );
  });

  it('drops a command target and keeps only its label', () => {
    assert.equal(plainNotificationText('[Fix it](command:evil.run?arg)'), 'Fix it');
  });

  it('leaves ordinary error text alone', () => {
    const text = 'Pi: could not change the model: No API key found for anthropic. Use /login or set ANTHROPIC_API_KEY.';
    assert.equal(plainNotificationText(text), text);
  });

  it('shows bidi controls, replaces control characters and caps the length', () => {
    assert.equal(plainNotificationText('a\u202Eb\u0007c'), 'a⟨U+202E⟩b c');
    const long = plainNotificationText('x'.repeat(5000));
    assert.ok(long.length <= 600);
    assert.ok(long.endsWith('…'));
  });
});

describe('bidirectional-override characters', () => {
  const all = '\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069';

  it('shows every one of them visibly', () => {
    assert.equal(showBidiControls(`rm ${all}x`), 'rm ⟨U+202A⟩⟨U+202B⟩⟨U+202C⟩⟨U+202D⟩⟨U+202E⟩⟨U+2066⟩⟨U+2067⟩⟨U+2068⟩⟨U+2069⟩x');
    assert.equal(hasBidiControls(showBidiControls(all)), false);
  });

  it('strips them and counts them', () => {
    assert.deepEqual(stripBidiControls(`a${all}b`), { text: 'ab', removed: 9 });
    assert.deepEqual(stripBidiControls('plain \u200F text'), { text: 'plain \u200F text', removed: 0 });
  });

  it('detects them', () => {
    assert.equal(hasBidiControls('safe'), false);
    assert.equal(hasBidiControls('ev\u2067il'), true);
  });
});

describe('code inserted into the editor', () => {
  it('is inserted as is when it has no bidi controls, without a notice', () => {
    assert.deepEqual(codeForInsert('const a = 1;\n'), { text: 'const a = 1;\n' });
  });

  it('loses its bidi controls, and the user is told how many', () => {
    const r = codeForInsert('if (isAdmin) {\u202E } \u2066// check later\u2069 {\n');
    assert.equal(r.text, 'if (isAdmin) { } // check later {\n');
    assert.match(r.notice ?? '', /removed 3 bidirectional control characters/);
  });
});
