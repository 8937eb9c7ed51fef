/**
 * The images attached in the composer, kept on disk in the extension's storage: a window reload ends the
 * extension host, and they come back with the draft's text (which the webview keeps in its own state). One
 * file of raw bytes per image and an index written last, so a write cut short reads back as no draft.
 */

import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseImageAttachments, type ImageAttachment } from '../shared/images.ts';
import type { Logger } from '../shared/wire/workerProtocol.ts';

const INDEX = 'index.json';

export class ComposerImageDraft {
  private readonly _dir: string | undefined;
  private readonly _log: Logger;
  private _writes: Promise<void> = Promise.resolve();
  /** What is on disk (or on its way there): a view that is re-created sends the same images back. */
  private _kept: readonly ImageAttachment[] = [];

  /** `dir`: a folder of its own in the extension's storage; undefined keeps nothing across reloads. */
  constructor(dir: string | undefined, log: Logger) {
    this._dir = dir;
    this._log = log;
  }

  /** The images kept by the last save, checked as anything from the webview is; none if missing or invalid. */
  async load(): Promise<ImageAttachment[]> {
    const dir = this._dir;
    if (!dir) return [];
    await this._writes;
    let index: unknown;
    try {
      index = JSON.parse(await fs.readFile(path.join(dir, INDEX), 'utf8'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this._log.warn(`The composer's attached images could not be read back: ${String(err)}`);
      return [];
    }
    try {
      if (!Array.isArray(index)) throw new Error('its index is not a list');
      const raw = await Promise.all(
        index.map(async (entry: unknown, i) => ({
          ...(typeof entry === 'object' && entry !== null ? entry : {}),
          data: (await fs.readFile(path.join(dir, `${i}.bin`))).toString('base64'),
        })),
      );
      const parsed = parseImageAttachments(raw);
      if (!parsed.ok) throw new Error(parsed.reason);
      this._kept = parsed.images;
      return parsed.images;
    } catch (err) {
      this._log.warn(`The composer's attached images were not restored: ${err instanceof Error ? err.message : String(err)}`);
      return [];
    }
  }

  /** Keeps `images` in place of what was kept (unless they are the same); writes run one after another, the last one wins. */
  save(images: readonly ImageAttachment[]): Promise<void> {
    if (sameImages(images, this._kept)) return this._writes;
    this._kept = images;
    this._writes = this._writes
      .then(() => this._write(images))
      .catch((err: unknown) => this._log.warn(`The composer's attached images could not be kept for a reload: ${String(err)}`));
    return this._writes;
  }

  private async _write(images: readonly ImageAttachment[]): Promise<void> {
    const dir = this._dir;
    if (!dir) return;
    await fs.rm(dir, { recursive: true, force: true });
    if (!images.length) return;
    await fs.mkdir(dir, { recursive: true });
    for (const [i, image] of images.entries()) await fs.writeFile(path.join(dir, `${i}.bin`), Buffer.from(image.data, 'base64'));
    const index = images.map(({ mimeType, name }) => ({ mimeType, ...(name !== undefined ? { name } : {}) }));
    await fs.writeFile(path.join(dir, INDEX), JSON.stringify(index));
  }
}

function sameImages(a: readonly ImageAttachment[], b: readonly ImageAttachment[]): boolean {
  return a.length === b.length && a.every((x, i) => x.data === b[i]!.data && x.mimeType === b[i]!.mimeType && x.name === b[i]!.name);
}
