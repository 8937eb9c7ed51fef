/** What the VS Code tools share on the host: workspace-relative paths both ways, a time limit per call, files opened for the language servers, diagnostics as plain data. */

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DiagnosticView, PlaceView } from '../../shared/vscodeTools.ts';

/** A call the language server did not answer in time. */
export class LanguageServerTimeout extends Error {
  readonly ms: number;
  constructor(ms: number) {
    // l10n-ignore: never shown (the tool answers with timeoutText)
    super(`no answer within ${ms} ms`);
    this.ms = ms;
  }
}

/** A tool's input the model got wrong: said back to it as the tool's error. */
export class ToolInputError extends Error {}

/** `work`, or a `LanguageServerTimeout` after `ms`: a slow, crashed or indexing server never holds a run up. */
export function withLimit<T>(work: Thenable<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new LanguageServerTimeout(ms)), ms);
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

/** Whether `file` (absolute) is `root` or inside it. */
function inside(root: string, file: string): boolean {
  const rel = path.relative(root, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Paths of one workspace folder. */
export class WorkspaceFiles {
  private readonly _root: () => string;

  constructor(root: () => string) {
    this._root = root;
  }

  /** The file a workspace-relative path names; one outside the workspace is refused. */
  uri(given: string): vscode.Uri {
    const root = path.resolve(this._root());
    const file = path.resolve(root, given);
    if (!inside(root, file)) throw new ToolInputError(`${given} is outside the workspace: give a path relative to the workspace folder.`);
    return vscode.Uri.file(file);
  }

  /** How a place the language server named is shown: relative inside the workspace, else absolute and marked. */
  place(uri: vscode.Uri, pos: vscode.Position, text?: string): PlaceView {
    const root = path.resolve(this._root());
    const isIn = uri.scheme === 'file' && inside(root, uri.fsPath);
    const shown = isIn ? path.relative(root, uri.fsPath).split(path.sep).join('/') : uri.scheme === 'file' ? uri.fsPath : uri.toString();
    return { path: shown, line: pos.line + 1, column: pos.character + 1, ...(isIn ? {} : { outside: true }), ...(text !== undefined ? { text } : {}) };
  }

  /** `uri`'s diagnostics now, as plain data. */
  diagnostics(uri: vscode.Uri, list: readonly vscode.Diagnostic[] = vscode.languages.getDiagnostics(uri)): DiagnosticView[] {
    return list.map((d) => {
      const code = typeof d.code === 'object' ? d.code.value : d.code;
      return {
        ...this.place(uri, d.range.start),
        severity: SEVERITY[d.severity],
        message: d.message,
        ...(d.source ? { source: d.source } : {}),
        ...(code !== undefined ? { code: String(code) } : {}),
      };
    });
  }
}

const SEVERITY: Readonly<Record<vscode.DiagnosticSeverity, DiagnosticView['severity']>> = { 0: 'error', 1: 'warning', 2: 'info', 3: 'hint' };

/** Whether `uri` is shown in a tab: TypeScript checks only files in tabs (unless project diagnostics are on). */
function inTab(uri: vscode.Uri): boolean {
  return vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri.toString()));
}

/**
 * Where a file opened for the language servers goes: beside the active group when that group shows a webview (a
 * chat in an editor tab, whose run is what opened it: the chat stays in sight), else in the active group.
 */
function besideAWebview(): vscode.ViewColumn {
  const active = vscode.window.tabGroups.activeTabGroup.activeTab;
  return active?.input instanceof vscode.TabInputWebview ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active;
}

/**
 * Opens `uri` for the language servers, in a tab kept in the background when it has none (a language server
 * checks only the files the editor shows); undefined when it does not exist. `fresh` says it had no tab.
 */
export async function openForServers(uri: vscode.Uri): Promise<{ doc: vscode.TextDocument; fresh: boolean } | undefined> {
  let doc: vscode.TextDocument;
  try {
    doc = await vscode.workspace.openTextDocument(uri);
  } catch {
    return undefined;
  }
  if (inTab(uri)) return { doc, fresh: false };
  try {
    await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: true, viewColumn: besideAWebview() });
  } catch {
    // No tab (the editor area refused it): the document is open for the servers all the same.
  }
  return { doc, fresh: true };
}

/** `openForServers` for each of `uris`, one after another: editors opened at once cancel each other. */
export async function openAllForServers(uris: readonly vscode.Uri[]): Promise<({ doc: vscode.TextDocument; fresh: boolean } | undefined)[]> {
  const out: ({ doc: vscode.TextDocument; fresh: boolean } | undefined)[] = [];
  for (const uri of uris) out.push(await openForServers(uri));
  return out;
}

/** Resolves once each of `uris` had its diagnostics set (or changed), or after `ms`. */
export function diagnosticsArrive(uris: readonly vscode.Uri[], ms: number): Promise<void> {
  const waiting = new Set(uris.map((u) => u.toString()));
  if (!waiting.size) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      sub.dispose();
      resolve();
    };
    const timer = setTimeout(done, ms);
    const sub = vscode.languages.onDidChangeDiagnostics((e) => {
      for (const u of e.uris) waiting.delete(u.toString());
      if (!waiting.size) done();
    });
  });
}
