/** Each chat's plan document: where it lives, which plan reply it was last filled with, and what Act on Plan sends from it. */

import * as path from 'node:path';

/** What names a chat's plan document: the chat's id and its number (0 for the sidebar's). */
export interface PlanChatRef {
  readonly id: string;
  readonly number: number;
}

/**
 * The plan documents of the window's chats, one per chat: one chat's edits never reach what another chat's Act on
 * Plan sends, and one chat opening its plan never makes another's document stop counting as its plan.
 */
export class PlanFiles {
  private readonly _dir: string;
  private readonly _name: (chatNumber: number) => string;
  /** By chat id: the plan reply its document was last filled with (until acted on). */
  private readonly _filled = new Map<string, string>();

  /** `dir`: where the documents live; `name`: a chat's document's file name, from its number. */
  constructor(dir: string, name: (chatNumber: number) => string) {
    this._dir = dir;
    this._name = name;
  }

  /** The chat's document. */
  fileOf(chat: PlanChatRef): string {
    // A translated name must still be one file name inside the folder.
    return path.join(this._dir, path.basename(this._name(chat.number).replace(/[\\/:*?"<>|]/g, '-')));
  }

  /** Whether the chat's document does not hold `draft` yet (another reply replaces its text). */
  needsFill(chat: PlanChatRef, draft: string): boolean {
    return this._filled.get(chat.id) !== draft;
  }

  /** The chat's document now holds `draft`. */
  filled(chat: PlanChatRef, draft: string): void {
    this._filled.set(chat.id, draft);
  }

  /** The plan was sent: the document no longer stands for a plan to act on. */
  acted(chat: PlanChatRef): void {
    this._filled.delete(chat.id);
  }

  /**
   * What Act on Plan sends for the chat whose plan reply is `draft`: its own document's text (`read`, edits
   * included) while that holds this plan, else the plan as Pi wrote it. `read` may throw: then the draft.
   */
  toSend(chat: PlanChatRef, draft: string, read: (file: string) => string, onError?: (err: unknown) => void): string {
    if (this.needsFill(chat, draft)) return draft;
    try {
      return read(this.fileOf(chat));
    } catch (err) {
      onError?.(err);
      return draft;
    }
  }
}
