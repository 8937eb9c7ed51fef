/** Assistant text rendering (phase 1: plain text; markdown comes next). */

import { plainBody, type TextBody } from './transcriptView.ts';

export function markdownBody(): TextBody {
  return plainBody();
}
