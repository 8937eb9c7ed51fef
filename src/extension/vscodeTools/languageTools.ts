/** Answers the worker's `vscode_*` tool calls with VS Code's language features, bounded and workspace-relative (issue 37). */

import * as vscode from 'vscode';
import {
  checkToolArgs,
  formatDiagnostics,
  formatHover,
  formatLocations,
  formatRename,
  formatSymbols,
  timeoutText,
  type PlaceView,
  type SymbolView,
  type Target,
  type VscodeToolArgs,
} from '../../shared/vscodeTools.ts';
import type { HostRequests, Logger, VscodeToolAnswer } from '../../shared/wire/workerProtocol.ts';
import { diagnosticsArrive, LanguageServerTimeout, openAllForServers, openForServers, ToolInputError, withLimit, WorkspaceFiles } from './workspaceFiles.ts';

/** How long one call may take in all (language servers that are starting take a while to load a project). */
const TOOL_TIMEOUT_MS = 30_000;

/** How long a just-opened file's first diagnostics may take once its server answers. */
const FIRST_REPORT_MS = 1500;

/** Places whose line text is read at most (the rest are counted anyway). */
const MAX_PREVIEWS = 100;

/** A planned rename, kept between its two steps. */
interface PlannedRename {
  readonly edit: vscode.WorkspaceEdit;
  readonly oldName: string;
  readonly newName: string;
}

/** A resolved place to ask the language server about. */
interface At {
  readonly uri: vscode.Uri;
  readonly pos: vscode.Position;
  /** How the answer names it: the symbol, or `path:line:column`. */
  readonly subject: string;
}

/** The VS Code tools of one chat's workspace folder. */
export class LanguageTools {
  private readonly _files: WorkspaceFiles;
  private readonly _log: Logger;
  private readonly _renames = new Map<string, PlannedRename>();

  constructor(files: WorkspaceFiles, log: Logger) {
    this._files = files;
    this._log = log;
  }

  /** One call; a wrong input, a slow server or a failure is an error answer the model reads, never a hang. */
  async run(p: HostRequests['vscodeTool']['params']): Promise<VscodeToolAnswer> {
    try {
      // One deadline for the whole call, whatever it waits for on the way.
      return await withLimit(this._run(p), TOOL_TIMEOUT_MS);
    } catch (err) {
      if (err instanceof LanguageServerTimeout) return { text: timeoutText(err.ms), isError: true };
      if (err instanceof ToolInputError) return { text: err.message, isError: true };
      const message = err instanceof Error ? err.message : String(err);
      this._log.warn(`VS Code tool ${p.tool} failed: ${message}`);
      // l10n-ignore: for Pi (the model), which reads English
      return { text: `VS Code could not answer ${p.tool}: ${message}`, isError: true };
    }
  }

  private async _run(p: HostRequests['vscodeTool']['params']): Promise<VscodeToolAnswer> {
    if (p.tool === 'vscode_rename' && p.step === 'apply') return this._applyRename(p.id);
    const checked = checkToolArgs(p.tool, p.args);
    // l10n-ignore: for Pi (the model), which reads English
    if (!checked.ok) return { text: `Invalid arguments for ${p.tool}: ${checked.reason}.`, isError: true };
    switch (p.tool) {
      case 'vscode_diagnostics':
        return { text: await this._diagnostics(checked.args as VscodeToolArgs['vscode_diagnostics']) };
      case 'vscode_definition':
      case 'vscode_references':
        return { text: await this._locations(p.tool, checked.args as Target) };
      case 'vscode_hover':
        return { text: await this._hover(checked.args as Target) };
      case 'vscode_symbols':
        return { text: await this._symbols(checked.args as VscodeToolArgs['vscode_symbols']) };
      case 'vscode_rename':
        return this._planRename(p.id, checked.args as VscodeToolArgs['vscode_rename']);
      default: {
        const never: never = p.tool;
        return never;
      }
    }
  }

  private async _diagnostics(args: VscodeToolArgs['vscode_diagnostics']): Promise<string> {
    if (!args.paths) {
      const all = vscode.languages.getDiagnostics().flatMap(([uri, list]) => this._files.diagnostics(uri, list));
      // l10n-ignore: for Pi (the model), which reads English
      return formatDiagnostics(all, 'the workspace (files the language servers have checked)');
    }
    const uris = args.paths.map((p) => this._files.uri(p));
    const opened = await openAllForServers(uris);
    const missing = args.paths.filter((_, i) => !opened[i]);
    // A file the servers just got is checked once they have loaded the project. A clean file's report never comes
    // (an empty list changes nothing), so a semantic request says when the server is ready, then its report has a moment.
    const fresh = uris.filter((_, i) => opened[i]?.fresh);
    if (fresh.length) {
      const reports = diagnosticsArrive(fresh, TOOL_TIMEOUT_MS);
      await withLimit(
        Promise.all(fresh.map((u) => vscode.commands.executeCommand('vscode.executeHoverProvider', u, new vscode.Position(0, 0)))),
        TOOL_TIMEOUT_MS,
      );
      await Promise.race([reports, new Promise((resolve) => setTimeout(resolve, FIRST_REPORT_MS))]);
    }
    const text = formatDiagnostics(
      uris.flatMap((u) => this._files.diagnostics(u)),
      args.paths.join(', '),
    );
    // l10n-ignore: for Pi (the model), which reads English
    return missing.length ? `${text}\n(No such file: ${missing.join(', ')})` : text;
  }

