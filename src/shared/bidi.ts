/** Bidirectional-override characters, which can make code read differently from what it does: stripped from code to insert (`showInvisibles` in visibleText.ts shows them in text to judge). */
import { t } from './l10n.ts';

/** U+202A–U+202E (embeddings, overrides) and U+2066–U+2069 (isolates). */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

export function hasBidiControls(text: string): boolean {
  return /[\u202A-\u202E\u2066-\u2069]/.test(text);
}

/** `text` without bidi controls, and how many there were. */
export function stripBidiControls(text: string): { readonly text: string; readonly removed: number } {
  let removed = 0;
  const out = text.replace(BIDI_CONTROLS, () => {
    removed++;
    return '';
  });
  return { text: out, removed };
}

/** Code to insert into an editor, without bidi controls, and what to tell the user when some were removed. */
export function codeForInsert(code: string): { readonly text: string; readonly notice?: string } {
  const { text, removed } = stripBidiControls(code);
  if (!removed) return { text };
  return {
    text,
    notice:
      removed === 1
        ? t(
            'Pi: removed 1 bidirectional control character (U+202A–U+202E, U+2066–U+2069) from the inserted code: it can make code read differently from what it does.',
          )
        : t(
            'Pi: removed {0} bidirectional control characters (U+202A–U+202E, U+2066–U+2069) from the inserted code: they can make code read differently from what it does.',
            removed,
          ),
  };
}
