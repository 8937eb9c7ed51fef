/**
 * Localized strings for every layer: keys are the English text, as with `vscode.l10n.t`, and one bundle
 * (`l10n/bundle.l10n.LANG.json`, the display language's) serves the host, the worker and the webview.
 */

export type L10nArg = string | number | boolean;

let bundle: Readonly<Record<string, string>> = {};
let language = 'en';

/** Installs the display language and its bundle (from `vscode.l10n.bundle`; undefined for English). */
export function setL10nBundle(contents: Readonly<Record<string, string>> | undefined, displayLanguage = 'en'): void {
  bundle = contents ?? {};
  language = displayLanguage || 'en';
}

/** The display language (`vscode.env.language`, e.g. `zh-cn`), for `Intl` formatting. */
export function displayLanguage(): string {
  return language;
}

/**
 * `message` in the display language, with `{0}`, `{1}`… replaced by positional `args`, or `{name}` by a
 * record's fields, as `vscode.l10n.t` does. Untranslated messages fall back to the English key.
 */
export function t(message: string, ...args: L10nArg[] | [Readonly<Record<string, L10nArg>>]): string {
  return fill(bundle[message] ?? message, args);
}

/** `{0}` / `{name}` placeholders of `text` filled from `args`; unknown ones are left as they are. */
export function fill(text: string, args: readonly L10nArg[] | readonly [Readonly<Record<string, L10nArg>>]): string {
  const first = args[0];
  const named = args.length === 1 && typeof first === 'object' ? first : undefined;
  return text.replace(/\{([^{}]+)\}/g, (whole, key: string) => {
    const value = named ? named[key] : (args as readonly L10nArg[])[Number(key)];
    return value === undefined ? whole : String(value);
  });
}

/** A number in the display language (`1,234` / `1.234` / `1 234`). */
export function formatNumber(n: number, options?: Intl.NumberFormatOptions): string {
  try {
    return new Intl.NumberFormat(language, options).format(n);
  } catch {
    return new Intl.NumberFormat('en', options).format(n);
  }
}

/** The clock format of each language used: building one loads ICU data (30–80 ms the first time on a busy host). */
const timeFormats = new Map<string, Intl.DateTimeFormat>();

/** A clock time (`14:05:09`) in the display language (what `toLocaleTimeString` gives, from a kept format). */
export function formatTime(at: number): string {
  let format = timeFormats.get(language);
  if (!format) {
    const options: Intl.DateTimeFormatOptions = { hour: 'numeric', minute: 'numeric', second: 'numeric' };
    try {
      format = new Intl.DateTimeFormat(language, options);
    } catch {
      format = new Intl.DateTimeFormat('en', options);
    }
    timeFormats.set(language, format);
  }
  return format.format(new Date(at));
}

/** "3 minutes ago", "yesterday", "2 days ago" in the display language, from a timestamp and now. */
export function formatAgo(at: number, now: number): string {
  const secs = Math.round((at - now) / 1000);
  const units: [Intl.RelativeTimeFormatUnit, number][] = [
    ['day', 86_400],
    ['hour', 3600],
    ['minute', 60],
  ];
  let rtf: Intl.RelativeTimeFormat;
  try {
    rtf = new Intl.RelativeTimeFormat(language, { numeric: 'auto' });
  } catch {
    rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  }
  for (const [unit, size] of units) if (Math.abs(secs) >= size) return rtf.format(Math.round(secs / size), unit);
  return rtf.format(0, 'minute');
}
