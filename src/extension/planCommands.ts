/**
 * Plan mode's commands: Toggle Plan Mode, Open Plan (the plan reply as a Markdown document beside the chat,
 * which the user may edit) and Act on Plan (the plan, as edited, goes to Pi as the next prompt with full tools).
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../shared/wire/workerProtocol.ts';
import type { PiClient } from './piClient.ts';

/** The plan document: one file in the extension's storage, its text the plan the user edits. */
export class PlanDocument {
  private readonly _target: () => PiClient;
  private readonly _file: string;
  private readonly _log: Logger;
  /** The plan reply the document was last filled with: another reply replaces the document's text. */
  private _filledWith: string | undefined;

  /** `storageDir`: where the document lives (the workspace's storage). */
  constructor(target: () => PiClient, storageDir: string, log: Logger) {
    this._target = target;
    this._file = path.join(storageDir, 'plan', 'Plan.md');
    this._log = log;
  }

  /** The commands, for `context.subscriptions`. */
  register(): vscode.Disposable[] {
    return [
      vscode.commands.registerCommand('piPanel.togglePlanMode', () => this.toggle()),
      vscode.commands.registerCommand('piPanel.openPlan', () => this.open()),
      vscode.commands.registerCommand('piPanel.actOnPlan', () => this.act()),
    ];
  }

  async toggle(): Promise<void> {
    const plan = await this._target().setPlanMode();
    if (plan) vscode.window.setStatusBarMessage(plan.on ? vscode.l10n.t('Pi: plan mode on (read-only tools)') : vscode.l10n.t('Pi: plan mode off'), 3000);
  }

  /** Opens the plan beside the chat; undefined when there is no plan reply yet. */
  async open(): Promise<vscode.TextEditor | undefined> {
    const draft = this._target().state.plan?.draft;
    if (!draft) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Pi: there is no plan yet. Turn on plan mode and ask Pi for one.'));
      return undefined;
    }
    const uri = vscode.Uri.file(this._file);
    if (this._filledWith !== draft || !fs.existsSync(this._file)) {
      const open = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === uri.fsPath);
      if (open) {
        // Replaced in the open document, so an unsaved edit of an older plan does not stand in the way.
        const edit = new vscode.WorkspaceEdit();
        edit.replace(uri, new vscode.Range(0, 0, open.lineCount, 0), draft);
        await vscode.workspace.applyEdit(edit);
        await open.save();
      } else {
        fs.mkdirSync(path.dirname(this._file), { recursive: true });
        fs.writeFileSync(this._file, draft);
      }
      this._filledWith = draft;
    }
    const doc = await vscode.workspace.openTextDocument(uri);
    // Beside the editors open (an editor-tab chat among them); in the editor area itself when it is empty.
    const beside = vscode.window.tabGroups.all.some((g) => g.tabs.length > 0);
    return vscode.window.showTextDocument(doc, { viewColumn: beside ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active, preview: false });
  }

  /** Sends the plan (the document's text when it holds this plan, edits included) and leaves plan mode. */
  async act(): Promise<void> {
    const draft = this._target().state.plan?.draft;
    if (!draft) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Pi: there is no plan to act on yet.'));
      return;
    }
    let text = draft;
    if (this._filledWith === draft) {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === vscode.Uri.file(this._file).fsPath);
      try {
        text = doc ? doc.getText() : fs.readFileSync(this._file, 'utf8');
      } catch (err) {
        this._log.warn(`The plan document could not be read; acting on the plan as Pi wrote it: ${String(err)}`);
      }
    }
    if (!text.trim()) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Pi: the plan document is empty; nothing was sent.'));
      return;
    }
    this._filledWith = undefined;
    await this._target().actOnPlan(text);
  }
}
