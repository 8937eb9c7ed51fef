/**
 * Guards around session files brought in or taken out: a failed import leaves no copy behind (also when the worker
 * dies before the import finished); an HTML export gets numbers where Pi's template inlines numbers.
 */

import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/** How much of a session file's first line (its header) is read to tell which session it holds. */
const HEADER_BYTES = 64 * 1024;

/**
 * Runs an import of `source` into `dir`. When it throws, the session files it added there are removed, so a bad
 * file never becomes the "most recent session" the panel opens after a reload. Until it returns (the copy opened,
 * shown and Pi's extensions bound), `pending` records it: a worker that dies meanwhile leaves the record, and the
 * next worker's start removes the copy (`PendingImport.removeLeftover`).
 */
export async function importLeavingNoCopy<T>(dir: string | undefined, source: string, op: () => Promise<T>, pending?: PendingImport): Promise<T> {
  const before = dir ? sessionFiles(dir) : undefined;
  if (dir && before) pending?.mark(dir, before, source);
  try {
    return await op();
  } catch (err) {
    if (dir && before) for (const f of sessionFiles(dir)) if (!before.has(f)) rmSync(path.join(dir, f), { force: true });
    throw err;
  } finally {
    pending?.clear();
  }
}

/** What a pending import's record holds: the session folder, the session files there before, which session the import copies. */
interface PendingRecord {
  readonly dir: string;
  readonly before: readonly string[];
  readonly session: string;
}

/**
 * An import under way, recorded in the chat's storage (`pending-import.json`) until it has finished. The copy is
 * found again by the session id in its header (Pi may rewrite the file when it opens it, migrating an old version):
 * a session another chat or Pi's CLI saved meanwhile has its own, and a file that was in the folder before the
 * import is never touched.
 */
export class PendingImport {
  private readonly _storageDir: () => string | undefined;

  /** `storageDir`: the chat's storage folder; without one nothing is recorded (nothing would outlive the worker). */
  constructor(storageDir: () => string | undefined) {
    this._storageDir = storageDir;
  }

  private get _file(): string | undefined {
    const dir = this._storageDir();
    return dir ? path.join(dir, 'pending-import.json') : undefined;
  }

  /** Records an import of `source` into `dir`, whose session files were `before`. */
  mark(dir: string, before: ReadonlySet<string>, source: string): void {
    const file = this._file;
    if (!file) return;
    const session = sessionIdentity(source);
    if (!session) return;
    const record: PendingRecord = { dir, before: [...before], session };
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(record));
  }

  /** The import finished (or failed and cleaned up after itself): nothing is pending. */
  clear(): void {
    const file = this._file;
    if (file) rmSync(file, { force: true });
  }

  /**
   * At a worker's start, before any session opens: removes the copy an import left when the worker before died
   * during it, and the record. Returns the files removed.
   */
  removeLeftover(): string[] {
    const file = this._file;
    if (!file) return [];
    let record: PendingRecord | undefined;
    try {
      record = parseRecord(readFileSync(file, 'utf8'));
    } catch {
      return [];
    }
    const removed: string[] = [];
    if (record) {
      const before = new Set(record.before);
      for (const name of sessionFiles(record.dir)) {
        const copy = path.join(record.dir, name);
        if (before.has(name) || sessionIdentity(copy) !== record.session) continue;
        rmSync(copy, { force: true });
        removed.push(copy);
      }
    }
    this.clear();
    return removed;
  }
}

function parseRecord(text: string): PendingRecord | undefined {
  const r = JSON.parse(text) as Partial<PendingRecord> | null;
  if (!r || typeof r.dir !== 'string' || typeof r.session !== 'string' || !r.session || !Array.isArray(r.before)) return undefined;
  return { dir: r.dir, session: r.session, before: r.before.filter((n): n is string => typeof n === 'string') };
}

/** Which session `file` holds: the id in its header, else its first line as it is; undefined when it has none. */
function sessionIdentity(file: string): string | undefined {
  const line = firstLine(file);
  if (!line) return undefined;
  try {
    const header = JSON.parse(line) as { type?: unknown; id?: unknown } | null;
    if (header?.type === 'session' && typeof header.id === 'string' && header.id) return `id:${header.id}`;
  } catch {
    // Not JSON: the line itself tells the copy.
  }
  return `line:${line}`;
}

/** The first line of `file` (at most `HEADER_BYTES`); '' when it cannot be read. */
function firstLine(file: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buf = Buffer.alloc(HEADER_BYTES);
    const n = readSync(fd, buf, 0, HEADER_BYTES, 0);
    const text = buf.subarray(0, n).toString('utf8');
    const end = text.indexOf('\n');
    return end < 0 ? text : text.slice(0, end);
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
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
