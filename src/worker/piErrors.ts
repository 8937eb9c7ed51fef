/** Turns errors from loading Pi or starting a prompt into messages that say what to do next. */

import type { NoticeCode } from '../shared/wire/events.ts';
import { t } from '../shared/l10n.ts';

export interface DescribedError {
  readonly message: string;
  readonly code?: NoticeCode;
}

export function describeSessionError(err: unknown): DescribedError {
  const raw = err instanceof Error ? err.message : String(err);
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
  return { code: 'sessionFailed', message: raw };
}
