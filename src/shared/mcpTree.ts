/** What an MCP server's row in the MCP Servers view offers (its `contextValue`, which the menus' `when` clauses match) and its icon. */

import type { McpServerView } from './wire/workerProtocol.ts';

/**
 * `:enabled:` / `:disabled:` (Disable / Enable; none for an extension's server, which Pi keeps in no file, nor in
 * Restricted Mode), `:userServer:` (a project override is possible), `:startable:` (Restart), `:oauth:` (Sign In).
 */
export function mcpItemContext(s: McpServerView): string {
  const flags = ['mcpServer'];
  const switchable = s.source !== 'extension' && s.state !== 'restricted';
  if (switchable) flags.push(s.state === 'disabled' ? 'disabled' : 'enabled');
  if (switchable && s.source === 'user') flags.push('userServer');
  if (s.state !== 'restricted' && s.state !== 'disabled') flags.push('startable');
  if (s.oauth && s.state !== 'restricted' && s.state !== 'disabled') flags.push('oauth');
  return `:${flags.join(':')}:`;
}

/** A codicon per state. */
export function mcpStateIcon(state: McpServerView['state']): string {
  switch (state) {
    case 'connected':
      return 'pass';
    case 'connecting':
      return 'loading~spin';
    case 'needsSignIn':
      return 'key';
    case 'failed':
      return 'error';
    case 'disconnected':
    case 'notConnected':
      return 'debug-disconnect';
    case 'disabled':
      return 'circle-slash';
    case 'restricted':
      return 'shield';
  }
}
