/**
 * Status-bar items for the run, retries and compaction, and the context keys that enable commands. With several
 * chats the run item sums them up ("Pi: 2 running · 1 waiting"); retries and compaction follow the focused chat.
 */

import * as vscode from 'vscode';
import { describeStatus, TRANSIENT_STATUS_MS } from './statusTexts.ts';
import { runCondition } from '../shared/run/runCondition.ts';
import { Disposable, toDisposable } from '../shared/disposable.ts';
import { sumChats } from '../shared/run/chatSummary.ts';
import type { Chat, Chats } from './chats.ts';

export class StatusBar extends Disposable {
  private readonly _run: vscode.StatusBarItem;
  private readonly _retry: vscode.StatusBarItem;
  private readonly _compaction: vscode.StatusBarItem;
  private _ticker: ReturnType<typeof setInterval> | undefined;
  private _lastRunning: boolean | undefined;
  private _lastSidebarRunning: boolean | undefined;
  private readonly _chats: Chats;

  constructor(chats: Chats) {
    super();
    this._chats = chats;
    this._run = this._register(vscode.window.createStatusBarItem('piPanel.runState', vscode.StatusBarAlignment.Left, 100));
    this._run.name = vscode.l10n.t('Pi Run State');
    this._run.command = 'piPanel.statusClick';
    this._retry = this._register(vscode.window.createStatusBarItem('piPanel.retry', vscode.StatusBarAlignment.Left, 99));
    this._retry.name = vscode.l10n.t('Pi Retry');
    this._retry.command = 'piPanel.focusChat';
    this._compaction = this._register(vscode.window.createStatusBarItem('piPanel.compaction', vscode.StatusBarAlignment.Left, 98));
    this._compaction.name = vscode.l10n.t('Pi Compaction');
    this._compaction.command = 'piPanel.focusChat';
    this._register(chats.onDidChange(() => this._update()));
    this._register(toDisposable(() => this._stopTicker()));
    this._update();
  }

  /** The chat whose details show: the focused one, else the only one with a run, else the sidebar's. */
  lead(): Chat {
    const busy = this._chats.running;
    return this._chats.focused ?? (busy.length === 1 ? busy[0]! : this._chats.sidebar);
  }

  /** The chat a click on the sum goes to: the one that waits longest, else the one that runs longest. */
  longest(): Chat | undefined {
    const all = this._chats.all;
    const i = sumChats(all.map(glance)).longest;
    return i === undefined ? undefined : all[i];
  }

  private _update(): void {
    const all = this._chats.all;
    const run = this.lead().client.state.run;
    const now = Date.now();
    const texts = describeStatus(run, now);
    const sum = sumChats(all.map(glance));
    const several = sum.running + sum.waiting > 1;
    show(this._run, {
      text: several ? `${sum.waiting ? '$(bell)' : '$(sync~spin)'} ${vscode.l10n.t('Pi: {0}', sum.text ?? '')}` : texts.run.text,
      tooltip:
        all.length > 1
          ? `${several ? vscode.l10n.t('Click to open the chat that waits longest.') : texts.run.tooltip}\n\n${sum.lines.join('\n')}`
          : texts.run.tooltip,
    });
    show(this._retry, texts.retry);
    show(this._compaction, texts.compaction);
    const running = all.some((c) => runCondition(c.client.state.run).phase !== 'idle');
    if (running !== this._lastRunning) {
      this._lastRunning = running;
      void vscode.commands.executeCommand('setContext', 'piPanel.running', running);
    }
    // The sidebar's title-bar Cancel shows while the sidebar's own chat runs.
    const sidebarRunning = runCondition(this._chats.sidebar.client.state.run).phase !== 'idle';
    if (sidebarRunning !== this._lastSidebarRunning) {
      this._lastSidebarRunning = sidebarRunning;
      void vscode.commands.executeCommand('setContext', 'piPanel.sidebarRunning', sidebarRunning);
    }
    // Countdowns and transient results need a clock while they show.
    const transient =
      run.retry ||
      run.summaryRetry?.waiting ||
      run.stalled ||
      (run.retryFailure && now - run.retryFailure.at < TRANSIENT_STATUS_MS) ||
      (run.retrySuccess && now - run.retrySuccess.at < TRANSIENT_STATUS_MS) ||
      (run.lastCompaction && now - run.lastCompaction.at < TRANSIENT_STATUS_MS);
    if (transient && !this._ticker) this._ticker = setInterval(() => this._update(), 1000);
    else if (!transient && this._ticker) {
      this._stopTicker();
      this._update();
    }
  }

  private _stopTicker(): void {
    if (this._ticker) clearInterval(this._ticker);
    this._ticker = undefined;
  }
}

function glance(c: Chat): { label: string; phase: Chat['phase']; since: number } {
  return { label: c.label, phase: c.phase, since: c.client.state.run.since };
}

/** What each item shows now (undefined: hidden), so an update that changes nothing sends nothing. */
const shown = new WeakMap<vscode.StatusBarItem, { text: string; tooltip: string } | undefined>();

/**
 * Shows `text` on `item`, or hides it, touching it only on a change: this runs on every batch of a streaming
 * reply, and each `hide()` (and each changed field) is a message to the workbench.
 */
function show(item: vscode.StatusBarItem, text: { text: string; tooltip: string } | undefined): void {
  const before = shown.get(item);
  if (shown.has(item) && before?.text === text?.text && before?.tooltip === text?.tooltip) return;
  shown.set(item, text && { ...text });
  if (!text) {
    item.hide();
    return;
  }
  if (item.text !== text.text) item.text = text.text;
  if (item.tooltip !== text.tooltip) item.tooltip = text.tooltip;
  item.show();
}
