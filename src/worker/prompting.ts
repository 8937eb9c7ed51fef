/**
 * Prompts into the open session: send (with images) or queue as steer / follow-up, cancel with the queue
 * given back to the composer, retry the last prompt, and manual compaction.
 */

import type { CommandHandlers } from '../shared/wire/commands.ts';
import type { Scheduler } from '../shared/batcher.ts';
import type { IDisposable } from '../shared/disposable.ts';
import type { ImageAttachment } from '../shared/images.ts';
import type { SendMode } from '../shared/wire/webviewProtocol.ts';
import type { WireEvent } from '../shared/wire/events.ts';
import type { TranscriptState } from '../shared/transcript/rows.ts';
import type { Logger } from '../shared/wire/workerProtocol.ts';
import { errorText, type AgentSessionLike, type ControllerOptions } from './agentSession.ts';
import type { RunWatchdog } from './runWatchdog.ts';
import { restored, type SessionNotices } from './sessionNotices.ts';
import { t } from '../shared/l10n.ts';
import { applyQueueEdit, type QueueEdit } from '../shared/queueEdit.ts';
import { canRequeue, queuesOf, replaceQueues } from './queueEditing.ts';

/** What prompting needs of the session's owner. */
export interface PromptTarget {
  state(): TranscriptState;
  session(): AgentSessionLike | undefined;
  isActive(): boolean;
  /** The open session found no model with credentials. */
  noModel(): boolean;
  ensureSession(): Promise<AgentSessionLike | undefined>;
  /** Opens the session again, quietly: a key may have been added since it opened. */
  reopenQuietly(): Promise<AgentSessionLike | undefined>;
  apply(events: readonly WireEvent[]): void;
  onDidEmit(listener: (events: readonly WireEvent[]) => void): IDisposable;
  /** Cancel was asked for: open extension dialogs are answered as dismissed, a `!` command stops. */
  willCancel(): void;
  /**
   * A prompt is about to start a run: the workspace's checkpoint is taken first. Resolves to why, when none
   * could be taken for a reason the user should hear of (a rejection counts as such a reason too).
   */
  beforePrompt(session: AgentSessionLike): Promise<string | void>;
  /** The prompt `beforePrompt` was for was cancelled before Pi got it. */
  promptDropped(): void;
}

/**
 * How long a prompt waits for its checkpoint. A checkpoint is seconds at worst on a large workspace (it was
 * staged when the session opened); one stuck on the filesystem must not hold the user's message back.
 */
export const CHECKPOINT_WAIT_MS = 20_000;

/** A queued message's images, by its text. */
interface QueuedImages {
  readonly text: string;
  readonly images: readonly ImageAttachment[];
}

/** Prompts, cancel and compaction of one session owner (`SessionController`). */
export class Prompting {
  private _lastPrompt: { text: string; images?: readonly ImageAttachment[] } | undefined;
  /**
   * Images of steering and follow-up messages still in Pi's queue, by their text: `clearQueue()` gives back
   * only texts, and Cancel must put the images back in the composer too.
   */
  private _queuedImages: QueuedImages[] = [];
  /**
   * A prompt sent while idle whose run has not started yet (the session opening, the checkpoint, Pi's input
   * hooks and auth check): a cancel meanwhile finds no run to abort, so it is noted here and carried out.
   */
  private readonly _starting = new Set<{ cancelled: boolean }>();
  private readonly _target: PromptTarget;
  private readonly _notices: SessionNotices;
  private readonly _watchdog: RunWatchdog;
  private readonly _log: Logger;
  private readonly _clock: Scheduler;
  private readonly _options: ControllerOptions;

  /** The commands of the table (`COMMANDS`) this part answers. */
  readonly commands: CommandHandlers<'compact' | 'compactWith' | 'editQueue'> = {
    compact: () => this.compact(),
    compactWith: ({ instructions }) => this.compact(instructions),
    editQueue: async (edit) => this.editQueue(edit),
  };

  constructor(target: PromptTarget, notices: SessionNotices, watchdog: RunWatchdog, log: Logger, clock: Scheduler, options: ControllerOptions) {
    this._target = target;
    this._notices = notices;
    this._watchdog = watchdog;
    this._log = log;
    this._clock = clock;
    this._options = options;
  }

  /**
   * Sends a prompt while idle; while a run is active, queues it as steer or follow-up, never the bare prompt.
   * `images` go with it as Pi's `ImageContent` (Pi resizes them for the model); with images the text may be empty.
   */
  async send(text: string, mode: SendMode, images?: readonly ImageAttachment[]): Promise<void> {
    const pics = images?.length ? images.map((i) => ({ type: 'image' as const, data: i.data, mimeType: i.mimeType })) : undefined;
    if (!text.trim() && !pics) return;
    const starting = { cancelled: false };
    this._starting.add(starting);
    try {
      await this._send(text, mode, images, pics, starting);
    } finally {
      this._starting.delete(starting);
    }
  }

