/** Creates a real Pi session from plain options (no `vscode`), so the SDK tests run the same code as the product. */

import * as path from 'node:path';
import type { PiModule } from '../pi/piEntry.ts';
import type { AgentSession, ExtensionCommandContextActions, ExtensionFactory, InlineExtension } from '@earendil-works/pi-coding-agent';
import type { ExtensionUi, LoadDiagnostic } from './dialogBridge.ts';
import type { AgentSessionLike, CreatedSession } from './agentSession.ts';

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
  /** The panel's own Pi extensions (approvals); loaded only in a trusted workspace, where tools run. */
  readonly extensionFactories?: readonly ExtensionFactory[];
  /** The panel's UI for Pi's extensions; bound only in a trusted workspace. */
  readonly extensions?: {
    readonly ui: ExtensionUi;
    /** Session switches and moves an extension's command may ask for; what is missing answers `cancelled`. */
    readonly actions?: Partial<Pick<ExtensionCommandContextActions, 'newSession' | 'switchSession' | 'fork' | 'navigateTree'>>;
    /** An extension called `ctx.shutdown()`. */
    readonly onShutdown?: () => void;
  };
  /** Opens an MCP server's sign-in page where the user is (VS Code's openExternal), not the worker machine's browser. */
  readonly openUrl?: (url: string) => void;
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
 * Variables a shell and the tools it starts need, passed whatever else is dropped (compared upper-cased, as
 * Windows spells them in any case). `LC_*` and `XDG_*` are matched as prefixes below.
 */
const SHELL_NEEDS = new Set(
  (
    'PATH HOME USER LOGNAME SHELL LANG LANGUAGE TERM COLORTERM TZ TMPDIR TMP TEMP EDITOR VISUAL PAGER HTTP_PROXY HTTPS_PROXY ' +
    'NO_PROXY ALL_PROXY SSL_CERT_FILE SSL_CERT_DIR NODE_EXTRA_CA_CERTS SSH_AUTH_SOCK DISPLAY WAYLAND_DISPLAY DBUS_SESSION_BUS_ADDRESS ' +
    'SYSTEMROOT WINDIR COMSPEC PATHEXT USERPROFILE USERNAME APPDATA LOCALAPPDATA PROGRAMDATA PROGRAMFILES PROGRAMFILES(X86) ' +
    'COMMONPROGRAMFILES HOMEDRIVE HOMEPATH PROCESSOR_ARCHITECTURE NUMBER_OF_PROCESSORS OS'
  ).split(' '),
);
const SHELL_NEEDS_PREFIX = /^(LC_|XDG_)/i;

/**
 * Names that belong to the editor process, never to the user: what VS Code's own terminal strips
 * (`ELECTRON_*`, `VSCODE_*`, `SNAP*`, `GDK_PIXBUF_*`), the git extension's askpass hook (`GIT_ASKPASS`,
 * `VSCODE_GIT_*`), code-server's login secrets and bookkeeping (`PASSWORD`, `HASHED_PASSWORD`,
 * `CODE_SERVER_*`), Electron/Chromium and telemetry switches.
 */
const HOST_PRIVATE =
  /^(ELECTRON_.*|VSCODE_.*|SNAP(_.*)?|GDK_PIXBUF_.*|GIT_ASKPASS|PASSWORD|HASHED_PASSWORD|CODE_SERVER_.*|CHROME_.*|APPLICATION_INSIGHTS_.*|ORIGINAL_XDG_.*)$/i;

/** A value that points at one of the editor's IPC sockets or askpass helpers, whatever the variable is called. */
const HOST_HANDLE = /vscode-(ipc|git)-|code-server-ipc|askpass(-main)?\.(sh|js)|[/\\]extensions[/\\]git[/\\]dist[/\\]/i;

/**
 * The environment for commands the agent runs, built the way a terminal's would be: the variables a shell
 * needs always pass; any other variable passes when it is the user's own, meaning its name is not one the
 * editor process sets for itself and its value holds none of the editor's IPC handles. This is hygiene, not
 * a boundary: the agent's commands can still read their parent's environment through `/proc`.
 */
