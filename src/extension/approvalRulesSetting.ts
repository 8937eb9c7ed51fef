/** `piPanel.approvalRules` on the host: read for the workers, refused rules named in a notice, "Always allow" saved in the user's settings, and Pi: Manage Approval Rules. */

import * as vscode from 'vscode';
import { mergeRules, problemText, ruleText, sourceText, type ApprovalRule, type ParsedRules, type RuleSource } from '../shared/approvalRules.ts';
import type { Logger } from '../shared/wire/workerProtocol.ts';

const SECTION = 'piPanel';
const KEY = 'approvalRules';

/** The rules of every level, checked and merged: a workspace's allow rules refused, a malformed rule refused and named. */
export function readApprovalRules(): ParsedRules {
  const v = vscode.workspace.getConfiguration(SECTION).inspect<unknown>(KEY);
  return mergeRules({ user: v?.globalValue, workspace: v?.workspaceValue, folder: v?.workspaceFolderValue });
}

/** The settings level a rule's source is written at. */
function targetOf(source: RuleSource): vscode.ConfigurationTarget {
  return source === 'user'
    ? vscode.ConfigurationTarget.Global
    : source === 'workspace'
      ? vscode.ConfigurationTarget.Workspace
      : vscode.ConfigurationTarget.WorkspaceFolder;
}

function valueAt(source: RuleSource): unknown {
  const v = vscode.workspace.getConfiguration(SECTION).inspect<unknown>(KEY);
  return source === 'user' ? v?.globalValue : source === 'workspace' ? v?.workspaceValue : v?.workspaceFolderValue;
}

/** The rules' settings as one owner: saves one after another (each reads the list the last one wrote), notices, the Manage command. */
export class ApprovalRulesSetting implements vscode.Disposable {
  private readonly _log: Logger;
  private _writes: Promise<unknown> = Promise.resolve();
  /** Problems already named in a notice: a notice per new problem, not per settings change. */
  private readonly _named = new Set<string>();
  private readonly _subscriptions: vscode.Disposable[] = [];

