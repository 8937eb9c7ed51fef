/** Turns errors from loading Pi, starting a prompt or a provider's reply into messages that say what to do next. */

import type { NoticeCode } from '../shared/wire/events.ts';
import { t } from '../shared/l10n.ts';

export interface DescribedError {
  readonly message: string;
  readonly code?: NoticeCode;
}

/** `proxy`: the proxy the worker's requests go through (proxyFromEnv), to word a connection problem as the proxy's. */
export function describeSessionError(err: unknown, proxy: string | undefined = proxyFromEnv(process.env)): DescribedError {
  const raw = err instanceof Error ? err.message : String(err);
  const viaProxy = proxyProblem(raw, proxy);
  if (viaProxy) return { code: 'sessionFailed', message: viaProxy };
  if (/no model|model.*not (found|configured|selected)|no models? available/i.test(raw)) {
    return {
      code: 'noModel',
      message: `${raw} — configure a model: run \`pi\` in a terminal and use /login, set a provider API key environment variable, or edit models.json in the Pi agent directory.`,
    };
  }
  // A 401 is the provider refusing the key it was given: a wrong or revoked key, not a missing one.
  if (/\b401\b|invalid.{0,20}key|incorrect.{0,20}key/i.test(raw)) {
    return { code: 'noKey', message: t('The provider refused the API key (401): it is wrong or was revoked. Replace it, then send again.') };
  }
  if (/api key|apikey|credential|unauthori[sz]ed|authenticat|\/login|oauth/i.test(raw)) {
    return {
      code: 'noKey',
      message: `${raw} — add the key: run \`pi\` in a terminal and use /login, set the provider's API key environment variable, or add it to auth.json in the Pi agent directory.`,
    };
  }
  if (/Cannot find module|pi\.cjs/i.test(raw)) {
    return { code: 'sessionFailed', message: `The Pi agent could not be loaded (${raw}). Reinstall the extension.` };
  }
  return { code: 'sessionFailed', message: withoutStack(raw) };
}

// Node's and undici's network failures, and the OpenAI SDK's wording of them: what a proxy that is down, unknown or
// unreachable looks like to the provider's client.
const CONNECTION_FAILURE = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|EHOSTUNREACH|ENETUNREACH)\b|Connection error|fetch failed|socket hang up/i;
const PROXY_AUTH = /\b407\b|Proxy Authentication Required/i;

/** The variables Node's and Pi's HTTP clients take a proxy from, in the order they prefer them. */
const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy'];

/** The proxy in the environment (`HTTPS_PROXY` and the like) as `NAME=url`, its user and password left out. */
export function proxyFromEnv(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const name = PROXY_VARIABLES.find((v) => env[v]?.trim());
  if (!name) return undefined;
  const value = env[name]!.trim();
  try {
    const url = new URL(value);
    url.username = '';
    url.password = '';
    return `${name}=${url.origin === 'null' ? url.host : url.origin}`;
  } catch {
    // Not a URL (a bare host:port): drop anything before an `@`, where a user and password would be.
    return `${name}=${value.replace(/^[^@]*@/, '')}`;
  }
}

/** A provider's error as the panel shows it: a proxy problem named as such, never a stack trace. */
export function providerErrorText(raw: string, proxy: string | undefined): string {
  return proxyProblem(raw, proxy) ?? withoutStack(raw);
}

function proxyProblem(raw: string, proxy: string | undefined): string | undefined {
  if (PROXY_AUTH.test(raw)) {
    return proxy
      ? t(
          'The proxy ({0}) wants a user name and password (407 Proxy Authentication Required). Put them in the HTTPS_PROXY setting (http://user:password@host:port) of the environment VS Code starts from, then send again.',
          proxy,
        )
      : t(
          'A proxy between VS Code and the provider wants a user name and password (407 Proxy Authentication Required). Set HTTPS_PROXY=http://user:password@host:port in the environment VS Code starts from, then send again.',
        );
  }
  if (!proxy) return undefined;
  const failure = CONNECTION_FAILURE.exec(raw);
  if (!failure) return undefined;
  return t(
    'Pi could not reach the provider through the proxy ({0}): {1}. Check the proxy setting (HTTPS_PROXY, HTTP_PROXY, NO_PROXY) in the environment VS Code starts from, or unset it, then send again.',
    proxy,
    failure[0],
  );
}

/** The message without a stack trace: the lines before the first `    at …` frame. */
function withoutStack(raw: string): string {
  const lines = raw.split('\n');
  const frame = lines.findIndex((line) => /^\s+at\s/.test(line));
  return frame < 0 ? raw : lines.slice(0, frame).join('\n').trimEnd();
}