  private async _send(
    text: string,
    mode: SendMode,
    images: readonly ImageAttachment[] | undefined,
    pics: { type: 'image'; data: string; mimeType: string }[] | undefined,
    starting: { cancelled: boolean },
  ): Promise<void> {
    const target = this._target;
    const session = await target.ensureSession();
    if (!session || starting.cancelled) {
      this._notices.restoreInput(restored(text, images));
      return;
    }
    if (target.isActive()) {
      try {
        // A slash command goes through prompt(), which runs an extension's command at once, even mid-run,
        // and expands a template or skill before queueing it: what Pi does with it in a terminal.
        if (text.trimStart().startsWith('/'))
          await session.prompt(text, { streamingBehavior: mode === 'steer' ? 'steer' : 'followUp', ...(pics ? { images: pics } : {}) });
        else if (mode === 'steer') await session.steer(text, pics);
        else await session.followUp(text, pics);
        if (images?.length) this._queuedImages.push({ text, images });
      } catch (err) {
        this._notices.inputRefused(text, err, images);
      }
      return;
    }
    let ready: AgentSessionLike | undefined = session;
    if (target.noModel()) {
      // The user may have added a key since: look again before refusing.
      ready = await target.reopenQuietly();
      if (!ready || target.noModel()) {
        this._notices.noModel(text, images);
        return;
      }
    }
    this._lastPrompt = { text, ...(images?.length ? { images } : {}) };
    if (!starting.cancelled) await this._checkpoint(ready);
    if (starting.cancelled) {
      target.promptDropped();
      this._notices.restoreInput(restored(text, images));
      return;
    }
    // Cancelled after prompt() was called but before Pi started the run: abort as soon as it has.
    const late = target.onDidEmit(() => {
      if (!starting.cancelled || !target.isActive()) return;
      late.dispose();
      queueMicrotask(() => void this.cancel());
    });
    try {
      // Resolves when the run settles; provider errors arrive as events, not as a rejection.
      await ready.prompt(text, pics ? { images: pics } : undefined);
    } catch (err) {
      this._notices.inputRefused(text, err, images);
    } finally {
      late.dispose();
    }
  }

  /**
   * Takes the checkpoint before a prompt, for at most `CHECKPOINT_WAIT_MS`; the prompt goes ahead either way.
   * One that fails or runs out of time is said, and a late one starts no run: it may hold the run's own edits.
   */
  private async _checkpoint(session: AgentSessionLike): Promise<void> {
    const target = this._target;
    let cancelTimer: () => void = () => undefined;
    const late = new Promise<'late'>((resolve) => (cancelTimer = this._clock.setTimer(() => resolve('late'), CHECKPOINT_WAIT_MS)));
    let outcome: string | void | 'late';
    try {
      outcome = await Promise.race([target.beforePrompt(session), late]);
    } catch (err) {
      outcome = errorText(err) || 'unknown error';
    } finally {
      cancelTimer();
    }
    if (outcome === 'late') {
      target.promptDropped();
      this._log.warn(`The checkpoint before a prompt took longer than ${CHECKPOINT_WAIT_MS / 1000} s; the prompt went ahead without it.`);
      this._notices.checkpointSkipped(t('it took longer than {0} seconds', String(CHECKPOINT_WAIT_MS / 1000)));
    } else if (typeof outcome === 'string') {
      this._log.warn(`The checkpoint before a prompt failed: ${outcome}`);
      this._notices.checkpointSkipped(outcome);
    }
  }

  /**
   * Cancels the run: the queue is cleared first (its texts go back to the composer) so queued work cannot
   * start while abort waits, then `abort()`. Partial output stays. Only `agent_settled` ends the run.
   */
  async cancel(): Promise<void> {
    const target = this._target;
    // Before abort(): a tool call waiting on a dialog would otherwise hold the run open.
    target.willCancel();
    const session = target.session();
    if (!target.isActive()) {
      for (const s of this._starting) s.cancelled = true;
      return;
    }
    // Escape in the view and the Escape keybinding can both fire: one cancel is enough.
    if (!session || target.state().run.cancelling) return;
    target.apply([{ type: 'cancelRequested', at: this._clock.now() }]);
    // Taken first: clearQueue() announces the empty queue, which would prune them.
    const queuedImages = this._queuedImages;
    this._queuedImages = [];
    const { steering, followUp } = session.clearQueue();
    const texts = [...steering, ...followUp];
    if (texts.length) {
      const images = imagesFor(texts, queuedImages);
      this._notices.restoreInput({ texts, ...(images ? { images } : {}) });
    }
    this._watchdog.armSettle();
    if (session.isCompacting) session.abortCompaction();
    try {
      await session.abort();
    } catch (err) {
      this._log.error(`abort() failed: ${errorText(err)}`);
    }
  }

  /** Cancels an active run and waits (up to `timeoutMs`, by default the settle timeout) for it to settle. */
  async cancelAndWait(timeoutMs = this._options.settleTimeoutMs): Promise<void> {
    if (!this._target.isActive()) return;
    await this.cancel();
    await this._whenIdle(timeoutMs);
  }

