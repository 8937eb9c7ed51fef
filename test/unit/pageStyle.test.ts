import { strict as assert } from 'node:assert';
import { inlineStyle } from '../../src/extension/pageStyle.ts';

const resolve = (path: string): string => `https://res.example/ext/${path}`;

describe("the chat's stylesheet put into its page", () => {
  it('points a url relative to media/ at the same file in the extension', () => {
    const css = "@font-face { src: url('../dist/webview/codicons/codicon.ttf') format('truetype'); }";
    assert.equal(inlineStyle(css, resolve), "@font-face { src: url('https://res.example/ext/dist/webview/codicons/codicon.ttf') format('truetype'); }");
  });

  it('leaves data: urls as they are', () => {
    const css = `.x { mask: url("data:image/svg+xml,%3Csvg%3E"); }`;
    assert.equal(inlineStyle(css, resolve), css);
  });

  it('is not inlined when its text could end the style element', () => {
    assert.equal(inlineStyle('.x::after { content: "</style><script>"; }', resolve), undefined);
  });
});