export function agentShellEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const needed = SHELL_NEEDS.has(name.toUpperCase()) || SHELL_NEEDS_PREFIX.test(name);
    // PATH may name the editor's own bin folder (its `code` CLI), as it does in VS Code's terminal.
    const hostOwned = (!needed && HOST_PRIVATE.test(name)) || (name.toUpperCase() !== 'PATH' && HOST_HANDLE.test(value));
    if (hostOwned) continue;
    out[name] = value;
  }
  return out;
}

/** Whether `file` lies below `dir` (path text; both are Pi's own resolved paths). */
function isInside(file: string, dir: string): boolean {
  const rel = path.relative(dir, path.resolve(file));
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/**
 * Pi's built-in extensions as the `pi` CLI loads them (its unexported `builtInExtensions`): `codemode`,
 * `tool_search` and MCP, each the named `builtin:<name>` resource, so the user's `mcp.json` works unchanged,
 * `"-builtin:mcp"` in the `extensions` setting turns one off, and an installed extension that registers the
 * same tool or `/mcp` replaces it. (The CLI's `llama.cpp` built-in is not part of Pi's SDK surface.)
 */
function piBuiltInExtensions(pi: PiModule, openUrl: ((url: string) => void) | undefined): InlineExtension[] {
  return [
    { name: 'codemode', factory: pi.createCodemodeExtension(), replaceable: true, builtin: true },
    { name: 'tool-search', factory: pi.createToolSearchExtension(), replaceable: true, builtin: true },
    { name: 'mcp', factory: pi.createMcpExtension(openUrl ? { openUrl } : {}), replaceable: true, builtin: true },
  ];
}

/** The variable Pi's `getAgentDir()` reads (`<APP_NAME>_CODING_AGENT_DIR`, the app being `pi`). */
const AGENT_DIR_VARIABLE = 'PI_CODING_AGENT_DIR';

/** The variable as the extension host set it (the user's own `PI_CODING_AGENT_DIR`, if any), before the panel's setting. */
const hostAgentDirValue = process.env[AGENT_DIR_VARIABLE];

/**
 * Pi's default agent directory, as the `pi` CLI started from the same environment would use it, whatever
 * an earlier `piPanel.agentDir` pointed Pi at.
 */
export function defaultPiAgentDir(pi: PiModule): string {
  if (hostAgentDirValue === undefined) delete process.env[AGENT_DIR_VARIABLE];
  else process.env[AGENT_DIR_VARIABLE] = hostAgentDirValue;
  return pi.getAgentDir();
}

/**
 * Makes Pi's own `getAgentDir()` answer `agentDir`, or says why it could not. Sessions, settings and models
 * take the directory as an option, but the MCP extension reads `mcp.json`, `mcp-auth.json` and `mcp.log`
 * through `getAgentDir()`, which only the environment steers. The worker thread was started with a copy of
 * the host's environment (`worker_threads`' default), so this changes nothing in the extension host or
 * other extensions.
 */
export function pointPiAtAgentDir(pi: PiModule, agentDir: string): string | undefined {
  const want = path.resolve(agentDir);
  if (path.resolve(pi.getAgentDir()) === want) return undefined;
  process.env[AGENT_DIR_VARIABLE] = want;
  if (path.resolve(pi.getAgentDir()) === want) return undefined;
  return `Pi's MCP support reads mcp.json from ${pi.getAgentDir()}, not from ${want}: this Pi version no longer takes its directory from ${AGENT_DIR_VARIABLE}.`;
}

type ResourceLoaderLike = Awaited<ReturnType<PiModule['createAgentSessionServices']>>['resourceLoader'];

/**
 * What failed or warned while Pi loaded extensions, skills, prompt templates and themes, worded as the CLI
 * prints it (its `main` collects the same lists; the SDK's runtime leaves them to the caller).
 */
function loadDiagnostics(loader: ResourceLoaderLike): LoadDiagnostic[] {
  const extensions = loader.getExtensions();
  return [
    ...extensions.errors.map(({ path, error }) => ({ type: 'error' as const, path, message: `Failed to load extension "${path}": ${error}` })),
    ...(extensions.warnings ?? []).map(({ path, warning }) => ({ type: 'warning' as const, path, message: `Extension package "${path}": ${warning}` })),
    ...[...loader.getSkills().diagnostics, ...loader.getPrompts().diagnostics, ...loader.getThemes().diagnostics].map(resourceDiagnostic),
  ];
}

type ResourceDiagnostic = ReturnType<ResourceLoaderLike['getSkills']>['diagnostics'][number];

/**
 * A skill's, prompt's or theme's diagnostic with its file in the message. Pi's runtime reports each
 * (type, message) once, so two broken skills with the same problem would otherwise show as one; and a name
 * collision says which file is used and which is skipped, as the CLI prints it.
 */
function resourceDiagnostic(d: ResourceDiagnostic): LoadDiagnostic {
  const c = d.type === 'collision' ? d.collision : undefined;
  if (c) {
    const kind = `${c.resourceType.charAt(0).toUpperCase()}${c.resourceType.slice(1)}`;
    return { type: 'warning', message: `${kind} "${c.name}" collision: ${c.winnerPath} is used, ${c.loserPath} is skipped.`, path: c.loserPath };
  }
  const type = d.type === 'error' ? 'error' : 'warning';
  return d.path ? { type, message: `${d.path}: ${d.message}`, path: d.path } : { type, message: d.message };
}

export async function createPiSession(pi: PiModule, o: PiSessionOptions): Promise<CreatedSession> {
  // Before any session lookup: Pi's `continueRecent` compares the folder with the sessions folder of its own
  // agent directory, and keeps only sessions whose header names this workspace when they differ. Pointed
  // later, the first chat with `piPanel.agentDir` set missed the most recent session the CLI would continue.
  const agentDirProblem = pointPiAtAgentDir(pi, o.agentDir);
  const sessionDir = sessionDirFor(o.cwd, o.agentDir);
  const sessionManager = o.open
    ? pi.SessionManager.open(o.open, sessionDir, o.cwd)
    : o.fresh
      ? pi.SessionManager.create(o.cwd, sessionDir)
      : pi.SessionManager.continueRecent(o.cwd, sessionDir);
  // VS Code's workspace trust is Pi's project trust. Untrusted, Pi loads nothing the folder supplies:
  // no `.pi/settings.json` (nor the packages it names), `.pi/extensions`, `.pi/mcp.json`, skills, prompt
  // templates, themes or `.pi/SYSTEM.md` / `APPEND_SYSTEM.md`. Pi loads context files (`AGENTS.md`,
  // `CLAUDE.md`) whatever the trust, so an untrusted folder's are dropped here: only the user's own, in
  // the agent directory, steer the model. The session directory is ours, so the project's `sessionDir`
  // setting, which Pi reads before trust, is never consulted.
  // Tools are chosen once; the runtime's factory applies them, and the trust rules, to every session it
  // creates (new, resume, fork, import).
  // Pi's own tools, never a replacement of them: an extension's `bash` override then wins, as in the CLI.
  // The panel's shell protections do not need a tool of their own: the worker's environment is cleaned once
  // at start (cleanEnv.ts) and every child process is tracked (childProcesses.ts), whoever spawns it.
  const trustedTools = o.tools.length ? { tools: [...o.tools] } : {};
  const noTools = { noTools: 'all' as const };
  // Trusted, Pi's built-ins come first, as in the CLI; untrusted, no tool runs, so no MCP server starts.
  const builtIns = o.trusted ? piBuiltInExtensions(pi, o.openUrl) : [];
  const factories: InlineExtension[] = o.trusted ? [...builtIns, ...(o.extensionFactories ?? [])] : [];
  const runtime = await pi.createAgentSessionRuntime(
    async ({ cwd, agentDir, sessionManager, sessionStartEvent }) => {
      const ownDir = path.resolve(agentDir);
      // The panel opens every session in the workspace (cwdOverride); one that still names another folder
      // gets no trust there: that folder's extensions, settings and AGENTS.md never load, no tool runs.
      const trusted = o.trusted && path.resolve(cwd) === path.resolve(o.cwd);
      const services = await pi.createAgentSessionServices({
        cwd,
        agentDir,
        settingsManager: pi.SettingsManager.create(cwd, agentDir, { projectTrusted: trusted }),
        resourceLoaderOptions: {
          ...(trusted && factories.length ? { extensionFactories: [...factories] } : {}),
          ...(trusted ? {} : { agentsFilesOverride: (base) => ({ agentsFiles: base.agentsFiles.filter((file) => isInside(file.path, ownDir)) }) }),
        },
      });
      const created = await pi.createAgentSessionFromServices({ services, sessionManager, sessionStartEvent, ...(trusted ? trustedTools : noTools) });
      return { ...created, services, diagnostics: [...services.diagnostics, ...loadDiagnostics(services.resourceLoader)] };
    },
    { cwd: o.cwd, agentDir: o.agentDir, sessionManager },
  );
  const { session, modelFallbackMessage } = runtime;
  // Without any model that has credentials Pi still creates the session, with a placeholder model.
  const noModel = (await session.modelRuntime.getAvailable()).length === 0;
  const warnings = [
    noModel ? undefined : modelFallbackMessage,
    o.cwdNote,
    // Only MCP reads the folder through Pi's own lookup, and no MCP server starts untrusted.
    o.trusted ? agentDirProblem : undefined,
    o.trusted ? undefined : 'This workspace is not trusted: Pi runs without tools here and loads nothing from the folder (.pi/, AGENTS.md).',
  ].filter((w): w is string => Boolean(w));
  const ext = o.trusted ? o.extensions : undefined;
  // Untrusted, extensions keep Pi's do-nothing UI: nothing they ask reaches the user.
  const bind = ext
    ? async (bound: AgentSessionLike) => {
        const session = bound as unknown as AgentSession;
        ext.ui.reset((name) => session.extensionRunner?.getCommand(name)?.sourceInfo?.path);
        ext.ui.diagnostics(runtime.takeUnreportedDiagnostics());
        await session.bindExtensions({
          uiContext: ext.ui.context,
          // Dialogs work and there is no terminal: what Pi's RPC clients get.
          mode: 'rpc',
          commandContextActions: {
            waitForIdle: () => session.waitForIdle(),
            newSession: ext.actions?.newSession ?? (async () => ({ cancelled: true })),
            switchSession: ext.actions?.switchSession ?? (async () => ({ cancelled: true })),
            fork: ext.actions?.fork ?? (async () => ({ cancelled: true })),
            navigateTree: ext.actions?.navigateTree ?? (async () => ({ cancelled: true })),
            reload: async () => {
              await session.reload();
              // A reload reads every resource again: what still fails is shown again, as the CLI does.
              ext.ui.diagnostics(loadDiagnostics(session.resourceLoader));
            },
          },
          onError: ext.ui.onError,
          ...(ext.onShutdown ? { shutdownHandler: ext.onShutdown } : {}),
        });
        // The panel's own extensions (approvals) and Pi's built-ins (`builtin:<name>`) never read the
        // composer: only the user's count.
        const own = o.extensionFactories?.length ?? 0;
        const loaded = (session.extensionRunner?.getExtensionPaths() ?? []).filter((p) => !p.startsWith('builtin:'));
        ext.ui.bound(Math.max(0, loaded.length - own));
      }
    : undefined;
  return { session, runtime, cwd: o.cwd, noModel, warning: warnings.length ? warnings.join(' ') : undefined, bind };
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
