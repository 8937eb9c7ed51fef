/** Plain text for VS Code notifications built from provider, tool or model text, which must not become links. */

import { showInvisibles } from './visibleText.ts';

/** Longest notification text; a provider's error body can be a whole HTML page. */
const MAX_LENGTH = 600;

/**
 * `text` as inert plain text for `showErrorMessage` and friends. VS Code turns `[label](target)` in a
 * notification into a link, and a `command:` target runs a command when clicked, so every markdown link
 * becomes its label (http(s) targets stay readable after it, in angle brackets, unlinked), and any `](`
 * left over is split so no link can form. Control characters become spaces, bidi controls, tag characters and
 * other invisible ones become visible (`⟨U+E0041⟩`), and the text is capped.
 */
export function plainNotificationText(text: string): string {
  let out = text.replace(/!?\[([^\]]*)\]\(\s*([^)\s]*)[^)]*\)/g, (_m, label: string, target: string) => {
    const shown = label.trim() || 'link';
    return /^https?:\/\//i.test(target) ? `${shown} <${target}>` : shown;
  });
  // Whatever link syntax is left (nested brackets, an unclosed label) cannot close a link once `](` is broken.
  out = out.replace(/\]\s*\(/g, '] (');
  out = out.replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, ' ');
  out = showInvisibles(out);
  return out.length > MAX_LENGTH ? `${out.slice(0, MAX_LENGTH - 1)}…` : out;
}
