/** What screen readers are told about the conversation: finished replies and notices, once each, and each new question Pi asks. */

import type { ExtensionUiState } from '../shared/transcript/dialogsAndWidgets.ts';
import type { TranscriptState } from '../shared/transcript/rows.ts';
import { rowAt, rowCount } from '../shared/transcript/rowStore.ts';
import { Announcer, spokenText } from './a11y.ts';
import { renderMarkdown } from './markdown.ts';
import { t } from './l10n.ts';

/** Characters of a reply rendered again to be announced: enough for the 400 that are said. */
const ANNOUNCE_SOURCE_CHARS = 4000;

/** Announces rows as they become final, never a delta; remembers what it said for the life of the view. */
export class Announcements {
  /** The live region replies and questions are said in. */
  readonly el: HTMLElement;
  private readonly _announcer = new Announcer('announce-replies');
  /** Highest message id already announced (or present when the view opened). */
  private _announced = 0;
  private readonly _dialogs = new Set<string>();

  constructor() {
    this.el = this._announcer.el;
  }

  /** A snapshot's rows are already there, not news: only rows after them are announced. */
  skip(state: TranscriptState): void {
    this._announced = lastFinalId(state);
  }

  /** A new question is announced once: screen-reader users learn that Pi waits for them. */
  dialogs(ui: ExtensionUiState | undefined): void {
    for (const d of ui?.dialogs ?? []) {
      if (this._dialogs.has(d.id)) continue;
      this._dialogs.add(d.id);
      this._announcer.say(t('Pi is waiting for you: {0}', d.title));
    }
  }

  /** Tells screen readers about finished replies (as rendered, not as markdown) and notices, once each, never about every delta. */
  finished(state: TranscriptState): void {
    // Read from the newest rows back, without building the row list: a frame costs the same at any length.
    const count = rowCount(state);
    let i = count;
    while (i > 0 && rowAt(state, i - 1)!.id > this._announced) i--;
    const parts: string[] = [];
    for (; i < count; i++) {
      const m = rowAt(state, i)!;
      if (!m.final) break;
      this._announced = m.id;
      if (m.role === 'assistant') {
        const text = m.blocks
          .filter((b) => b?.kind === 'text')
          .map((b) => spokenText(renderMarkdown(replyStart(b!.text), false)))
          .join('\n')
          .trim();
        const stop = m.stopReason === 'aborted' ? ' (cancelled)' : m.stopReason === 'error' ? t(' Error: {0}', m.errorMessage ?? '') : '';
        if (text || stop) parts.push(t('Pi: {0}{1}', text.slice(0, 400), stop));
      } else if (m.role === 'notice') parts.push(m.blocks[0]?.text.slice(0, 400) ?? '');
    }
    if (parts.length) this._announcer.say(parts.join('\n'));
  }
}

function lastFinalId(state: TranscriptState): number {
  let id = 0;
  const count = rowCount(state);
  for (let i = 0; i < count; i++) {
    const m = rowAt(state, i)!;
    if (!m.final) break;
    id = m.id;
  }
  return id;
}

/**
 * The start of a reply's markdown, for its announcement: rendering a whole long reply again (a 3,000-item
 * list) would cost the frame that finishes it hundreds of milliseconds. It ends at a blank line or a space,
 * and keeps the reply's link reference definitions so links in it read as links.
 */
function replyStart(text: string): string {
  if (text.length <= ANNOUNCE_SOURCE_CHARS) return text;
  const half = ANNOUNCE_SOURCE_CHARS / 2;
  const blank = text.lastIndexOf('\n\n', ANNOUNCE_SOURCE_CHARS);
  const space = text.lastIndexOf(' ', ANNOUNCE_SOURCE_CHARS);
  const cut = blank > half ? blank : space > half ? space : ANNOUNCE_SOURCE_CHARS;
  const definitions = text.match(/^ {0,3}\[[^\]\n]+\]:.*$/gm) ?? [];
  return `${text.slice(0, cut)}\n\n${definitions.join('\n')}`;
}
