/** Whether an editor is a side of a diff editor, told from the tab groups: the review draws no marks there, as the diff shows the change already. */

/** A visible text editor as the check sees it: its document's URI and its column (VS Code gives a diff editor's sides none). */
export interface EditorSeen {
  readonly uri: string;
  readonly column: number | undefined;
}

/** A tab group as the check sees it: its column and the diffs its active tab shows (none for a plain editor, several for a multi-file diff). */
export interface GroupSeen {
  readonly column: number;
  readonly diffs: readonly { readonly original: string; readonly modified: string }[];
}

/** Whether `editor` shows a side of a diff active in a tab group: its group's, or any group's for an editor without a column. */
export function inDiff(editor: EditorSeen, groups: readonly GroupSeen[]): boolean {
  // A diff's sides have no column (VS Code finds an editor's group by the pane's own control, and a diff pane's is the
  // diff editor), while a plain editor has its group's: so a plain editor of the same file in another group never matches.
  return groups.some(
    (g) => (editor.column === undefined || editor.column === g.column) && g.diffs.some((d) => d.original === editor.uri || d.modified === editor.uri),
  );
}
