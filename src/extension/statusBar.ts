/** Status-bar items for the run, retries and compaction, and the context keys that enable commands. */

import * as vscode from 'vscode';
import { describeStatus, TRANSIENT_STATUS_MS } from './statusTexts.ts';
import type { RunState } from '../shared/run/runState.ts';
import { runCondition } from '../shared/run/runCondition.ts';
import { Disposable, toDisposable } from '../shared/disposable.ts';
import type { PiClient } from './piClient.ts';

export class StatusBar extends Disposable {
  private readonly _run: vscode.StatusBarItem;
  private readonly _retry: vscode.StatusBarItem;
  private readonly _compaction: vscode.StatusBarItem;
  private _ticker: ReturnType<typeof setInterval> | undefined;
  private _lastRunning: boolean | undefined;
  private _lastRun: RunState | undefined;
  private readonly _client: PiClient;

  constructor(client: PiClient) {
    super();
    this._client = client;
    this._run = this._register(vscode.window.createStatusBarItem('piPanel.runState', vscode.StatusBarAlignment.Left, 100));
    this._run.name = vscode.l10n.t('Pi Run State');
    this._run.command = 'piPanel.statusClick';
    this._retry = this._register(vscode.window.createStatusBarItem('piPanel.retry', vscode.StatusBarAlignment.Left, 99));
    this._retry.name = vscode.l10n.t('Pi Retry');
    this._retry.command = 'piPanel.focusChat';
    this._compaction = this._register(vscode.window.createStatusBarItem('piPanel.compaction', vscode.StatusBarAlignment.Left, 98));
    this._compaction.name = vscode.l10n.t('Pi Compaction');
    this._compaction.command = 'piPanel.focusChat';
    this._register(client.onDidEmit(() => this._update()));
    this._register(client.onDidReplace(() => this._update()));
    this._register(toDisposable(() => this._stopTicker()));
    this._update();
  }

  private _update(): void {
    const run = this._client.state.run;
    const now = Date.now();
    const texts = describeStatus(run, now);
    if (run !== this._lastRun || this._ticker) {
      this._lastRun = run;
      this._run.text = texts.run.text;
      this._run.tooltip = texts.run.tooltip;
      this._run.show();
      show(this._retry, texts.retry);
      show(this._compaction, texts.compaction);
    }
    const running = runCondition(run).phase !== 'idle';
    if (running !== this._lastRunning) {
      this._lastRunning = running;
      void vscode.commands.executeCommand('setContext', 'piPanel.running', running);
    }
    // Countdowns and transient results need a clock while they show.
    const transient =
      run.retry ||
      run.summaryRetry?.waiting ||
      run.stalled ||
      (run.retryFailure && now - run.retryFailure.at < TRANSIENT_STATUS_MS) ||
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

function show(item: vscode.StatusBarItem, text: { text: string; tooltip: string } | undefined): void {
  if (!text) {
    item.hide();
    return;
  }
  item.text = text.text;
  item.tooltip = text.tooltip;
  item.show();
}
