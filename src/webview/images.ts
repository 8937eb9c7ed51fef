/**
 * Images in the view: the composer's strip of attached images (pasted, dropped or picked; removable by
 * button, Backspace or Delete), the thumbnails of user messages and tool results, and the larger view a
 * thumbnail opens. Images are drawn only from `data:` URLs of allow-listed raster types.
 */

import {
  formatBytes,
  IMAGE_MIME_TYPES,
  imageSrc,
  isImageMimeType,
  isImageView,
  MAX_IMAGE_BYTES,
  MAX_IMAGES,
  sniffImageType,
  type ImageAttachment,
  type ImageView,
} from '../shared/images.ts';
import { showInvisibles } from '../shared/visibleText.ts';
import { arrayBytes, imageSizeProblem } from '../shared/imageHeader.ts';
import { actionSelector, ConversationAction, DirectAction } from './actions.ts';
import { iconButton } from './components.ts';
import { h, setHidden } from './dom.ts';
import { t } from './l10n.ts';

/** What the file picker offers. */
export const IMAGE_ACCEPT = IMAGE_MIME_TYPES.join(',');

/** The composer's attached images; `problem` gets a message for the user when a file is refused. */
export class ImageStrip {
  readonly el: HTMLElement;
  private _images: ImageAttachment[] = [];
  private readonly _changed: () => void;
  /** Told the images after every change (the host keeps them for a re-created view). */
  onDidChange: ((images: readonly ImageAttachment[]) => void) | undefined;
  private readonly _problem: (message: string) => void;
  /** Where focus goes when the last image is removed from the keyboard. */
  private readonly _focusAfter: () => void;

  constructor(changed: () => void, problem: (message: string) => void, focusAfter: () => void) {
    this._changed = changed;
    this._problem = problem;
    this._focusAfter = focusAfter;
    this.el = h('div', {
      class: 'image-chips',
      'data-testid': 'composer-images',
      role: 'list',
      'aria-label': t('Images attached to the next message'),
      hidden: true,
    });
    this.el.addEventListener('click', (e) => {
      const btn = (e.target as Element).closest(actionSelector(DirectAction.RemoveImage));
      if (btn) this._remove(Number(btn.getAttribute('data-index')));
    });
    this.el.addEventListener('keydown', (e) => {
      if (e.key !== 'Backspace' && e.key !== 'Delete') return;
      const chip = (e.target as Element).closest('[data-image-index]');
      if (!chip) return;
      e.preventDefault();
      this._remove(Number(chip.getAttribute('data-image-index')));
    });
  }

  get images(): readonly ImageAttachment[] {
    return this._images;
  }

  /** Reads and checks files (pasted, dropped or picked); refused ones are named in one message, the rest attached. */
  async addFiles(files: readonly File[]): Promise<void> {
    const problems: string[] = [];
    for (const file of files) {
      const label = file.name || t('The pasted image');
      if (this._images.length >= MAX_IMAGES) {
        problems.push(t('At most {0} images go with one message; {1} was not attached.', MAX_IMAGES, label));
        continue;
      }
      if (!isImageMimeType(file.type)) {
        problems.push(t('{0} is not a PNG, JPEG, GIF or WebP image.', label));
        continue;
      }
      if (file.size > MAX_IMAGE_BYTES) {
        problems.push(t('{0} is {1}; images may be at most {2}.', label, formatBytes(file.size), formatBytes(MAX_IMAGE_BYTES)));
        continue;
      }
      const bytes = new Uint8Array(await file.arrayBuffer());
      // The type the name claims must be what the bytes are (the host checks the same).
      const sniffed = sniffImageType(bytes.subarray(0, 12));
      if (sniffed !== file.type) {
        problems.push(t('{0} is not a readable {1} image.', label, file.type.slice(6).toUpperCase()));
        continue;
      }
      const tooLarge = imageSizeProblem(label, sniffed, arrayBytes(bytes));
      if (tooLarge) {
        problems.push(tooLarge);
        continue;
      }
      this._images.push({ mimeType: sniffed, data: toBase64(bytes), ...(file.name ? { name: file.name.slice(0, 200) } : {}) });
    }
    this._render();
    this._changed();
    if (problems.length) this._problem(problems.join(' '));
  }

  /** Puts images back (a cancelled queue's), up to the limit. */
  restore(images: readonly ImageAttachment[]): void {
    if (!images.length) return;
    for (const img of images) if (this._images.length < MAX_IMAGES && isImageMimeType(img.mimeType) && typeof img.data === 'string') this._images.push(img);
    this._render();
    this._changed();
  }

  clear(): void {
    if (!this._images.length) return;
    this._images = [];
    this._render();
  }

  private _remove(i: number): void {
    if (!(i >= 0 && i < this._images.length)) return;
    this._images.splice(i, 1);
    this._render();
    this._changed();
    // Focus stays in the strip (the next image, else the previous one), or returns to the text.
    const buttons = this.el.querySelectorAll<HTMLButtonElement>(actionSelector(DirectAction.RemoveImage));
    const next = buttons[Math.min(i, buttons.length - 1)];
    if (next) next.focus();
    else this._focusAfter();
  }

