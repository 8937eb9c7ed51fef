/**
 * The webview's localized strings. Keys are the English text, as with `vscode.l10n.t`; the host passes
 * the extension's l10n bundle for the display language at start-up, so one source serves both sides.
 */

type Arg = string | number | boolean;

let bundle: Readonly<Record<string, string>> = {};

/** Installs the display language's bundle (from the host, before the first render). */
export function setL10nBundle(contents: Readonly<Record<string, string>> | undefined): void {
  bundle = contents ?? {};
}

/**
 * `message` in the display language, with `{0}`, `{1}`… replaced by positional `args`, or `{name}` by a
 * record's fields, as `vscode.l10n.t` does. Untranslated messages fall back to the English key.
 */
export function t(message: string, ...args: Arg[] | [Readonly<Record<string, Arg>>]): string {
  const text = bundle[message] ?? message;
  const first = args[0];
  const named = args.length === 1 && typeof first === 'object' ? first : undefined;
  return text.replace(/\{([^{}]+)\}/g, (whole, key: string) => {
    const value = named ? named[key] : (args as Arg[])[Number(key)];
    return value === undefined ? whole : String(value);
  });
}
