/** Prompts sent before the chat's session existed: held until it opens, given back to the composer on Cancel or a failed start. */

import type { ImageAttachment } from '../shared/images.ts';
import type { SendMode } from '../shared/wire/webviewProtocol.ts';
import type { RestoredInput } from '../shared/wire/workerProtocol.ts';
import type { TranscriptMirror } from './transcriptMirror.ts';

/** A prompt sent before the session existed. */
interface WaitingPrompt {
  readonly text: string;
  readonly mode: SendMode;
  readonly images?: readonly ImageAttachment[];
}

/** One chat's waiting prompts; while there are any, the transcript shows the session starting. */
export class WaitingPrompts {
  private _items: WaitingPrompt[] = [];
  private readonly _mirror: TranscriptMirror;
  private readonly _giveBack: (input: RestoredInput) => void;

  /** `giveBack` returns prompts that never reached Pi to the composer. */
  constructor(mirror: TranscriptMirror, giveBack: (input: RestoredInput) => void) {
    this._mirror = mirror;
    this._giveBack = giveBack;
  }

  get any(): boolean {
    return this._items.length > 0;
  }

  /**
   * Holds a prompt until `opened` settles: true when it is to be sent now; false when Cancel took it back
   * meanwhile or the session did not open in the worker `current` still says runs (then it goes back to the composer).
   */
  async hold(text: string, mode: SendMode, images: readonly ImageAttachment[] | undefined, opened: Promise<boolean>, current: () => boolean): Promise<boolean> {
    const item: WaitingPrompt = { text, mode, ...(images?.length ? { images } : {}) };
    this._items.push(item);
    if (this._items.length === 1) this._mirror.starting(true);
    const ok = await opened;
    const i = this._items.indexOf(item);
    if (i < 0) return false; // cancelled meanwhile; the text went back to the composer
    this._items.splice(i, 1);
    if (ok && current()) return true;
    this.endStarting();
    this._giveBack(restoredInput([item]));
    return false;
  }

  /** Leaves the starting state once no prompt waits for the session any more. */
  endStarting(): void {
    if (this._mirror.state.run.starting && !this._items.length) this._mirror.starting(false);
  }

  /** Gives every waiting prompt back to the composer (the worker stopped). */
  giveBackAll(): void {
    const waiting = this.take();
    if (waiting) this._giveBack(waiting);
  }

  /** Empties the prompts waiting for the session; what goes back to the composer, if any. */
  take(): RestoredInput | undefined {
    const waiting = this._items;
    this._items = [];
    return waiting.length ? restoredInput(waiting) : undefined;
  }
}

/** Prompts (and their images) going back to the composer. */
function restoredInput(prompts: readonly WaitingPrompt[]): RestoredInput {
  const images = prompts.flatMap((p) => p.images ?? []);
  return { texts: prompts.map((p) => p.text), ...(images.length ? { images } : {}) };
}
