/** Creates a real Pi session from plain options (no `vscode`), so the SDK tests run the same code as the product. */

import * as path from 'node:path';
import type { PiModule } from '../pi/piEntry.ts';
import type { CreatedSession } from './sessionController.ts';

export interface PiSessionOptions {
  readonly cwd: string;
  readonly agentDir: string;
  /** Start an empty session instead of continuing the most recent one of `cwd`. */
  readonly fresh: boolean;
  /** A saved session file to open instead. */
  readonly open?: string;
  /** An untrusted workspace gets a chat without tools: nothing there runs or writes. */
  readonly trusted: boolean;
  /** Tool allowlist; empty keeps Pi's defaults. */
  readonly tools: readonly string[];
  /** Why `cwd` is what it is, when the user should know (no folder open). */
  readonly cwdNote?: string;
}

/**
 * Where Pi keeps the sessions of `cwd` under `agentDir`. Mirrors Pi's own (unexported) rule so the panel
 * and the `pi` CLI share sessions, also when the agent directory comes from our setting.
 */
export function sessionDirFor(cwd: string, agentDir: string): string {
  const safe = `--${path
    .resolve(cwd)
    .replace(/^[/\\]/, '')
    .replace(/[/\\:]/g, '-')}--`;
  return path.join(path.resolve(agentDir), 'sessions', safe);
}

/**
 * Variables the VS Code extension host sets for itself. Inherited by the agent's shell they change how
 * commands behave (`ELECTRON_RUN_AS_NODE` turns any Electron app, `code` included, into plain Node).
 */
const HOST_ONLY_ENV =
  /^(ELECTRON_RUN_AS_NODE|ELECTRON_NO_ATTACH_CONSOLE|VSCODE_(IPC_HOOK|IPC_HOOK_CLI|CWD|PID|NLS_CONFIG|HANDLES_UNCAUGHT_ERRORS|AMD_ENTRYPOINT|CODE_CACHE_PATH|CRASH_REPORTER_PROCESS_TYPE|ESM_ENTRYPOINT|L10N_BUNDLE_LOCATION)|APPLICATION_INSIGHTS_NO_DIAGNOSTIC_CHANNEL)$/;

/** The environment for commands the agent runs: the host's, without what only the extension host needs. */
export function agentShellEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !HOST_ONLY_ENV.test(name)));
}

type BashDefinition = NonNullable<Parameters<PiModule['createAgentSessionFromServices']>[0]>['customTools'] extends (infer T)[] | undefined ? T : never;

export async function createPiSession(pi: PiModule, o: PiSessionOptions): Promise<CreatedSession> {
  const sessionDir = sessionDirFor(o.cwd, o.agentDir);
  const sessionManager = o.open
    ? pi.SessionManager.open(o.open, sessionDir)
    : o.fresh
      ? pi.SessionManager.create(o.cwd, sessionDir)
      : pi.SessionManager.continueRecent(o.cwd, sessionDir);
  // Tools are chosen once; the runtime's factory applies them to every session it creates (new, resume, fork, import).
  const tools = o.trusted
    ? {
        // Pi's own bash tool, with the extension host's private variables kept out of the shell. (Its
        // definition is generic in its schema; the option takes the erased form.)
        customTools: [pi.createBashToolDefinition(o.cwd, { spawnHook: (c) => ({ ...c, env: agentShellEnv(c.env) }) }) as unknown as BashDefinition],
        ...(o.tools.length ? { tools: [...o.tools] } : {}),
      }
    : { noTools: 'all' as const };
  const runtime = await pi.createAgentSessionRuntime(
    async ({ cwd, agentDir, sessionManager, sessionStartEvent }) => {
      const services = await pi.createAgentSessionServices({ cwd, agentDir });
      const created = await pi.createAgentSessionFromServices({ services, sessionManager, sessionStartEvent, ...tools });
      return { ...created, services, diagnostics: services.diagnostics };
    },
    { cwd: o.cwd, agentDir: o.agentDir, sessionManager },
  );
  const { session, modelFallbackMessage } = runtime;
  // Without any model that has credentials Pi still creates the session, with a placeholder model.
  const noModel = (await session.modelRuntime.getAvailable()).length === 0;
  const warnings = [
    noModel ? undefined : modelFallbackMessage,
    o.cwdNote,
    o.trusted ? undefined : 'This workspace is not trusted: Pi runs without tools here.',
  ].filter((w): w is string => Boolean(w));
  return { session, runtime, cwd: o.cwd, noModel, warning: warnings.length ? warnings.join(' ') : undefined };
}

/** The saved sessions of `cwd`, newest first. */
export async function listPiSessions(
  pi: PiModule,
  cwd: string,
  agentDir: string,
): Promise<{ path: string; name?: string; firstMessage: string; modified: Date; messageCount: number }[]> {
  const sessions = await pi.SessionManager.list(cwd, sessionDirFor(cwd, agentDir));
  return [...sessions].sort((a, b) => b.modified.getTime() - a.modified.getTime());
}
