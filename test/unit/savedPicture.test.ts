/** The saved picture the host puts into a re-created view's page: allow-listed tags and classes, every text escaped, before the script. */

import { strict as assert } from 'node:assert';
import type * as vscode from 'vscode';
import { chatHtml } from '../../src/extension/webviewHtml.ts';
import { pictureHtml } from '../../src/shared/savedPicture.ts';

/** Text a hostile reply might hold, meant to break out of the picture, the page or its CSP. */
const HOSTILE = [
  '<script>alert(1)</script>',
  '</div><img src=x onerror="alert(1)">',
  '{{constructor.constructor("alert(1)")()}}',
  '</script><script nonce="abc">alert(1)</script>',
  '<meta http-equiv="Content-Security-Policy" content="script-src *">',
  '"><svg onload=alert(1)>',
  "' onmouseover='alert(1)",
  '<!-- ]]> --> &amp; &lt;b&gt;',
  '`${alert(1)}`',
];

const webview = { cspSource: 'vscode-resource:', asWebviewUri: (u: unknown) => u } as unknown as vscode.Webview;
const uri = (...segments: string[]) => `ext/${segments.join('/')}` as unknown as vscode.Uri;
const locale = { language: 'en', bundle: undefined };

/** The text a browser would show for `html` (tags dropped, the entities `escapeText` writes decoded). */
function shownText(html: string): string {
  return html.replace(/<[^>]*>/g, '').replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));
}

describe('the saved picture in a re-created view page', () => {
  it('shows hostile text in a reply as text: no tag, attribute or template of its own reaches the page', () => {
    const html = pictureHtml([['div', 'row assistant', ['p', '', ...HOSTILE]]]);
    assert.ok(html.startsWith('<div id="pi-saved" class="saved-render transcript" aria-hidden="true" inert>'));
    assert.equal((html.match(/</g) ?? []).length, 6, 'only the picture div, the row, the paragraph and their ends are tags');
    const text = html.slice(html.indexOf('<p>') + 3, html.indexOf('</p>'));
    assert.doesNotMatch(text, /[<>{}`"']/, 'the text holds no character that opens a tag, an attribute or a template');
    assert.equal(shownText(html), HOSTILE.join(''), 'every character is still shown');
  });

  it('keeps allow-listed tags and word-only classes, and drops other tags, attributes in class names, and deep nesting', () => {
    assert.equal(pictureHtml([['p', 'a" onclick="x', 'hi']]), '<div id="pi-saved" class="saved-render transcript" aria-hidden="true" inert><p>hi</p></div>');
    assert.equal(
      pictureHtml([
        ['script', '', 'alert(1)'],
        ['img', 'x'],
        ['iframe', ''],
      ]),
      '',
    );
    assert.equal(pictureHtml([['strong', 'md-bold', 'x', ['br', '']]]).includes('<strong class="md-bold">x<br></strong>'), true);
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100; i++) deep = ['div', '', deep];
    assert.ok(!pictureHtml([deep]).includes('bottom'), 'a picture nested deeper than the limit is cut');
    assert.equal(pictureHtml('<b>x</b>'), '');
    assert.equal(pictureHtml([]), '');
  });

  it('puts the picture into the page before the script, so it paints before main.js loads', () => {
    const picture = [['div', 'row', 'The last reply </script>']];
    const page = chatHtml(webview, uri, locale, 'sidebar', undefined, undefined, picture);
    const at = page.indexOf('<div id="pi-saved"');
    assert.ok(at > 0, 'the picture is in the page');
    assert.ok(page.includes('<div id="app"><div id="pi-saved"'), 'where the app draws, which takes it over');
    assert.ok(at < page.indexOf('<script nonce='), 'before the script');
    assert.equal((page.match(/<\/script>/g) ?? []).length, 2, 'the text closes no script tag');
    assert.ok(!chatHtml(webview, uri, locale).includes('pi-saved'), 'no picture: none in the page');
  });
});
