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

/** An MCP server as the MCP servers list shows it. `restricted`: a project server, not started in Restricted Mode. */
export interface McpServerView {
  readonly name: string;
  readonly source: 'user' | 'project';
  readonly state: 'connected' | 'notConnected' | 'disabled' | 'restricted';
  readonly tools: readonly string[];
  /** The project's `.pi/mcp.json` switches this user-level server on or off. */
  readonly overriddenInProject: boolean;
}

/** How a sign-in ended: `cancelled` when the user closed a question half way. */
export type LoginResult = { readonly ok: true; readonly name: string } | { readonly ok: false; readonly cancelled?: boolean; readonly message: string };
