/** The part of the built-in Git extension's API (`vscode.git`, `getAPI(1)`) that `@changes` uses, typed as its git.d.ts declares it. */

import type * as vscode from 'vscode';

/** git.d.ts `Status.UNTRACKED`. */
export const GIT_UNTRACKED = 7;

export interface GitChange {
  readonly uri: vscode.Uri;
  readonly originalUri: vscode.Uri;
  readonly renameUri: vscode.Uri | undefined;
  readonly status: number;
}

export interface GitRepository {
  readonly rootUri: vscode.Uri;
  readonly state: {
    readonly indexChanges: readonly GitChange[];
    readonly workingTreeChanges: readonly GitChange[];
    readonly untrackedChanges?: readonly GitChange[];
  };
  /** `git diff` (`cached`: `git diff --cached`). */
  diff(cached?: boolean): Promise<string>;
  status(): Promise<void>;
}

export interface GitApi {
  readonly state: 'uninitialized' | 'initialized';
  readonly onDidChangeState: vscode.Event<'uninitialized' | 'initialized'>;
  readonly repositories: readonly GitRepository[];
  getRepository(uri: vscode.Uri): GitRepository | null;
  openRepository?(root: vscode.Uri): Promise<GitRepository | null>;
}

export interface GitExtension {
  readonly enabled: boolean;
  getAPI(version: 1): GitApi;
}
