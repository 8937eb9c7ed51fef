/**
 * The diagram library's own bundle (dist/webview/mermaid.js, an ES module whose diagram types are chunks it imports
 * on demand): Mermaid in strict security, its labels as SVG text (no HTML), loaded by diagrams.ts only when a
 * diagram appears, and reached through `window.__piMermaid`.
 */

import mermaid from 'mermaid';
import type { MermaidApi } from './diagrams.ts';

let configured = '';

/** Configures Mermaid for the view's theme, only when it changed. */
function configure(theme: 'base' | 'dark' | 'default', variables: Readonly<Record<string, string | boolean>>): void {
  const key = JSON.stringify([theme, variables]);
  if (key === configured) return;
  configured = key;
  mermaid.initialize({
    startOnLoad: false,
    // No click callbacks, no links, labels sanitized; and a diagram's own directives cannot change these.
    securityLevel: 'strict',
    secure: [
      'secure',
      'securityLevel',
      'startOnLoad',
      'maxTextSize',
      'maxEdges',
      'theme',
      'themeVariables',
      'themeCSS',
      'fontFamily',
      'htmlLabels',
      'flowchart',
    ],
    htmlLabels: false,
    flowchart: { htmlLabels: false },
    maxTextSize: 50_000,
    theme,
    themeVariables: { ...variables },
    suppressErrorRendering: true,
  });
}

const api: MermaidApi = {
  async parse(source, theme) {
    configure('base', theme);
    // Throws the parser's message for a source that is not a diagram.
    await mermaid.parse(source);
  },
  async render(id, source, theme, scratch) {
    configure('base', theme);
    try {
      return (await mermaid.render(id, source, scratch)).svg;
    } catch {
      // A colour Mermaid cannot read: its own theme of the same darkness.
      configure(theme.darkMode === true ? 'dark' : 'default', {});
      return (await mermaid.render(id, source, scratch)).svg;
    }
  },
};

(window as unknown as { __piMermaid: MermaidApi }).__piMermaid = api;
