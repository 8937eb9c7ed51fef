/** Guards around session files brought in or taken out: a failed import leaves no copy behind; an HTML export gets numbers where Pi's template inlines numbers. */

import { readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';

/**
 * Runs an import into `dir`; when it throws, the session files it added there are removed, so a bad file
 * never becomes the "most recent session" the panel opens after a reload.
 */
export async function importLeavingNoCopy<T>(dir: string | undefined, op: () => Promise<T>): Promise<T> {
  const before = dir ? sessionFiles(dir) : undefined;
  try {
    return await op();
  } catch (err) {
    if (dir && before) for (const f of sessionFiles(dir)) if (!before.has(f)) rmSync(path.join(dir, f), { force: true });
    throw err;
  }
}

function sessionFiles(dir: string): Set<string> {
  try {
    return new Set(readdirSync(dir).filter((f) => f.endsWith('.jsonl')));
  } catch {
    return new Set();
  }
}

/** A finite number, or `fallback`. */
function num<T>(v: unknown, fallback: T): number | T {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

const USAGE_FIELDS = ['input', 'output', 'cacheRead', 'cacheWrite', 'totalTokens'] as const;

/**
 * Pi's HTML export template writes some fields into the page unescaped because they should be numbers
 * (`bashExecution.exitCode`, `compaction.tokensBefore`, usage and cost figures). A crafted session can hold
 * markup there; these entries (Pi's own, in memory, read by the export) get numbers instead. Returns how
 * many fields were changed.
 */
function coerceExportNumbers(entries: readonly unknown[]): number {
  let fixed = 0;
  const set = (o: Record<string, unknown>, key: string, fallback: number | null | undefined) => {
    if (!(key in o) || o[key] === undefined || o[key] === fallback) return;
    const v = num(o[key], fallback);
    if (v !== o[key]) {
      o[key] = v;
      fixed++;
    }
  };
  for (const raw of entries) {
    if (typeof raw !== 'object' || raw === null) continue;
    const e = raw as Record<string, unknown>;
    if (e.type === 'compaction') set(e, 'tokensBefore', 0);
    const m = e.message;
    if (typeof m !== 'object' || m === null) continue;
    const msg = m as Record<string, unknown>;
    if (msg.role === 'bashExecution') set(msg, 'exitCode', null);
    if (msg.role === 'compactionSummary') set(msg, 'tokensBefore', 0);
    const usage = msg.usage;
    if (typeof usage === 'object' && usage !== null) {
      const u = usage as Record<string, unknown>;
      for (const k of USAGE_FIELDS) set(u, k, 0);
      const cost = u.cost;
      if (typeof cost === 'object' && cost !== null) for (const k of Object.keys(cost)) set(cost as Record<string, unknown>, k, 0);
    }
  }
  return fixed;
}

/** What the export needs of a Pi session. */
export interface ExportableSession {
  exportToHtml(file: string): Promise<string>;
  readonly sessionManager: { getEntries(): readonly unknown[] };
}

/** Pi's HTML export of `session` to `file`, its number fields made numbers first; resolves to the file written. */
export async function exportSessionHtml(session: ExportableSession, file: string): Promise<string> {
  coerceExportNumbers(session.sessionManager.getEntries());
  // Always to the path the user chose: Pi's default is relative to the process, not the workspace.
  return path.resolve(await session.exportToHtml(file));
}
