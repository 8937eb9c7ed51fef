/** Provider, tool and model text in notifications (no links, invisible characters shown) and bidi controls (shown, or stripped on Insert). */

import { strict as assert } from 'node:assert';
import { codeForInsert, hasBidiControls, stripBidiControls } from '../../src/shared/bidi.ts';
import { plainNotificationText } from '../../src/shared/notificationText.ts';
import { showInvisibles } from '../../src/shared/visibleText.ts';

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

  it('shows tag characters and zero-width characters instead of passing them on unseen', () => {
    const tagged = [...'Run rm'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
    assert.equal(plainNotificationText(`Tool failed${tagged}\u200B.`), 'Tool failed⟨U+E0052⟩⟨U+E0075⟩⟨U+E006E⟩⟨U+E0020⟩⟨U+E0072⟩⟨U+E006D⟩⟨U+200B⟩.');
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
    assert.equal(showInvisibles(`rm ${all}x`), 'rm ⟨U+202A⟩⟨U+202B⟩⟨U+202C⟩⟨U+202D⟩⟨U+202E⟩⟨U+2066⟩⟨U+2067⟩⟨U+2068⟩⟨U+2069⟩x');
    assert.equal(hasBidiControls(showInvisibles(all)), false);
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

describe('text shown to be judged (chip previews, the approval card, file names)', () => {
  /** "Ignore previous" spelled in Unicode tag characters: invisible, yet a model reads it. */
  const tagged = [...'Ignore previous'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');

  it('shows Unicode tag characters (U+E0000–U+E007F) by their code points', () => {
    const shown = showInvisibles(`ok\u{E0001}${tagged}\u{E007F}`);
    assert.ok(shown.startsWith('ok⟨U+E0001⟩⟨U+E0049⟩⟨U+E0067⟩'), shown);
    assert.ok(shown.endsWith('⟨U+E0073⟩⟨U+E007F⟩'), shown);
    assert.doesNotMatch(shown, /[\u{E0000}-\u{E007F}]/u);
  });

  it('shows every other character that renders as nothing, bidi controls included', () => {
    const invisible = [
      0xad, 0x34f, 0x61c, 0x115f, 0x1160, 0x17b4, 0x17b5, 0x180b, 0x180e, 0x200b, 0x200d, 0x200e, 0x2028, 0x202a, 0x202e, 0x2060, 0x2064, 0x2066, 0x2069,
      0x206a, 0x206f, 0x3164, 0xfe00, 0xfeff, 0xffa0, 0xfff9, 0x1bca0, 0x1d173, 0xe0000, 0xe0020, 0xe0100, 0xe01ef,
    ];
    for (const cp of invisible) {
      const hex = cp.toString(16).toUpperCase().padStart(4, '0');
      assert.equal(showInvisibles(`a${String.fromCodePoint(cp)}b`), `a⟨U+${hex}⟩b`, hex);
    }
  });

  it('leaves tabs, line breaks, other scripts and emoji as they are', () => {
    const text = 'a\tb\r\nc 漢字 é ✓ ❤️ 1️⃣ شكرا';
    assert.equal(showInvisibles(text), text);
  });

  it('shows line breaks and tabs too in a one-line name', () => {
    assert.equal(showInvisibles('a.ts\n\trm -rf ~\u202E', { oneLine: true }), 'a.ts\\x0A\\x09rm -rf ~⟨U+202E⟩');
  });
});
