/** Host messages into the view: a shape check, then one handler per message type from a table the compiler holds complete; the worker's changes applied by id. */

import type { HostToWebview } from '../shared/wire/webviewProtocol.ts';
import { isKnownEvent, type WireEvent } from '../shared/wire/events.ts';
import { applyChange, mergedPatches } from '../shared/transcript/applyChanges.ts';
import { type TranscriptState } from '../shared/transcript/rows.ts';

/** A handler for every message type the host sends: leaving one out does not compile. */
export type HostMessageHandlers = { readonly [K in HostToWebview['type']]: (msg: Extract<HostToWebview, { readonly type: K }>) => void };

/** Hands `raw` to its type's handler; a message this version does not know is skipped, never fatal. */
export function dispatchHostMessage(raw: unknown, handlers: HostMessageHandlers): void {
  if (typeof raw !== 'object' || raw === null || typeof (raw as { type?: unknown }).type !== 'string') return;
  const msg = raw as HostToWebview;
  // Own keys only: a message named like an `Object.prototype` member is as unknown as any other.
  const handler = Object.hasOwn(handlers, msg.type) ? (handlers[msg.type] as (m: HostToWebview) => void) : undefined;
  if (handler) handler(msg);
  // l10n-ignore: not text the user reads
  else warnOnce(`ignored unknown message ${String((msg as { type: string }).type)}`);
}

/** Applies the changes among wire events one by one (the view reduces nothing); an event this version does not know is skipped, never fatal. */
export function applyEvents(state: TranscriptState, events: readonly WireEvent[]): TranscriptState {
  let s = state;
  for (const ev of coalesce(events)) {
    try {
      if (isKnownEvent(ev)) s = applyChange(s, ev);
      // l10n-ignore: not text the user reads
      else warnOnce(`ignored unknown event ${String((ev as { type?: unknown }).type)}`);
    } catch (err) {
      // l10n-ignore: not text the user reads
      warnOnce(`failed to apply ${String((ev as { type?: unknown }).type)}: ${String(err)}`);
    }
  }
  return s;
}

/**
 * Joins runs of patches to the same block into one: the row is then copied once per run instead of once per
 * patch (a frame at 2,000 deltas/s carries about 30 of them, when the host's batcher has not joined them).
 */
function coalesce(events: readonly WireEvent[]): WireEvent[] {
  const out: WireEvent[] = [];
  for (const ev of events) {
    const last = out[out.length - 1];
    const merged = ev?.type === 'patch' && last?.type === 'patch' && typeof ev.text === 'string' ? mergedPatches(last, ev) : undefined;
    if (merged) out[out.length - 1] = merged;
    else out.push(ev);
  }
  return out;
}

// For the page's lifetime: a console line per kind of surprise, not one per message.
const warned = new Set<string>();

function warnOnce(what: string): void {
  if (warned.has(what)) return;
  warned.add(what);
  console.warn(`[pi webview] ${what}`);
}
