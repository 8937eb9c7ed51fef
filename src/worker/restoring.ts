/**
 * Restore at a user message: asks in the chat's card whether to bring back the code, the conversation or both
 * (listing the files that will change), asks again before overwriting files changed after Pi's last run, then
 * restores the files to the message's checkpoint and/or moves the session back as Edit and resend does. Every
 * restore can be undone, latest first: its files come back from the checkpoint taken just before it, the
 * conversation from the entry it was at. The restores are kept with the checkpoints (so Undo restore works after
 * a reload), or in memory where checkpoints are off. Undo on a run's Changes row asks the same way before it
 * overwrites files changed after that run, and Undo restore undoes it too.
 */

import type { CommandHandlers } from '../shared/wire/commands.ts';
import type { DialogKind, DialogView, NoticeCode, NoticeLevel } from '../shared/wire/events.ts';
import { errorText, type AgentSessionLike } from './agentSession.ts';
import type { RunChangesView, SessionCheckpoints } from './checkpoints/sessionCheckpoints.ts';
import { userEntryId } from './sessionRuntime.ts';

/** The restore card's choices: its buttons' `data-choice`, which e2e cases click by (a stable test hook). */
const RESTORE_CHOICES = ['Code and conversation', 'Conversation only', 'Code only'] as const;
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
  /** Shows a run's Changes row again (files undone, or back after Undo restore). */
  showChanges(row: RunChangesView): void;
}

/** A restore of the conversation only where no checkpoint could keep it, to undo it. */
interface Done {
  readonly sessionId: string;
  /** Where the conversation was before it moved back. */
  readonly leafId: string;
  /** Milliseconds since the epoch: the stack's order against the kept restores. */
  readonly at: number;
}

export class Restoring {
  private readonly _target: RestoreTarget;
  private readonly _checkpoints: SessionCheckpoints;
  /** Conversation-only restores not kept with the checkpoints, oldest first. */
  private readonly _unkept: Done[] = [];

  /** The commands of the table (`COMMANDS`) this part answers. */
  readonly commands: CommandHandlers<'restore' | 'undoRestore'> = {
    restore: ({ entryId }) => this.restore(entryId),
    undoRestore: () => this.undo(),
  };

  constructor(target: RestoreTarget, checkpoints: SessionCheckpoints) {
    this._target = target;
    this._checkpoints = checkpoints;
  }

  /** Restore at the user message of session entry `requested` (as Edit and resend names it), when it is one on the branch. */
  async restore(requested: string): Promise<void> {
    const target = this._target;
    if (target.isActive()) return target.notice('info', 'Pi is busy. Restore after the run ends (or cancel it).');
    const session = await target.ensureSession();
    const manager = session?.sessionManager;
    const entryId = manager ? userEntryId({ sessionManager: manager }, requested) : undefined;
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
    const moved = conversation && leafId ? { leafId } : {};
    let skipped = '';
    if (code) {
      try {
        const result = await this._checkpoints.restore(plan.checkpoint.id, moved);
        skipped = result.skipped.map((s) => `${s.path} (${s.reason})`).join(', ');
      } catch (err) {
        return target.notice('error', `The files could not be restored: ${errorText(err)}`);
      }
    }
    if (!code && leafId && !(await this._checkpoints.recordRestore(manager.getSessionId(), leafId)))
      this._unkept.push({ sessionId: manager.getSessionId(), leafId, at: Date.now() });
    if (conversation) await target.navigateTree(entryId);
    const what = code && conversation ? 'the code and the conversation' : code ? 'the code' : 'the conversation';
    target.notice('info', `Restored ${what} to before this message.${skipped ? ` Left as they are: ${skipped}.` : ''}`, 'restored');
  }

  /**
   * Undo on the Changes row of checkpoint run `runId`: `file`, or all of the run's files. Files changed after the
   * run are named in a card first; the Undo can itself be undone (Undo restore).
   */
  async undoRun(file: string | undefined, runId: string): Promise<{ ok: boolean; message: string }> {
    const target = this._target;
    if (target.isActive()) return { ok: false, message: 'Pi is busy. Undo after the run ends.' };
    const result = await this._checkpoints.undo(file, runId, async (changed) => {
      const sure = await target.ask({
        kind: 'confirm',
        title: 'Overwrite files changed after this run?',
        message: `These files changed after this run (by you, another program or a later run of Pi): ${changed.join(', ')}. Undo overwrites them; Undo restore brings them back.`,
      });
      return sure === 'Yes';
    });
    if (result.row) target.showChanges(result.row);
    // The notice carries the Undo restore button.
    if (result.undoable) target.notice('info', `${result.message} Undo restore brings back what it replaced.`, 'restored');
    return { ok: result.ok, message: result.message };
  }

  /** Undoes the latest restore of the session not undone yet; called again, the one before it. */
  async undo(): Promise<void> {
    const target = this._target;
    if (target.isActive()) return target.notice('info', 'Pi is busy. Undo the restore after the run ends.');
    const sessionId = (await target.ensureSession())?.sessionManager?.getSessionId();
    const kept = await this._checkpoints.lastRestore(sessionId).catch((err: unknown) => {
      target.notice('warning', `The checkpoint of this message could not be read: ${errorText(err)}`);
      return undefined;
    });
    const i = this._unkept.findLastIndex((d) => d.sessionId === sessionId);
    const unkept = i >= 0 ? this._unkept[i] : undefined;
    if (unkept && (!kept || unkept.at > kept.createdAt)) {
      this._unkept.splice(i, 1);
      await target.navigateTree(unkept.leafId);
      return target.notice('info', 'Undid the restore.');
    }
    if (!kept?.restore) return target.notice('info', 'There is no restore to undo.');
    let undone: Awaited<ReturnType<SessionCheckpoints['undoRestore']>>;
    try {
      undone = await this._checkpoints.undoRestore(kept);
    } catch (err) {
      return target.notice('error', `The files could not be put back: ${errorText(err)}`);
    }
    if (undone.row) target.showChanges(undone.row);
    if (kept.restore.leafId) await target.navigateTree(kept.restore.leafId);
    target.notice('info', undone.message ?? 'Undid the restore.');
  }
}