  /** Where a target is: the place given, or the first workspace symbol of that name. */
  private async _at(target: Target): Promise<At> {
    if ('symbol' in target) {
      const found = await withLimit(
        vscode.commands.executeCommand<vscode.SymbolInformation[] | undefined>('vscode.executeWorkspaceSymbolProvider', target.symbol),
        TOOL_TIMEOUT_MS,
      );
      // TypeScript names functions and methods `greet()`.
      const exact = (found ?? []).filter((s) => s.name.replace(/\(\)$/, '') === target.symbol);
      const first = exact[0];
      if (!first)
        throw new ToolInputError(
          `No symbol named ${target.symbol} in the workspace symbols. Give { path, line, column } instead, or search with vscode_symbols.`,
        );
      const doc = await vscode.workspace.openTextDocument(first.location.uri);
      // The symbol's range starts at its declaration (`export function …`): the name itself is what providers need.
      const start = doc.offsetAt(first.location.range.start);
      const at = doc.getText(first.location.range).indexOf(target.symbol);
      const pos = at >= 0 ? doc.positionAt(start + at) : first.location.range.start;
      return { uri: first.location.uri, pos, subject: target.symbol };
    }
    const uri = this._files.uri(target.path);
    const opened = await openForServers(uri);
    if (!opened) throw new ToolInputError(`No such file: ${target.path}.`);
    if (target.line > opened.doc.lineCount) throw new ToolInputError(`${target.path} has ${opened.doc.lineCount} lines; line ${target.line} is past its end.`);
    const pos = new vscode.Position(target.line - 1, target.column - 1);
    const word = opened.doc.getWordRangeAtPosition(pos);
    const where = `${target.path}:${target.line}:${target.column}`;
    return { uri, pos, subject: word ? `${opened.doc.getText(word)} (${where})` : where };
  }

  private async _locations(tool: 'vscode_definition' | 'vscode_references', target: Target): Promise<string> {
    const at = await this._at(target);
    const command = tool === 'vscode_definition' ? 'vscode.executeDefinitionProvider' : 'vscode.executeReferenceProvider';
    const found = await withLimit(
      vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[] | undefined>(command, at.uri, at.pos),
      TOOL_TIMEOUT_MS,
    );
    const places = (found ?? []).map((l) =>
      'targetUri' in l ? { uri: l.targetUri, pos: (l.targetSelectionRange ?? l.targetRange).start } : { uri: l.uri, pos: l.range.start },
    );
    const lines = new LineReader();
    const views: PlaceView[] = [];
    for (const [i, p] of places.entries()) views.push(this._files.place(p.uri, p.pos, i < MAX_PREVIEWS ? await lines.line(p.uri, p.pos.line) : undefined));
    return formatLocations(tool === 'vscode_definition' ? 'definition' : 'references', at.subject, views);
  }

  private async _hover(target: Target): Promise<string> {
    const at = await this._at(target);
    const hovers = await withLimit(vscode.commands.executeCommand<vscode.Hover[] | undefined>('vscode.executeHoverProvider', at.uri, at.pos), TOOL_TIMEOUT_MS);
    const texts = (hovers ?? []).flatMap((h) =>
      h.contents.map((c) => (typeof c === 'string' ? c : c instanceof vscode.MarkdownString ? c.value : `\`\`\`${c.language}\n${c.value}\n\`\`\``)),
    );
    return formatHover(texts, at.subject);
  }

