/**
 * Plan mode's commands: Toggle Plan Mode, Open Plan (the chat's plan reply as a Markdown document beside it, which
 * the user may edit; one document per chat) and Act on Plan (the chat's plan, as edited, goes to Pi as the next
 * prompt with full tools). A chat's view runs them for its own chat; the palette for the focused one.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../shared/wire/workerProtocol.ts';
import type { PiClient } from './piClient.ts';
import { PlanFiles, type PlanChatRef } from './planFiles.ts';

/** A chat, as plan mode's commands use it. */
export interface PlanChat extends PlanChatRef {
  readonly client: PiClient;
}

/** Each chat's plan document: a file in the extension's storage named for the chat, its text the plan the user edits. */
export class PlanDocuments {
  private readonly _target: (args: readonly unknown[]) => PlanChat | undefined;
  private readonly _files: PlanFiles;
  private readonly _log: Logger;

  /** `target`: the chat a command run with these arguments acts on (none: it closed); `storageDir`: the workspace's storage. */
  constructor(target: (args: readonly unknown[]) => PlanChat | undefined, storageDir: string, log: Logger) {
    this._target = target;
    // The sidebar's keeps the name it always had; a tab's says which chat it is (its title in the editor).
    this._files = new PlanFiles(path.join(storageDir, 'plan'), (n) => (n ? `Plan (${vscode.l10n.t('Chat {0}', n)}).md` : 'Plan.md'));
    this._log = log;
  }

  /** The commands, for `context.subscriptions`. */
  register(): vscode.Disposable[] {
    const run =
      (f: (chat: PlanChat) => Promise<unknown>) =>
      async (...args: unknown[]) => {
        const chat = this._target(args);
        if (chat) await f(chat);
      };
    return [
      vscode.commands.registerCommand(
        'piPanel.togglePlanMode',
        run((chat) => this.toggle(chat)),
      ),
      vscode.commands.registerCommand(
        'piPanel.openPlan',
        run((chat) => this.open(chat)),
      ),
      vscode.commands.registerCommand(
        'piPanel.actOnPlan',
        run((chat) => this.act(chat)),
      ),
    ];
  }

  async toggle(chat: PlanChat): Promise<void> {
    const plan = (await chat.client.call('setPlanMode', {}))?.plan;
    if (plan) vscode.window.setStatusBarMessage(plan.on ? vscode.l10n.t('Pi: plan mode on (read-only tools)') : vscode.l10n.t('Pi: plan mode off'), 3000);
  }

  /** Opens the chat's plan beside it; undefined when there is no plan reply yet. */
  async open(chat: PlanChat): Promise<vscode.TextEditor | undefined> {
    const draft = chat.client.state.plan?.draft;
    if (!draft) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Pi: there is no plan yet. Turn on plan mode and ask Pi for one.'));
      return undefined;
    }
    const file = this._files.fileOf(chat);
    const uri = vscode.Uri.file(file);
    if (this._files.needsFill(chat, draft) || !fs.existsSync(file)) {
      const open = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === uri.fsPath);
      if (open) {
        // Replaced in the open document, so an unsaved edit of an older plan does not stand in the way.
        const edit = new vscode.WorkspaceEdit();
        edit.replace(uri, new vscode.Range(0, 0, open.lineCount, 0), draft);
        await vscode.workspace.applyEdit(edit);
        await open.save();
      } else {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, draft);
      }
      this._files.filled(chat, draft);
    }
    const doc = await vscode.workspace.openTextDocument(uri);
    // Beside the editors open (an editor-tab chat among them); in the editor area itself when it is empty.
    const beside = vscode.window.tabGroups.all.some((g) => g.tabs.length > 0);
    return vscode.window.showTextDocument(doc, { viewColumn: beside ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active, preview: false });
  }

  /** Sends the chat's plan (its own document's text when that holds this plan, edits included) and leaves plan mode. */
  async act(chat: PlanChat): Promise<void> {
    const draft = chat.client.state.plan?.draft;
    if (!draft) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Pi: there is no plan to act on yet.'));
      return;
    }
    const text = this._files.toSend(
      chat,
      draft,
      (file) => vscode.workspace.textDocuments.find((d) => d.uri.fsPath === vscode.Uri.file(file).fsPath)?.getText() ?? fs.readFileSync(file, 'utf8'),
      (err) => this._log.warn(`The plan document could not be read; acting on the plan as Pi wrote it: ${String(err)}`),
    );
    if (!text.trim()) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Pi: the plan document is empty; nothing was sent.'));
      return;
    }
    this._files.acted(chat);
    await chat.client.call('actOnPlan', { text });
  }
}
