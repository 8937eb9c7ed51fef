/** Text shown for the user to judge (an approval's command, a file's new content): every character kept, the invisible ones made visible. */

import { showBidiControls } from './bidi.ts';

/**
 * C0 controls other than tab and newline, DEL, C1 controls, zero-width and line/paragraph separators, the
 * byte-order mark: characters that render as nothing (or move the cursor in a terminal) yet reach the shell.
 */
const INVISIBLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u200B-\u200F\u2028\u2029\u2060-\u2064\uFEFF]|\r(?!\n)/g;

/**
 * `text` with nothing removed: ESC becomes `␛`, other control characters `\x07`-style escapes, zero-width
 * and separator characters `⟨U+200B⟩`, bidi controls `⟨U+202E⟩`. A terminal sequence keeps its payload, so
 * `git status ESC]…BEL` cannot read as `git status`.
 */
export function showInvisibles(text: string): string {
  const out = text.replace(INVISIBLE, (c) => {
    const code = c.charCodeAt(0);
    if (code === 0x1b) return '␛';
    if (code <= 0x9f) return `\\x${code.toString(16).toUpperCase().padStart(2, '0')}`;
    return `⟨U+${code.toString(16).toUpperCase().padStart(4, '0')}⟩`;
  });
  return showBidiControls(out);
}
