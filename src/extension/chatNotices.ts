/** What a chat's Pi worker tells the user through the chat, beside its transcript: notifications, the composer's text, extension surfaces, sign-in, saved rules. */

import { Disposable, Emitter } from '../shared/disposable.ts';
import type { AuthNotice, ExtensionUiNotice, RestoredInput, UserNotification, WorkerNotifications } from '../shared/wire/workerProtocol.ts';
import type { NotificationHandlers } from './workerSupervisor.ts';

/** The worker's notifications that only pass on to whoever listens, as events of one chat. */
export class ChatNotices extends Disposable {
  private readonly _onDidRestoreInput = this._register(new Emitter<RestoredInput>());
  /** Texts and images that did not reach Pi (a cancelled queue, a refused prompt): they go back to the composer. */
  readonly onDidRestoreInput = this._onDidRestoreInput.event;
  private readonly _onDidSetInput = this._register(new Emitter<string>());
  /** Text the composer should hold instead of what it has ("Edit and resend"). */
  readonly onDidSetInput = this._onDidSetInput.event;
  private readonly _onDidNotify = this._register(new Emitter<UserNotification>());
  /** A message for a VS Code notification. */
  readonly onDidNotify = this._onDidNotify.event;
  private readonly _onDidAuth = this._register(new Emitter<AuthNotice>());
  /** Pi's sign-in flow asks or tells the user something (see signIn.ts). */
  readonly onDidAuth = this._onDidAuth.event;
  private readonly _onDidExtensionUi = this._register(new Emitter<ExtensionUiNotice>());
  /** An extension set a status-bar item, the view's title or the composer's text. */
  readonly onDidExtensionUi = this._onDidExtensionUi.event;
  private readonly _onDidSaveApprovalRule = this._register(new Emitter<WorkerNotifications['saveApprovalRule']>());
  /** "Always allow" was chosen on an approval card: the rule to save in the user's settings. */
  readonly onDidSaveApprovalRule = this._onDidSaveApprovalRule.event;

  /** The supervisor's handlers of these notifications. */
  readonly handlers: Pick<NotificationHandlers, 'restoreInput' | 'setInput' | 'notify' | 'extensionUi' | 'saveApprovalRule' | 'auth'> = {
    restoreInput: (p) => this.giveBack(p),
    setInput: (p) => this._onDidSetInput.fire(p.text),
    notify: (n) => this._onDidNotify.fire(n),
    extensionUi: (n) => this._onDidExtensionUi.fire(n),
    saveApprovalRule: (r) => this._onDidSaveApprovalRule.fire(r),
    auth: (n) => this._onDidAuth.fire(n),
  };

  /** Input that goes back to the composer. */
  giveBack(input: RestoredInput): void {
    this._onDidRestoreInput.fire(input);
  }

  /** A message of the client's own for a VS Code notification (the worker stopped). */
  notify(n: UserNotification): void {
    this._onDidNotify.fire(n);
  }
}