  private _render(): void {
    this.onDidChange?.(this._images.slice());
    setHidden(this.el, this._images.length === 0);
    this.el.replaceChildren(
      ...this._images.map((img, i) => {
        // A pasted or restored file's name: invisible characters in it show.
        const name = showInvisibles(img.name ?? t('Image {0}', i + 1), { oneLine: true });
        const size = formatBytes(base64Size(img.data));
        return h(
          'span',
          { class: 'image-chip', role: 'listitem', 'data-image-index': String(i), title: `${name} (${size})` },
          h('img', { class: 'image-chip-thumb', src: `data:${img.mimeType};base64,${img.data}`, alt: '' }),
          h('span', { class: 'image-chip-label' }, name),
          iconButton('×', t('Remove image {0}', name), DirectAction.RemoveImage, { 'data-index': String(i) }),
        );
      }),
    );
  }
}

function base64Size(data: string): number {
  return Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
}

/** Base64 of bytes, in pieces so a 5 MB image does not overflow the argument list. */
function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** The image files of a paste or drop (files, or clipboard items of kind file). */
export function filesOf(data: DataTransfer | null): File[] {
  if (!data) return [];
  const files = Array.from(data.files ?? []);
  if (files.length) return files;
  const out: File[] = [];
  for (const item of Array.from(data.items ?? [])) {
    if (item.kind !== 'file') continue;
    const f = item.getAsFile();
    if (f) out.push(f);
  }
  return out;
}

/**
 * Thumbnails of a message's images: each a button that opens the larger view (`data-action="open-image"`),
 * or a placeholder naming what is not shown (a type outside the allow-list, or too large to send to the view).
 */
export function imageGallery(media: readonly ImageView[], owner: string): HTMLElement {
  const items = media.filter(isImageView).map((v, i) => {
    const what = `${v.mimeType}, ${formatBytes(v.bytes)}`;
    const label = t('{0} image {1} of {2} ({3})', owner, i + 1, media.length, what);
    const src = imageSrc(v);
    if (!src)
      return h(
        'span',
        { class: 'image-placeholder', 'data-image': 'placeholder', role: 'img', 'aria-label': t('{0}, not shown', label) },
        t('Image not shown ({0})', what),
      );
    return h(
      'button',
      {
        type: 'button',
        class: 'image-thumb',
        'data-image': 'thumb',
        'data-action': ConversationAction.OpenImage,
        'aria-label': t('{0}: open larger', label),
        title: what,
      },
      h('img', { src, alt: '' }),
    );
  });
  return h('div', { class: 'image-gallery', 'data-testid': 'images' }, ...items);
}

/** The larger view of one image: a modal over the chat; Escape, Close or a click outside closes it and focus returns. */
export class ImageViewer {
  readonly el: HTMLElement;
  private readonly _img: HTMLImageElement;
  private readonly _caption: HTMLElement;
  private readonly _close: HTMLButtonElement;
  private _returnTo: HTMLElement | undefined;

  constructor() {
    this._img = h('img', { class: 'image-viewer-img', alt: '' });
    this._caption = h('div', { class: 'image-viewer-caption', id: 'image-viewer-caption' });
    this._close = iconButton('×', t('Close image'), DirectAction.CloseImage);
    this.el = h(
      'div',
      { class: 'image-viewer', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'image-viewer-caption', 'data-testid': 'image-viewer', hidden: true },
      h('div', { class: 'image-viewer-frame' }, this._close, this._img, this._caption),
    );
    this.el.addEventListener('click', (e) => {
      const t = e.target as Element;
      if (t === this.el || t.closest(actionSelector(DirectAction.CloseImage))) this.close();
    });
    this.el.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        // Not a cancel of the run: this Escape only closes the picture.
        e.preventDefault();
        e.stopPropagation();
        this.close();
      } else if (e.key === 'Tab') {
        // One control: focus stays on it while the view is open.
        e.preventDefault();
        this._close.focus();
      }
    });
    this._img.addEventListener('load', () => {
      const { naturalWidth: w, naturalHeight: h2 } = this._img;
      if (w && h2) this._caption.textContent = `${this._caption.textContent ?? ''} · ${w} × ${h2} px`;
    });
  }

  get isOpen(): boolean {
    return !this.el.hidden;
  }

  /** Opens the image a thumbnail button shows. */
  open(thumb: HTMLElement): void {
    const img = thumb.querySelector('img');
    const src = img?.getAttribute('src') ?? '';
    // Only what a thumbnail drew: a data: URL of an allow-listed type.
    if (!/^data:image\/(png|jpeg|gif|webp);base64,/.test(src)) return;
    this._returnTo = thumb;
    this._caption.textContent = thumb.getAttribute('title') ?? t('Image');
    this._img.src = src;
    setHidden(this.el, false);
    this._close.focus();
  }

  close(): void {
    if (this.el.hidden) return;
    setHidden(this.el, true);
    this._img.removeAttribute('src');
    const back = this._returnTo;
    this._returnTo = undefined;
    if (back?.isConnected) back.focus();
  }
}
