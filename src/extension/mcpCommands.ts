/** Pi: MCP Servers: every server Pi knows with its state and tools, Enable/Disable (everywhere or in this project) and Restart. */

import * as vscode from 'vscode';
import { plainNotificationText } from '../shared/notificationText.ts';
import type { McpServerView } from '../shared/wire/workerProtocol.ts';
import { mcpSourceText, mcpStateText } from './mcpServersView.ts';
import { errorText, type PiClient } from './piClient.ts';

/** `target`: the client of the chat a command run with these arguments acts on. */
export function registerMcpCommands(target: (args: readonly unknown[]) => PiClient | undefined): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('piPanel.mcpServers', async (...args: unknown[]) => {
      const client = target(args);
      if (!client) return;
      try {
        const { servers } = await client.ask('mcpServers', null);
        if (!servers.length) {
          void vscode.window.showInformationMessage(vscode.l10n.t('Pi: no MCP server is configured (mcp.json in the Pi agent folder or .pi/mcp.json).'));
          return;
        }
        const showView = { label: `$(list-tree) ${vscode.l10n.t('Show the MCP Servers view')}`, server: undefined };
        const server = await vscode.window.showQuickPick(
          [
            ...servers.map((s) => ({
              label: s.name,
              description: `${mcpSourceText(s)} · ${mcpStateText(s)}`,
              detail: s.tools.join(', ') || undefined,
              server: s as McpServerView | undefined,
            })),
            showView,
          ],
          { title: vscode.l10n.t('Pi: MCP servers') },
        );
        if (!server) return;
        // The view under the chat shows the same, and stays: its section opens and takes the focus.
        if (!server.server) return void vscode.commands.executeCommand('piPanel.mcpServers.focus');
        const s = server.server;
        type Act = vscode.QuickPickItem & { run: () => Promise<unknown> };
        const enabled = s.state !== 'disabled';
        const acts: Act[] = [
          ...(s.state === 'restricted'
            ? []
            : s.source === 'extension'
              ? [{ label: vscode.l10n.t('Restart'), run: () => client.ask('reconnectMcp', { name: s.name }) }]
              : [
                  {
                    label: enabled ? vscode.l10n.t('Disable') : vscode.l10n.t('Enable'),
                    run: () => client.ask('setMcpEnabled', { name: s.name, enabled: !enabled, inProject: false }),
                  },
                  ...(s.source === 'user' && vscode.workspace.isTrusted
                    ? [
                        {
                          label: enabled ? vscode.l10n.t('Disable in this project') : vscode.l10n.t('Enable in this project'),
                          run: () => client.ask('setMcpEnabled', { name: s.name, enabled: !enabled, inProject: true }),
                        },
                      ]
                    : []),
                  { label: vscode.l10n.t('Restart'), run: () => client.ask('restartMcp', null) },
                ]),
        ];
        if (!acts.length) {
          void vscode.window.showInformationMessage(vscode.l10n.t('Pi: project MCP servers do not start in Restricted Mode. Trust the workspace to use them.'));
          return;
        }
        const act = await vscode.window.showQuickPick(acts, { title: s.name });
        if (act) await act.run();
      } catch (err) {
        void vscode.window.showErrorMessage(plainNotificationText(vscode.l10n.t('Pi: {0}', errorText(err))));
      }
    }),
  ];
}
