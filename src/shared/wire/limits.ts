/** Bounds on what the webview may send, shared by the message checks. */

/** Longest prompt the host accepts from the webview (characters); a larger paste gets a clear message. */
export const MAX_PROMPT_CHARS = 1_000_000;

/** Largest diagram SVG the host opens in an editor (characters). */
export const MAX_SVG_CHARS = 5_000_000;

/** Whether `v` can name a session entry: word characters and dashes (Pi's are eight hex digits), never a path or an object. */
export function isEntryId(v: unknown): v is string {
  return typeof v === 'string' && /^[\w-]{1,100}$/.test(v);
}

/** Longest reason the user may send with an approval's Deny. */
export const MAX_DENY_REASON_CHARS = 2000;
