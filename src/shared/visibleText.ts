/** Text shown for the user to judge (an approval's command, a chip's text, a file's name): every character kept, the invisible ones made visible. */

/**
 * Characters that render as nothing (or move the cursor in a terminal) yet reach the shell or the model: control
 * characters (Cc) and format characters (Cf: zero-width, bidi controls, the byte-order mark, Unicode tag characters),
 * line and paragraph separators, variation selectors, fillers that draw blank (Hangul, Khmer, Mongolian), and the
 * whole tag block U+E0000–U+E007F (some of it unassigned). `\r\n` is matched whole so it can be kept.
 */
const INVISIBLE = /\r\n|[\p{Cc}\p{Cf}\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180F\u2028\u2029\u3164\uFE00-\uFE0F\uFFA0\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}]/gu;

/** An emoji (or keycap base) a presentation selector (U+FE0E, U+FE0F) may follow, as in ❤️ or 1️⃣. */
const PRESENTATION_BASE = /[\p{Extended_Pictographic}#*0-9]$/u;

export interface ShowOptions {
  /** A name shown on one line (a path, a chip's ref): line breaks and tabs are shown too. */
  readonly oneLine?: boolean;
}

/**
 * `text` with nothing removed: ESC becomes `␛`, other control characters `\x07`-style escapes, every other
 * invisible character its code point, `⟨U+200B⟩`, `⟨U+202E⟩`, `⟨U+E0041⟩`. Tabs and line breaks stay (unless
 * `oneLine`), and so does the presentation selector of an emoji. A terminal sequence keeps its payload, so
 * `git status ESC]…BEL` cannot read as `git status`; a tag-character message to the model cannot hide in a name.
 */
export function showInvisibles(text: string, options: ShowOptions = {}): string {
  return text.replace(INVISIBLE, (c: string, at: number) => {
    if (!options.oneLine && (c === '\r\n' || c === '\n' || c === '\t')) return c;
    if (c === '\r\n') return '\\x0D\\x0A';
    const code = c.codePointAt(0)!;
    if ((code === 0xfe0e || code === 0xfe0f) && PRESENTATION_BASE.test(text.slice(Math.max(0, at - 2), at))) return c;
    if (code === 0x1b) return '␛';
    if (code <= 0x9f) return `\\x${code.toString(16).toUpperCase().padStart(2, '0')}`;
    return `⟨U+${code.toString(16).toUpperCase().padStart(4, '0')}⟩`;
  });
}
