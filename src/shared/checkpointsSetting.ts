/** The effective `piPanel.checkpoints`: a folder's settings may turn checkpoints on, never off (they are the user's safety net). */

/**
 * Whether checkpoints are on, from the values set at each level (unset ones undefined): on by default, off
 * only by the user's own `false` (a repository's `.vscode/settings.json` must not drop Restore and Undo
 * unseen), and on wherever any level says `true`.
 */
export function checkpointsOn(values: { readonly user: unknown; readonly workspace: unknown; readonly folder: unknown }): boolean {
  return values.user !== false || values.workspace === true || values.folder === true;
}
