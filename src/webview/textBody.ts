/** The seam between the transcript renderer and what draws a text block's content (plain text, markdown, a user prompt's chips). */

/** How a text block's content is turned into DOM: plain text, or markdown for the assistant. */
export interface TextBody {
  readonly el: HTMLElement;
  update(text: string, final: boolean): void;
}

/** Makes one `TextBody` per text block. */
export type TextBodyFactory = () => TextBody;