  constructor(log: Logger) {
    this._log = log;
    this._subscriptions.push(
      vscode.commands.registerCommand('piPanel.manageApprovalRules', () => this.manage()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`${SECTION}.${KEY}`)) this.nameProblems();
      }),
    );
    this.nameProblems();
  }

  /** Names each refused rule not named before in a warning: it is ignored, never read as allow. */
  nameProblems(): void {
    const fresh = readApprovalRules()
      .problems.map(problemText)
      .filter((p) => !this._named.has(p));
    if (!fresh.length) return;
    fresh.forEach((p) => this._named.add(p));
    for (const p of fresh) this._log.warn(p);
    void vscode.window.showWarningMessage(`${fresh.slice(0, 3).join(' ')}${fresh.length > 3 ? ' …' : ''}`);
  }

  /** "Always allow": appends the allow rule to the user's settings unless an equal one is there. */
  saveAllow(rule: { readonly tool: string; readonly match?: string }): Promise<void> {
    const write = this._writes.then(async () => {
      const current = valueAt('user');
      if (current !== undefined && !Array.isArray(current)) {
        void vscode.window.showErrorMessage(
          vscode.l10n.t(
            'Pi could not save the rule {0}: piPanel.approvalRules in your user settings is not a list. Fix it, then choose Always allow again.',
            ruleText({ ...rule, action: 'allow' }),
          ),
        );
        return;
      }
      const list: unknown[] = Array.isArray(current) ? [...(current as unknown[])] : [];
      const same = (r: unknown) =>
        typeof r === 'object' &&
        r !== null &&
        (r as ApprovalRule).tool === rule.tool &&
        (r as ApprovalRule).match === rule.match &&
        (r as ApprovalRule).action === 'allow';
      if (list.some(same)) return;
      list.push({ tool: rule.tool, ...(rule.match !== undefined ? { match: rule.match } : {}), action: 'allow' });
      await vscode.workspace.getConfiguration(SECTION).update(KEY, list, vscode.ConfigurationTarget.Global);
      this._log.info(`Saved the approval rule ${ruleText({ ...rule, action: 'allow' })} in the user settings.`);
    });
    this._writes = write.catch((err: unknown) => {
      this._log.error(`Saving an approval rule failed: ${err instanceof Error ? err.message : String(err)}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('Pi could not save the approval rule: {0}', err instanceof Error ? err.message : String(err)));
    });
    return this._writes.then(() => undefined);
  }

  /** Pi: Manage Approval Rules: the rules in force, each with Remove; refused ones listed with why. */
  async manage(): Promise<void> {
    const pick = vscode.window.createQuickPick<RuleItem>();
    pick.title = vscode.l10n.t('Pi: Manage Approval Rules');
    pick.placeholder = vscode.l10n.t('Remove a rule with its trash button or Enter. A workspace can only ask or deny.');
    const remove: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('trash'), tooltip: vscode.l10n.t('Remove') };
    const refresh = () => {
      const { rules, problems } = readApprovalRules();
      const items: RuleItem[] = rules.map((rule) => ({
        label: `${ICONS[rule.action]} ${rule.tool}${rule.match !== undefined ? `: ${rule.match}` : ''}`,
        description: `${rule.action} · ${sourceText(rule.source)}`,
        detail: actionText(rule),
        buttons: [remove],
        rule,
      }));
      for (const p of problems) items.push({ label: `$(warning) ${problemText(p)}` });
      if (!items.length) items.push({ label: vscode.l10n.t('No approval rules yet: "Always allow" on an approval card saves one.') });
      pick.items = items;
    };
    refresh();
    const disposables: vscode.Disposable[] = [
      pick.onDidTriggerItemButton(async (e) => {
        if (e.item.rule) await this._remove(e.item.rule);
        refresh();
      }),
      pick.onDidAccept(async () => {
        const rule = pick.selectedItems[0]?.rule;
        if (!rule) return;
        const removeLabel = vscode.l10n.t('Remove');
        const answer = await vscode.window.showWarningMessage(vscode.l10n.t('Remove the approval rule {0}?', ruleText(rule)), { modal: true }, removeLabel);
        if (answer === removeLabel) await this._remove(rule);
        refresh();
        pick.show();
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`${SECTION}.${KEY}`)) refresh();
      }),
    ];
    pick.onDidHide(() => {
      disposables.forEach((d) => d.dispose());
      pick.dispose();
    });
    pick.show();
  }

  /** Removes `rule` from the settings it is in, when that place still holds it (the settings may have changed since). */
  private async _remove(rule: ApprovalRule): Promise<void> {
    await this._writes;
    const current = valueAt(rule.source);
    if (!Array.isArray(current)) return;
    const at = current[rule.index - 1] as Partial<ApprovalRule> | undefined;
    if (!at || at.tool !== rule.tool || at.action !== rule.action || (at.match === '*' ? undefined : at.match) !== rule.match) return;
    const list = current.filter((_, i) => i !== rule.index - 1);
    await vscode.workspace.getConfiguration(SECTION).update(KEY, list.length ? list : undefined, targetOf(rule.source));
  }

  dispose(): void {
    this._subscriptions.forEach((d) => d.dispose());
  }
}

/** Each action's codicon in the list. */
const ICONS: Readonly<Record<ApprovalRule['action'], string>> = { allow: '$(pass)', ask: '$(question)', deny: '$(circle-slash)' };

interface RuleItem extends vscode.QuickPickItem {
  readonly rule?: ApprovalRule;
}

/** What a rule does, in a sentence. */
function actionText(rule: ApprovalRule): string {
  switch (rule.action) {
    case 'allow':
      return vscode.l10n.t('Runs without asking.');
    case 'ask':
      return vscode.l10n.t('Always asks, even with Allow for session.');
    case 'deny':
      return vscode.l10n.t('Blocked without asking.');
    default: {
      const never: never = rule.action;
      return never;
    }
  }
}
