/**
 * Every `data-action` the view's buttons carry, declared once and grouped by the router that handles it:
 * the elements that emit an action and the switch that routes it share these names, so a misspelled
 * action does not compile and each router's switch is exhaustive over its group.
 */

/** Clicks in the conversation (rows, cards, code blocks) and the status line: clickRouter.ts. */
export const ConversationAction = {
  OpenImage: 'open-image',
  LoadEarlier: 'load-earlier',
  ForceIdle: 'force-idle',
  ShowLog: 'show-log',
  RetryLast: 'retry-last',
  ContinueInterrupted: 'continue-interrupted',
  /** A key the provider refused (401): enter another (first run). */
  ReplaceKey: 'replace-key',
  // Stable test hooks (e2e cases click them): user rows.
  EditResend: 'edit-resend',
  ForkHere: 'fork-here',
  // Stable test hooks: checkpoints.
  Restore: 'restore',
  UndoRestore: 'undo-restore',
  ToggleBlock: 'toggle-block',
  ToolShowAll: 'tool-show-all',
  ToolArgsShowAll: 'tool-args-show-all',
  ResultShowAll: 'result-show-all',
  // Stable test hooks: file tool cards and the changes row.
  OpenFile: 'open-file',
  OpenDiff: 'open-diff',
  UndoFile: 'undo-file',
  UndoAll: 'undo-all',
  // Stable test hooks: review in the editor.
  KeepAll: 'keep-all',
  Review: 'review',
  CopyCode: 'copy-code',
  InsertCode: 'insert-code',
  // A drawn diagram's toolbar (diagrams.ts).
  DiagramSource: 'diagram-source',
  CopyDiagram: 'copy-diagram',
  OpenSvg: 'open-svg',
} as const;

/** The header's pickers and mode buttons. */
export const HeaderAction = {
  SelectModel: 'select-model',
  SetThinkingLevel: 'set-thinking-level',
  ShowSessions: 'show-sessions',
  ShowTree: 'show-tree',
} as const;

/** The composer's bar: Send while idle; Cancel, Follow-up and Steer while a run is active. */
export const ComposerAction = {
  Send: 'send',
  Steer: 'steer',
  FollowUp: 'followUp',
  Cancel: 'cancel',
} as const;

/** Plan mode: the composer's toggle and the plan strip's buttons (planStrip.ts). */
export const PlanAction = {
  TogglePlan: 'toggle-plan',
  OpenPlan: 'open-plan',
  ActOnPlan: 'act-on-plan',
} as const;

/** A worktree chat's strip under the header (worktreeStrip.ts); stable test hooks. */
export const WorktreeAction = {
  ApplyWorktree: 'apply-worktree',
  DiscardWorktree: 'discard-worktree',
  OpenWorktreeWindow: 'open-worktree-window',
} as const;

/** The Sessions list. */
export const SessionsAction = {
  BackToChat: 'back-to-chat',
  MoreSessions: 'more-sessions',
  OpenSession: 'open-session',
  RenameSession: 'rename-session',
  DeleteSession: 'delete-session',
} as const;

/** The session's tree of branches. */
export const TreeAction = {
  BackToChat: 'back-to-chat',
  NavigateTree: 'navigate-tree',
} as const;

/** Buttons their own component listens for, by element or by selector, with no router between. */
export const DirectAction = {
  // The find box (findBox.ts).
  FindPrevious: 'find-previous',
  FindNext: 'find-next',
  FindClose: 'find-close',
  // The prompt navigator's outline toggle (promptNavigator.ts).
  TogglePromptOutline: 'toggle-prompt-outline',
  // A dialog card's answers: the choice itself is in `data-choice`.
  DialogChoice: 'dialog-choice',
  DialogDismiss: 'dialog-dismiss',
  AttachImage: 'attach-image',
  RemoveChip: 'remove-chip',
  ExpandChip: 'expand-chip',
  RemoveImage: 'remove-image',
  CloseImage: 'close-image',
  JumpLatest: 'jump-latest',
  // The header's context gauge and its breakdown (contextPanel.ts); Drop from context is a stable test hook.
  ShowContext: 'show-context',
  DropFromContext: 'drop-from-context',
  // The model picker's close button (modelPicker.ts).
  CloseModelPicker: 'close-model-picker',
} as const;

/** The queue strip's buttons on each queued message (stable test hooks: edit-queued, remove-queued, send-now). */
export const QueueAction = {
  EditQueued: 'edit-queued',
  RemoveQueued: 'remove-queued',
  SendNow: 'send-now',
  MoveQueuedUp: 'move-queued-up',
  MoveQueuedDown: 'move-queued-down',
  StopEditingQueued: 'stop-editing-queued',
} as const;

/** Every action, by name. */
export const Action = {
  ...ConversationAction,
  ...HeaderAction,
  ...ComposerAction,
  ...PlanAction,
  ...SessionsAction,
  ...TreeAction,
  ...DirectAction,
  ...QueueAction,
  ...WorktreeAction,
} as const;

/** The action names one group declares. */
export type ActionOf<G extends ActionGroup> = G[keyof G];

/** A group of actions: names to `data-action` values. */
export type ActionGroup = Readonly<Record<string, string>>;

/** Any `data-action` value the view emits. */
export type Action = ActionOf<typeof Action>;

/** Whether `value` (a `data-action` read from the DOM) is one of `group`'s actions. */
export function isActionOf<G extends ActionGroup>(group: G, value: string | null | undefined): value is ActionOf<G> {
  return value !== null && value !== undefined && Object.values(group).includes(value);
}

/** The CSS selector of elements that carry `action`. */
export function actionSelector(action: Action): string {
  return `[data-action="${action}"]`;
}
