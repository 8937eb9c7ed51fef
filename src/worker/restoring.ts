/**
 * Restore at a user message: asks in the chat's card whether to bring back the code, the conversation or both
 * (listing the files that will change), asks again before overwriting files changed after Pi's last run, then
 * restores the files to the message's checkpoint and/or moves the session back as Edit and resend does. The
 * last restore can be undone: its files come back from the checkpoint taken just before it, the conversation
 * from the entry it was at.
 */

import type { DialogKind, DialogView, NoticeCode, NoticeLevel } from '../shared/wire/events.ts';
import { errorText, type AgentSessionLike } from './agentSession.ts';
import type { SessionCheckpoints } from './checkpoints/sessionCheckpoints.ts';
import { userEntryId } from './sessionRuntime.ts';

/** The restore card's choices (SPEC §7, `data-choice`). */
export const RESTORE_CHOICES = ['Code and conversation', 'Conversation only', 'Code only'] as const;
export type RestoreChoice = (typeof RESTORE_CHOICES)[number];

/** A question the panel itself asks in a dialog card. */
export type PanelQuestion = Pick<DialogView, 'title' | 'message' | 'options' | 'restore'> & { readonly kind: DialogKind };

/** What restoring needs of the session's owner. */
export interface RestoreTarget {
  ensureSession(): Promise<AgentSessionLike | undefined>;
  isActive(): boolean;
  /** Opens a dialog card and resolves to the answer (undefined: dismissed). */
  ask(question: PanelQuestion): Promise<string | undefined>;
  /** Moves the session's leaf as Edit and resend does (a user message's text goes to the composer). */
  navigateTree(entryId: string): Promise<void>;
  notice(level: NoticeLevel, text: string, code?: NoticeCode): void;
}

/** What the last restore changed, to undo it. */
interface Done {
  /** The checkpoint taken just before the files were restored. */
  readonly undoId?: string;
  /** Where the conversation was before it moved back. */
  readonly leafId?: string;
}

export class Restoring {
  private readonly _target: RestoreTarget;
  private readonly _checkpoints: SessionCheckpoints;
  private _last: Done | undefined;

  constructor(target: RestoreTarget, checkpoints: SessionCheckpoints) {
    this._target = target;
    this._checkpoints = checkpoints;
  }

  /** Restore at the user row named by `fromEnd` and `text` (as Edit and resend names it). */
  async restore(fromEnd: number, text: string): Promise<void> {
    const target = this._target;
    if (target.isActive()) return target.notice('info', 'Pi is busy. Restore after the run ends (or cancel it).');
    const session = await target.ensureSession();
    const manager = session?.sessionManager;
    const entryId = manager ? userEntryId({ sessionManager: manager }, fromEnd, text) : undefined;
    if (!manager || !entryId) return target.notice('warning', 'This message was not found in the session, so there is nothing to restore to.');
    const plan = await this._checkpoints.plan(manager.getSessionId(), entryId).catch((err: unknown) => {
      target.notice('warning', `The checkpoint of this message could not be read: ${errorText(err)}`);
      return undefined;
    });
    const n = plan?.files.length ?? 0;
    const answer = (await target.ask({
      kind: 'select',
      title: 'Restore to this message?',
      message: !plan
        ? 'No checkpoint of the files was taken before this message (checkpoints were off, or git is missing): only the conversation can go back.'
        : n
          ? `${n} file${n === 1 ? '' : 's'} will change back to how ${n === 1 ? 'it was' : 'they were'} before this message. The conversation goes back as Edit and resend does (the later messages stay in the session tree).`
          : 'No file changed since this message. The conversation goes back as Edit and resend does (the later messages stay in the session tree).',
      options: plan ? [...RESTORE_CHOICES] : ['Conversation only'],
      ...(plan ? { restore: { checkpoint: plan.checkpoint.id, files: plan.files } } : {}),
    })) as RestoreChoice | undefined;
    if (!answer) return;
    const code = answer !== 'Conversation only' && plan !== undefined;
    const conversation = answer !== 'Code only';
    if (code && plan.changedSinceRun.length) {
      const names = plan.changedSinceRun.join(', ');
      const sure = await target.ask({
        kind: 'confirm',
        title: 'Overwrite files changed after Pi’s last run?',
        message: `These files changed after Pi's last run (by you or another program): ${names}. Restoring overwrites them; Undo restore brings them back.`,
      });
      if (sure !== 'Yes') return;
    }
    const leafId = manager.getLeafId() ?? undefined;
    let undoId: string | undefined;
    let skipped = '';
    if (code) {
      try {
        const result = await this._checkpoints.restore(plan.checkpoint.id);
        undoId = result.undoId;
        skipped = result.skipped.map((s) => `${s.path} (${s.reason})`).join(', ');
      } catch (err) {
        return target.notice('error', `The files could not be restored: ${errorText(err)}`);
      }
    }
    if (conversation) await target.navigateTree(entryId);
    this._last = { ...(undoId ? { undoId } : {}), ...(conversation && leafId ? { leafId } : {}) };
    const what = code && conversation ? 'the code and the conversation' : code ? 'the code' : 'the conversation';
    target.notice('info', `Restored ${what} to before this message.${skipped ? ` Left as they are: ${skipped}.` : ''}`, 'restored');
  }

  /** Undoes the last restore. */
  async undo(): Promise<void> {
    const target = this._target;
    const last = this._last;
    if (!last) return target.notice('info', 'There is no restore to undo.');
    if (target.isActive()) return target.notice('info', 'Pi is busy. Undo the restore after the run ends.');
    this._last = undefined;
    try {
      if (last.undoId) await this._checkpoints.restore(last.undoId);
    } catch (err) {
      return target.notice('error', `The files could not be put back: ${errorText(err)}`);
    }
    if (last.leafId) await target.navigateTree(last.leafId);
    target.notice('info', 'Undid the restore.');
  }
}