  /**
   * Edits one queued message (the queue strip's Edit, Remove, Move up / down, Send now): checked against Pi's
   * queue and applied in one synchronous step. A message Pi already took is reported, and nothing changes (an
   * edit's new text goes back to the composer).
   */
  editQueue(edit: QueueEdit): void {
    const session = this._target.session();
    const raced = () => {
      this._notices.notice(
        'warning',
        t('"{0}" was already sent to Pi, so it was not changed.', edit.text.length > 80 ? `${edit.text.slice(0, 80)}…` : edit.text),
      );
      // The text the user wrote for it is not thrown away: it goes back to the composer.
      if (edit.op === 'edit' && edit.newText !== undefined) this._notices.restoreInput({ texts: [edit.newText] });
    };
    if (!session || !this._target.isActive()) return raced();
    if (!canRequeue(session)) return this._notices.notice('warning', t('This version of Pi does not let the panel edit its queue.'));
    const now = queuesOf(session);
    const next = applyQueueEdit(now, edit);
    if (!next) return raced();
    if (next === now) return;
    // Each message keeps its images, an edited one too; taken first, as clearQueue() would prune them.
    const pool = [...this._queuedImages];
    const take = (text: string) => {
      const i = pool.findIndex((q) => q.text === text);
      return i >= 0 ? pool.splice(i, 1)[0]!.images : undefined;
    };
    const edited = edit.op === 'edit' ? take(edit.text) : undefined;
    const ordered = [...next.steering, ...next.followUp];
    const images = ordered.map((text, i) => (edit.op === 'edit' && edited && text === edit.newText && i === indexOfEdited(next, edit) ? edited : take(text)));
    replaceQueues(
      session,
      next,
      images.map((list) => list?.map((img) => ({ type: 'image' as const, data: img.data, mimeType: img.mimeType }))),
      (err) => this._log.error(`Queueing again after an edit failed: ${errorText(err)}`),
    );
    this._queuedImages = ordered.flatMap((text, i) => (images[i]?.length ? [{ text, images: images[i] }] : []));
  }

  /** Forgets the images of queued messages Pi has delivered (their text left the queue). */
  pruneQueuedImages(queue: { readonly steering: readonly string[]; readonly followUp: readonly string[] }): void {
    if (!this._queuedImages.length) return;
    const left = [...queue.steering, ...queue.followUp];
    const kept: QueuedImages[] = [];
    // Newest first: of two equal texts, the older one was delivered first.
    for (const q of this._queuedImages.toReversed()) {
      const i = left.indexOf(q.text);
      if (i < 0) continue;
      left.splice(i, 1);
      kept.unshift(q);
    }
    this._queuedImages = kept;
  }

  /** Sends the last prompt again; a run that is still active (stalled, say) is cancelled first. */
  async retryLast(): Promise<void> {
    const last = this._lastPrompt;
    if (last === undefined) return;
    if (this._target.isActive()) {
      await this.cancelAndWait();
      // Still not settled: the settle-timeout notice offers Force idle; sending now would only queue.
      if (this._target.isActive()) return;
    }
    await this.send(last.text, 'prompt', last.images);
  }

  /** Runs manual compaction; its progress arrives as compaction events. */
  async compact(customInstructions?: string): Promise<void> {
    const session = await this._target.ensureSession();
    if (!session) return;
    if (this._target.isActive()) {
      this._notices.notify({ level: 'info', message: 'Pi is busy. Compact the conversation after the run ends.' });
      return;
    }
    try {
      await session.compact(customInstructions || undefined);
    } catch (err) {
      const message = errorText(err);
      this._notices.notice('warning', `Compaction did not run: ${message}`);
      this._notices.notify({ level: 'warning', message: `Pi: compaction did not run: ${message}` });
    }
  }

  /** Resolves once no run is active, or after `timeoutMs`. */
  private _whenIdle(timeoutMs: number): Promise<void> {
    const target = this._target;
    if (!target.isActive()) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        sub.dispose();
        cancelTimer();
        resolve();
      };
      const sub = target.onDidEmit(() => {
        if (!target.isActive()) done();
      });
      const cancelTimer = this._clock.setTimer(done, timeoutMs);
    });
  }
}

/** Where an edited message is in `next`, steering then follow-up. */
function indexOfEdited(next: { readonly steering: readonly string[] }, edit: QueueEdit): number {
  return (edit.queue === 'followUp' ? next.steering.length : 0) + edit.index;
}

/** The images queued with `texts` (each text's oldest record first); undefined when there are none. */
function imagesFor(texts: readonly string[], queued: readonly QueuedImages[]): ImageAttachment[] | undefined {
  const left = [...queued];
  const out: ImageAttachment[] = [];
  for (const text of texts) {
    const i = left.findIndex((q) => q.text === text);
    if (i >= 0) out.push(...left.splice(i, 1)[0]!.images);
  }
  return out.length ? out : undefined;
}
