/**
 * The webview's localized strings: `t()` over the l10n bundle the host embeds in the page at start-up
 * (keys are the English text, placeholders as `vscode.l10n.t`), so one source serves both sides.
 */

import { setL10nBundle } from '../shared/l10n.ts';

export { displayLanguage, formatAgo, formatNumber, t } from '../shared/l10n.ts';

/**
 * Reads what the host embedded in the page (`<script type="application/json" id="pi-l10n">`): the display
 * language and its bundle. A page without it (tests, an older shell) stays in English.
 */
export function loadL10nFromPage(doc: Document): void {
  const text = doc.getElementById('pi-l10n')?.textContent;
  if (!text) return;
  try {
    const parsed = JSON.parse(text) as { language?: unknown; bundle?: unknown };
    const contents = parsed.bundle && typeof parsed.bundle === 'object' ? (parsed.bundle as Record<string, string>) : undefined;
    setL10nBundle(contents, typeof parsed.language === 'string' ? parsed.language : 'en');
  } catch {
    // A broken block leaves the panel in English rather than blank.
  }
}
