/** The MCP Servers view (`piPanel.mcpServers`): the focused chat's MCP servers, their state and tools, and Enable/Disable, Restart and Sign In. */

import * as vscode from 'vscode';
import { Disposable } from '../shared/disposable.ts';
import { mcpItemContext, mcpStateIcon } from '../shared/mcpTree.ts';
import { plainNotificationText } from '../shared/notificationText.ts';
import type { McpServerView } from '../shared/wire/workerProtocol.ts';
import { errorText, type PiClient } from './piClient.ts';

/** A server's state in words, for the view's descriptions and the palette's quick pick. */
export function mcpStateText(s: McpServerView): string {
  switch (s.state) {
    case 'connected':
      return vscode.l10n.t('connected, {0} tool(s)', s.tools.length);
    case 'connecting':
      return vscode.l10n.t('connecting');
    case 'needsSignIn':
      return vscode.l10n.t('needs sign-in');
    case 'failed':
      return vscode.l10n.t('failed: {0}', s.error?.split('\n')[0] ?? '');
    case 'disconnected':
      return vscode.l10n.t('disconnected, reconnects on the next call');
    case 'notConnected':
      return vscode.l10n.t('not connected (starting, or failed: see Pi: Show Log)');
    case 'disabled':
      return vscode.l10n.t('disabled');
    case 'restricted':
      return vscode.l10n.t('not started in Restricted Mode');
  }
}

/** Where a server comes from, in words. */
export function mcpSourceText(s: McpServerView): string {
  return s.source === 'project' ? vscode.l10n.t('project') : s.source === 'extension' ? vscode.l10n.t('extension') : vscode.l10n.t('user');
}

/** How soon the view reads again while a server is still connecting (the worker waits up to 3 s for Pi's answer too). */
const RECHECK_MS = 2_000;

type Node = { readonly server: McpServerView } | { readonly server: McpServerView; readonly tool: string };

export class McpServersView extends Disposable implements vscode.TreeDataProvider<Node> {
  private readonly _changed = this._register(new vscode.EventEmitter<void>());
  readonly onDidChangeTreeData = this._changed.event;
  private readonly _tree: vscode.TreeView<Node>;
  private readonly _client: () => PiClient | undefined;
  private _soon: ReturnType<typeof setTimeout> | undefined;

  /** `client`: the chat whose servers the view shows (the focused one). */
  constructor(client: () => PiClient | undefined) {
    super();
    this._client = client;
    this._tree = this._register(vscode.window.createTreeView('piPanel.mcpServers', { treeDataProvider: this }));
    // Read when shown, not polled: servers connect in the background and the user opens the view to look.
    this._register(this._tree.onDidChangeVisibility((e) => e.visible && this.refresh()));
    this._register({ dispose: () => clearTimeout(this._soon) });
  }

  refresh(): void {
    this._changed.fire();
  }

  private _refreshSoon(): void {
    if (this._soon) return;
    this._soon = setTimeout(() => {
      this._soon = undefined;
      if (!this.isDisposed) this.refresh();
    }, RECHECK_MS);
  }

  /** The commands of the view's item menus; each takes the server's row. */
  register(): vscode.Disposable[] {
    const act = (id: string, run: (client: PiClient, s: McpServerView) => Promise<string | undefined>) =>
      vscode.commands.registerCommand(id, async (node?: Node) => {
        const client = this._client();
        if (!node || !client) return;
        try {
          const failure = await run(client, node.server);
          if (failure) void vscode.window.showErrorMessage(plainNotificationText(vscode.l10n.t('Pi: {0}', failure)));
        } catch (err) {
          void vscode.window.showErrorMessage(plainNotificationText(vscode.l10n.t('Pi: {0}', errorText(err))));
        }
        this.refresh();
      });
    const setEnabled = (enabled: boolean, inProject: boolean) => async (client: PiClient, s: McpServerView) => {
      await client.ask('setMcpEnabled', { name: s.name, enabled, inProject });
      return undefined;
    };
    return [
      vscode.commands.registerCommand('piPanel.mcpRefresh', () => this.refresh()),
      act('piPanel.mcpEnable', setEnabled(true, false)),
      act('piPanel.mcpDisable', setEnabled(false, false)),
      act('piPanel.mcpEnableInProject', setEnabled(true, true)),
      act('piPanel.mcpDisableInProject', setEnabled(false, true)),
      act('piPanel.mcpRestart', async (client, s) => (await client.ask('reconnectMcp', { name: s.name })).failure),
      act('piPanel.mcpSignIn', async (client, s) => (await client.ask('signInMcp', { name: s.name })).failure),
    ];
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (node) return 'tool' in node ? [] : node.server.tools.map((tool) => ({ server: node.server, tool }));
    const client = this._client();
    if (!client) return [];
    try {
      const { servers } = await client.ask('mcpServers', null);
      this._tree.message = servers.length ? undefined : vscode.l10n.t('No MCP server is configured (mcp.json in the Pi agent folder or .pi/mcp.json).');
      // Servers connect in the background: while one still connects and the view shows, read again a little later.
      if (this._tree.visible && servers.some((s) => s.state === 'connecting')) this._refreshSoon();
      return servers.map((server) => ({ server }));
    } catch (err) {
      this._tree.message = plainNotificationText(errorText(err));
      return [];
    }
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if ('tool' in node) {
      const item = new vscode.TreeItem(node.tool, vscode.TreeItemCollapsibleState.None);
      item.id = `mcp:${node.server.name}:${node.tool}`;
      item.iconPath = new vscode.ThemeIcon('tools');
      item.contextValue = ':mcpTool:';
      return item;
    }
    const s = node.server;
    // Collapsed: a server's tools are a click away, the list of servers stays short.
    const item = new vscode.TreeItem(s.name, s.tools.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = `mcp:${s.name}`;
    item.description = `${mcpSourceText(s)} · ${mcpStateText(s)}`;
    item.tooltip = s.error ? `${s.name}\n\n${s.error}` : `${s.name}: ${item.description}`;
    item.iconPath = new vscode.ThemeIcon(mcpStateIcon(s.state));
    item.contextValue = mcpItemContext(s);
    return item;
  }
}
