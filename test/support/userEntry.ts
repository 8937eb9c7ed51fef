/** The session entry a user row names, as the webview reads it off the row it was clicked on. */

import { strict as assert } from 'node:assert';
import type { TranscriptState } from '../../src/shared/transcript/rows.ts';

/** `{ entryId }` of the last user row whose text is `text`; fails the test when there is none or it names no entry. */
export function userEntry(state: TranscriptState, text: string): { entryId: string } {
  const row = state.messages.findLast((m) => m.role === 'user' && m.blocks.map((b) => b?.text ?? '').join('') === text);
  assert.ok(row?.role === 'user', `no user row "${text}"`);
  assert.ok(row.entryId, `the user row "${text}" names no session entry`);
  return { entryId: row.entryId };
}
