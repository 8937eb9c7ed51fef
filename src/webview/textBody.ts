/** How a text block's content becomes DOM: the contract the transcript's text parts render through, and plain text. */

import { h, setText } from './dom.ts';

/** How a text block's content is turned into DOM: plain text, or markdown for the assistant. */
export interface TextBody {
  readonly el: HTMLElement;
  update(text: string, final: boolean): void;
}

/** Makes a fresh body for a new text block. */
export type TextBodyFactory = () => TextBody;

/** Plain, safe text (user prompts, notices): set as text, appended in place while it grows. */
export function plainBody(): TextBody {
  const el = h('div', { class: 'plain' });
  return { el, update: (text) => setText(el, text) };
}
