/** A chat's prompts on their way to Pi: held while the session opens, sent to the worker, and Cancel in every phase. */

import type { ImageAttachment } from '../shared/images.ts';
import type { SendMode } from '../shared/wire/webviewProtocol.ts';
import type { RestoredInput } from '../shared/wire/workerProtocol.ts';
import type { TranscriptMirror } from './transcriptMirror.ts';
import type { WaitingPrompts } from './waitingPrompts.ts';
import type { WorkerRpc } from './workerRpc.ts';
import type { WorkerSupervisor } from './workerSupervisor.ts';

/** What sending and cancelling use of the chat's client. */
export interface PromptParts {
  readonly supervisor: WorkerSupervisor;
  readonly rpc: WorkerRpc;
  readonly mirror: TranscriptMirror;
  readonly waiting: WaitingPrompts;
  /** Whether the session is open now. */
  ready(): boolean;
  /** Input that goes back to the composer. */
  giveBack(input: RestoredInput): void;
}

/** Sends one chat's prompts and cancels its runs. */
export class ChatPrompts {
  private readonly _parts: PromptParts;

  constructor(parts: PromptParts) {
    this._parts = parts;
  }

  /** Sends a prompt (with its images) while idle; while a run is active Pi queues it as steer or follow-up. */
  async send(text: string, mode: SendMode, images?: readonly ImageAttachment[]): Promise<void> {
    if (!text.trim() && !images?.length) return;
    const { supervisor, waiting } = this._parts;
    const worker = supervisor.start();
    // The session is still opening (Pi loads in the worker): hold the prompt until it exists.
    if (!this._parts.ready() && !(await waiting.hold(text, mode, images, worker.ready, () => worker === supervisor.current))) return;
    worker.sending++;
    try {
      await this._parts.rpc.call('send', { text, mode, ...(images?.length ? { images } : {}) });
    } finally {
      worker.sending--;
      // Normally the run's start ended "starting"; a prompt Pi refused ends it here.
      waiting.endStarting();
    }
  }

  /** Cancels the run; prompts still waiting for the session are dropped and given back. Works in every phase. */
  async cancel(): Promise<void> {
    const { mirror, supervisor } = this._parts;
    const waiting = this._parts.waiting.take();
    if (waiting) {
      mirror.starting(false);
      this._parts.giveBack(waiting);
    }
    const run = mirror.state.run;
    // An open extension dialog is answered as dismissed even when no run is active (a command asked). A prompt
    // on its way to the worker has no run yet: the worker stops it before, or as soon as, its run starts.
    const sending = (supervisor.current?.sending ?? 0) > 0;
    if ((!mirror.isActive || run.cancelling) && !run.dialogs && !run.shell && !sending) return;
    await this._parts.rpc.call('cancel', null);
  }
}
