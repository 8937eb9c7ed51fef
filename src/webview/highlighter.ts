/**
 * The code highlighter (highlight.js, in its own chunk): asked for the first time a code block with a language is drawn.
 * Code drawn before it arrives shows as plain text and is highlighted in place once it has: the same text in the same
 * element, only coloured, so nothing moves.
 */

import type { HLJSApi } from 'highlight.js';
import { loadChunk } from './lazyChunk.ts';

let api: HLJSApi | undefined;
let asked = false;
// Code blocks drawn as plain text while the chunk loads, with how to colour each once it is here.
let waiting: { block: HTMLElement; paint: (hljs: HLJSApi) => void }[] = [];

/** highlight.js, once loaded. */
export function highlighter(): HLJSApi | undefined {
  return api;
}

/** Starts loading the highlighter if nothing has yet. */
export function needHighlighter(): void {
  if (asked) return;
  asked = true;
  loadChunk<HLJSApi>('highlight.js', '__piHighlight').then(
    (loaded) => {
      api = loaded;
      settle((w) => w.paint(loaded));
    },
    // Code stays plain text: readable, only not coloured.
    () => settle(() => undefined),
  );
}

/**
 * Colours `block`'s code with `paint` once the highlighter is here. Until then the block carries `data-highlight`, the mark
 * of highlighting still to come that the streaming renderer's deferred highlighting also uses.
 */
export function highlightWhenLoaded(block: HTMLElement, paint: (hljs: HLJSApi) => void): void {
  block.setAttribute('data-highlight', 'pending');
  waiting.push({ block, paint });
  needHighlighter();
}

function settle(each: (w: { block: HTMLElement; paint: (hljs: HLJSApi) => void }) => void): void {
  const all = waiting;
  waiting = [];
  for (const w of all) {
    w.block.removeAttribute('data-highlight');
    each(w);
  }
}
