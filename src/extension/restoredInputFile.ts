/**
 * Queued messages (and their images) that a window reload took out of Pi's queue: kept in the extension's
 * storage while the extension host ends, and put back in the composer by the next one, as Cancel does.
 */

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseImageAttachments } from '../shared/images.ts';
import type { Logger, RestoredInput } from '../shared/wire/workerProtocol.ts';

/** Adds `input` to what `file` keeps (synchronously: the extension host is ending). */
export function keepRestoredInput(file: string, input: RestoredInput, log: Logger): void {
  try {
    const kept = readRestoredInput(file);
    const texts = [...(kept?.texts ?? []), ...input.texts];
    const images = [...(kept?.images ?? []), ...(input.images ?? [])];
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ texts, ...(images.length ? { images } : {}) }));
  } catch (err) {
    log.warn(`Queued messages could not be kept for the reload: ${String(err)}`);
  }
}

/** What `file` keeps, removed from it; undefined when nothing (valid) is there. */
export function takeRestoredInput(file: string, log: Logger): RestoredInput | undefined {
  try {
    const input = readRestoredInput(file);
    rmSync(file, { force: true });
    return input;
  } catch (err) {
    log.warn(`Queued messages kept for the reload could not be read: ${String(err)}`);
    return undefined;
  }
}

function readRestoredInput(file: string): RestoredInput | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as { texts?: unknown; images?: unknown };
  if (!Array.isArray(r.texts) || !r.texts.every((t) => typeof t === 'string')) return undefined;
  const images = r.images === undefined ? undefined : parseImageAttachments(r.images);
  if (images && !images.ok) return undefined;
  return { texts: r.texts as string[], ...(images?.ok && images.images.length ? { images: images.images } : {}) };
}