  private async _symbols(args: VscodeToolArgs['vscode_symbols']): Promise<string> {
    if (args.path !== undefined) {
      const uri = this._files.uri(args.path);
      if (!(await openForServers(uri))) throw new ToolInputError(`No such file: ${args.path}.`);
      const found = await withLimit(
        vscode.commands.executeCommand<(vscode.DocumentSymbol | vscode.SymbolInformation)[] | undefined>('vscode.executeDocumentSymbolProvider', uri),
        TOOL_TIMEOUT_MS,
      );
      const out: SymbolView[] = [];
      const walk = (s: vscode.DocumentSymbol | vscode.SymbolInformation, depth: number) => {
        const pos = 'selectionRange' in s ? s.selectionRange.start : s.location.range.start;
        out.push({ ...this._files.place(uri, pos), name: s.name, kind: kindName(s.kind), depth });
        if ('children' in s) for (const c of s.children) walk(c, depth + 1);
      };
      for (const s of found ?? []) walk(s, 0);
      const query = args.query?.toLowerCase();
      // l10n-ignore: for Pi (the model), which reads English
      return formatSymbols(query ? out.filter((s) => s.name.toLowerCase().includes(query)).map((s) => ({ ...s, depth: 0 })) : out, `outline of ${args.path}`);
    }
    const query = args.query ?? '';
    const found = await withLimit(
      vscode.commands.executeCommand<vscode.SymbolInformation[] | undefined>('vscode.executeWorkspaceSymbolProvider', query),
      TOOL_TIMEOUT_MS,
    );
    const views = (found ?? []).map((s) => ({
      ...this._files.place(s.location.uri, s.location.range.start),
      name: s.name,
      kind: kindName(s.kind),
      ...(s.containerName ? { container: s.containerName } : {}),
    }));
    // l10n-ignore: for Pi (the model), which reads English
    return formatSymbols(views, `workspace symbols matching "${query}"`);
  }

  private async _planRename(id: string, args: VscodeToolArgs['vscode_rename']): Promise<VscodeToolAnswer> {
    const at = await this._at(args);
    const doc = await vscode.workspace.openTextDocument(at.uri);
    const word = doc.getWordRangeAtPosition(at.pos);
    const oldName = word ? doc.getText(word) : at.subject;
    const edit = await withLimit(
      vscode.commands.executeCommand<vscode.WorkspaceEdit | undefined>('vscode.executeDocumentRenameProvider', at.uri, at.pos, args.newName),
      TOOL_TIMEOUT_MS,
    );
    const entries = edit?.entries() ?? [];
    // l10n-ignore: for Pi (the model), which reads English
    if (!edit || !entries.length) return { text: `Nothing to rename at ${at.subject}: the language server offers no rename there.`, isError: true };
    const outside = entries.map(([u]) => this._files.place(u, new vscode.Position(0, 0))).filter((p) => p.outside);
    if (outside.length)
      // l10n-ignore: for Pi (the model), which reads English
      return { text: `Not renamed: the rename would change files outside the workspace (${outside.map((p) => p.path).join(', ')}).`, isError: true };
    const dirty = entries.filter(([u]) => vscode.workspace.textDocuments.some((d) => d.isDirty && d.uri.toString() === u.toString()));
    if (dirty.length)
      return {
        // l10n-ignore: for Pi (the model), which reads English
        text: `Not renamed: ${dirty.map(([u]) => this._files.place(u, new vscode.Position(0, 0)).path).join(', ')} has unsaved changes in the editor.`,
        isError: true,
      };
    this._renames.set(id, { edit, oldName, newName: args.newName });
    return { text: `Renaming ${oldName} to ${args.newName}.`, files: entries.map(([u]) => u.fsPath) };
  }

  private async _applyRename(id: string): Promise<VscodeToolAnswer> {
    const planned = this._renames.get(id);
    this._renames.delete(id);
    // l10n-ignore: for Pi (the model), which reads English
    if (!planned) return { text: 'This rename was not planned first.', isError: true };
    const entries = planned.edit.entries();
    // l10n-ignore: for Pi (the model), which reads English
    if (!(await vscode.workspace.applyEdit(planned.edit, { isRefactoring: true }))) return { text: 'VS Code did not apply the rename.', isError: true };
    // Saved, so Pi's own tools, the Changes row and the checkpoints see the renamed files on disk.
    for (const [uri] of entries) await vscode.workspace.save(uri);
    const files = entries.map(([uri, edits]) => {
      const p = this._files.place(uri, new vscode.Position(0, 0));
      return { path: p.path, count: edits.length };
    });
    return { text: formatRename(planned.oldName, planned.newName, files) };
  }
}

/** `SymbolKind` as a word (`function`, `class`). */
function kindName(kind: vscode.SymbolKind): string {
  return (vscode.SymbolKind[kind] ?? 'symbol').toLowerCase();
}

/** The text of lines of files, read once per file per call: from the open document, else from disk. */
class LineReader {
  private readonly _files = new Map<string, Promise<readonly string[]>>();

  async line(uri: vscode.Uri, line: number): Promise<string | undefined> {
    const key = uri.toString();
    let lines = this._files.get(key);
    if (!lines) {
      lines = this._read(uri);
      this._files.set(key, lines);
    }
    return (await lines)[line];
  }

  private async _read(uri: vscode.Uri): Promise<readonly string[]> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open) return open.getText().split(/\r?\n/);
    try {
      const bytes = await vscode.workspace.fs.readFile(uri);
      return bytes.byteLength > 2_000_000 ? [] : new TextDecoder().decode(bytes).split(/\r?\n/);
    } catch {
      return [];
    }
  }
}
