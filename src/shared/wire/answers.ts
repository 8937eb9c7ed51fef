/** What the worker's commands answer with, beside the wire's own types: models, saved sessions, a file before a run, a sign-in. */

/** A file's content before a run changed it: text, absent (Pi created it), or not kept and why. */
export type FileBefore = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'absent' } | { readonly kind: 'refused'; readonly reason: string };

/** A model the user may pick. */
export interface ModelChoice {
  readonly provider: string;
  readonly id: string;
  readonly name?: string;
}

/** A saved session of the workspace. */
export interface SessionChoice {
  readonly path: string;
  readonly name?: string;
  readonly firstMessage: string;
  /** Epoch ms. */
  readonly modified: number;
  readonly messageCount: number;
}

/**
 * An MCP server as the MCP servers view shows it, its state from Pi's MCP manager where Pi reports it. `restricted`: not
 * started in Restricted Mode; `notConnected`: Pi's manager is not there to ask (an extension replaced `/mcp`) and the
 * session has none of its tools; `extension`: a server an extension registered (`pi.registerMcpServer`).
 */
export interface McpServerView {
  readonly name: string;
  readonly source: 'user' | 'project' | 'extension';
  readonly state: 'connected' | 'connecting' | 'needsSignIn' | 'failed' | 'disconnected' | 'notConnected' | 'disabled' | 'restricted';
  readonly tools: readonly string[];
  /** The project's `.pi/mcp.json` switches this user-level server on or off. */
  readonly overriddenInProject: boolean;
  /** Pi's connection error (a failed server). */
  readonly error?: string;
  /** An HTTP server that signs in with OAuth (no Authorization header of its own). */
  readonly oauth?: boolean;
}

/** How a sign-in ended: `cancelled` when the user closed a question half way. */
export type LoginResult = { readonly ok: true; readonly name: string } | { readonly ok: false; readonly cancelled?: boolean; readonly message: string };
