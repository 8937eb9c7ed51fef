/** Bounds on what the webview may send, shared by the message checks. */

/** Longest prompt the host accepts from the webview (characters); a larger paste gets a clear message. */
export const MAX_PROMPT_CHARS = 1_000_000;
